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

  it("steps the daemon's wall clock only: its steady reading and the world's time go on", () => {
    const clock = new SimClock(START, 0);
    const daemon = clock.asClock();
    clock.stepWall(-3_600_000);
    clock.advance(10_000);
    expect([daemon.now(), daemon.mono(), clock.nowMs()]).toEqual([START - 3_590_000, START + 10_000, START + 10_000]);
  });
});
