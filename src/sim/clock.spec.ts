import { afterEach, describe, expect, it, vi } from 'vitest';
import { SimClock } from './clock.js';

const START = Date.parse('2026-01-01T00:00:00Z');

describe('SimClock', () => {
  afterEach(() => vi.useRealTimers());

  it('runs at its speed from when it is made', () => {
    vi.useFakeTimers({ now: 1_000 });
    const clock = new SimClock(START, 8);
    vi.advanceTimersByTime(500);
    expect(clock.nowMs()).toBe(START + 4_000);
  });

  it('held, stands at its start (advance() aside) until run(), then runs from there', () => {
    vi.useFakeTimers({ now: 1_000 });
    const clock = new SimClock(START, 8, true);
    vi.advanceTimersByTime(10_000);
    expect(clock.nowMs()).toBe(START);
    clock.advance(1_000);
    clock.run();
    vi.advanceTimersByTime(500);
    expect(clock.nowMs()).toBe(START + 5_000);
    clock.run(); // a running clock carries on
    expect(clock.nowMs()).toBe(START + 5_000);
  });

  it("as the App's clock, its timers wait the world's time: 8 s of it at 8× is one second of the host's", async () => {
    vi.useFakeTimers({ now: 1_000 });
    const clock = new SimClock(START, 8).asClock();
    const fired: number[] = [];
    clock.setTimer(() => fired.push(clock.mono()), 8_000);
    const cancel = clock.setTimer(() => fired.push(-1), 16_000);
    let slept = false;
    void clock.sleep(4_000).then(() => (slept = true));
    await vi.advanceTimersByTimeAsync(499);
    expect(slept).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(slept).toBe(true);
    await vi.advanceTimersByTimeAsync(499);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([START + 8_000]);
    cancel();
    vi.advanceTimersByTime(10_000);
    expect(fired).toEqual([START + 8_000]);
  });

  it('at speed 0 (only advance() moves it) its timers wait the host\'s time', () => {
    vi.useFakeTimers({ now: 1_000 });
    const clock = new SimClock(START, 0).asClock();
    let fired = false;
    clock.setTimer(() => (fired = true), 1_000);
    vi.advanceTimersByTime(999);
    expect(fired).toBe(false);
    vi.advanceTimersByTime(1);
    expect(fired).toBe(true);
  });

  it("steps the daemon's wall clock only: its steady reading and the world's time go on", () => {
    const clock = new SimClock(START, 0);
    const daemon = clock.asClock();
    clock.stepWall(-3_600_000);
    clock.advance(10_000);
    expect([daemon.now(), daemon.mono(), clock.nowMs()]).toEqual([START - 3_590_000, START + 10_000, START + 10_000]);
  });
});
