import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetWaitMs } from '../base/retry.js';
import { BudgetExhaustedError, Limiter, RateLimitedError } from './limiter.js';
import { systemClock, clockAt, clockOf } from '../base/clock.js';

describe('compute-unit limiter', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 22, 12, 0, 0) });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Starts `n` acquisitions and records when each was let through (ms after the start). */
  function race(limiter: Limiter, n: number, cu: number, severity: 'info' | 'warning' | 'critical' = 'critical') {
    const start = Date.now();
    const at: number[] = [];
    const all = Array.from({ length: n }, () => limiter.acquire(cu, severity).then(() => at.push(Date.now() - start)));
    return { at, all: Promise.all(all) };
  }

  it('spreads a burst: at most a sixth of the minute in any 10 s, never over the minute', async () => {
    const limiter = new Limiter({ limits: { perMinute: 6_000, perDay: 1_200_000 }, clock: systemClock });
    const { at, all } = race(limiter, 600, 20); // 12,000 CU: two minutes' worth
    await vi.advanceTimersByTimeAsync(130_000);
    await all;
    for (let t = 0; t < 120_000; t += 1_000) {
      expect(at.filter((x) => x >= t && x < t + 10_000).length * 20).toBeLessThanOrEqual(1_000);
      expect(at.filter((x) => x >= t && x < t + 60_000).length * 20).toBeLessThanOrEqual(6_000);
    }
    expect(Math.max(...at)).toBeGreaterThanOrEqual(110_000);
  });

  it('when the minute runs short, info waits first, then warning; critical spends to the end', async () => {
    const limiter = new Limiter({ limits: { perMinute: 6_000, perDay: 1_200_000 }, clock: systemClock });
    // Spend 4,600 of 6,000 over the first 46 s.
    const spent = race(limiter, 230, 20);
    await vi.advanceTimersByTimeAsync(47_000);
    await spent.all;
    expect(limiter.remainingMinute()).toBe(1_400);
    const info = race(limiter, 1, 20, 'info'); // would leave less than 25% (1,500)
    const warning = race(limiter, 1, 20, 'warning'); // leaves 1,380 ≥ 10% (600): goes
    const critical = race(limiter, 1, 20, 'critical');
    await vi.advanceTimersByTimeAsync(500);
    expect([info.at.length, warning.at.length, critical.at.length]).toEqual([0, 1, 1]);
    await vi.advanceTimersByTimeAsync(15_000); // the first spends leave the minute
    expect(info.at.length).toBe(1);
  });

  it('takes the service at its word: a lower ratelimit-remaining counts as spent, a 429 pauses everyone until its reset', async () => {
    const limiter = new Limiter({ limits: { perMinute: 6_000, perDay: 1_200_000 }, clock: systemClock });
    limiter.observe({ 'ratelimit-remaining': '2000' }, 200);
    expect(limiter.remainingMinute()).toBe(2_000);
    limiter.observe({ 'ratelimit-remaining': '0', 'ratelimit-reset': '7', 'retry-after': '7' }, 429);
    const { at, all } = race(limiter, 3, 20);
    await vi.advanceTimersByTimeAsync(6_900);
    expect(at).toEqual([]);
    await vi.advanceTimersByTimeAsync(60_000);
    await all;
    expect(Math.min(...at)).toBeGreaterThanOrEqual(7_000);
  });

  it('a pause longer than maxRetryAfter fails every request at once instead of holding it, and a queued one too', async () => {
    const limiter = new Limiter({ limits: { perMinute: 6_000, perDay: 1_200_000 }, maxWaitMs: 60_000, clock: systemClock });
    const queued = limiter.acquire(7_000).catch((e: unknown) => e); // waits for the window
    limiter.observe({ 'ratelimit-reset': '600' }, 429);
    expect(await queued).toBeInstanceOf(RateLimitedError);
    await expect(limiter.acquire(20)).rejects.toThrow(/asked to wait until 2026-11-22T12:10:00.000Z, longer than api.maxRetryAfter/);
    // Once what is left of the pause fits in maxRetryAfter, requests wait it out.
    await vi.advanceTimersByTimeAsync(541_000);
    const { at, all } = race(limiter, 1, 20);
    await vi.advanceTimersByTimeAsync(60_000);
    await all;
    expect(at[0]).toBeGreaterThanOrEqual(59_000);
  });

  it('a reset that can only be a time is read as one: no decades-long pause, no timer past Node\'s maximum', async () => {
    const now = Date.now();
    expect(resetWaitMs('7', now)).toBe(7_000);
    expect(resetWaitMs(String(now / 1000 + 30), now)).toBe(30_000); // epoch seconds
    expect(resetWaitMs(String(now + 45_000), now)).toBe(45_000); // epoch milliseconds
    expect(resetWaitMs(new Date(now + 5_000).toUTCString(), now)).toBe(5_000);
    expect(resetWaitMs('soon', now)).toBeUndefined();
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const limiter = new Limiter({ limits: { perMinute: 6_000, perDay: 1_200_000 }, maxWaitMs: 60_000, clock: systemClock });
      limiter.observe({ 'ratelimit-reset': String(Math.floor(now / 1000) + 20) }, 429);
      const { at, all } = race(limiter, 1, 20);
      await vi.advanceTimersByTimeAsync(19_000);
      expect(at).toEqual([]);
      await vi.advanceTimersByTimeAsync(2_000);
      await all;
      // A pause asked for years away is held at most a day, and fails polls meanwhile.
      limiter.observe({ 'retry-after': '99999999999' }, 429);
      await expect(limiter.acquire(20)).rejects.toBeInstanceOf(RateLimitedError);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });

  it("a 429's pause runs on the steady clock: the wall stepped back an hour neither stretches it nor holds a request", async () => {
    let wall = Date.UTC(2026, 0, 1);
    let steady = 0;
    const limiter = new Limiter({ limits: { perMinute: 6_000, perDay: 1_200_000 }, maxWaitMs: 60_000, clock: clockOf({ now: () => wall, mono: () => steady }) });
    limiter.observe({ 'retry-after': '30' }, 429);
    expect(limiter.pausedUntil).toBe(wall + 30_000);
    wall -= 3_600_000;
    steady += 30_000;
    expect(limiter.pausedUntil).toBe(wall);
    const { at } = race(limiter, 1, 20);
    await vi.advanceTimersByTimeAsync(0);
    expect(at).toEqual([0]);
  });

  it("on the daemon's clock: a jump past a 429's pause ends it at once; a clock that stands still holds a request no longer than the pause", async () => {
    let clock = Date.UTC(2026, 0, 1);
    const limiter = new Limiter({ limits: { perMinute: 6_000, perDay: 1_200_000 }, maxWaitMs: 60_000, clock: clockAt(() => clock) });
    limiter.observe({ 'retry-after': '30' }, 429);
    expect(limiter.pausedUntil).toBe(clock + 30_000);
    clock += 30_000;
    const jumped = race(limiter, 1, 20);
    await vi.advanceTimersByTimeAsync(0);
    expect(jumped.at).toEqual([0]);
    limiter.observe({ 'retry-after': '30' }, 429);
    const { at, all } = race(limiter, 1, 20);
    await vi.advanceTimersByTimeAsync(29_000);
    expect(at).toEqual([]);
    await vi.advanceTimersByTimeAsync(2_000);
    await all;
    expect(at[0]).toBeGreaterThanOrEqual(30_000);
  });

  it('learns a lower limit from ratelimit-limit, and what others spent never blocks the spreading window', async () => {
    const limiter = new Limiter({ limits: { perMinute: 10_000_000, perDay: 1_000_000_000 }, clock: systemClock });
    limiter.observe({ 'ratelimit-limit': '6000', 'ratelimit-remaining': '3000' }, 200);
    expect(limiter.perMinute).toBe(6_000);
    expect(limiter.remainingMinute()).toBe(3_000);
    // 3,000 spent by someone else this second: our own 10 s window is still empty.
    const { at, all } = race(limiter, 5, 20);
    await vi.advanceTimersByTimeAsync(0);
    await all;
    expect(at).toEqual([0, 0, 0, 0, 0]);
  });

  it('refuses loudly once the day is spent, and renews at 00:00 UTC', async () => {
    const limiter = new Limiter({ limits: { perMinute: 1_000_000, perDay: 100 }, clock: systemClock });
    await race(limiter, 5, 20).all;
    await expect(limiter.acquire(20)).rejects.toThrow(BudgetExhaustedError);
    await expect(limiter.acquire(20)).rejects.toThrow("the day's budget of 100 compute units is spent; it renews at 00:00 UTC");
    vi.setSystemTime(Date.UTC(2026, 10, 23, 0, 0, 1));
    await expect(limiter.acquire(20)).resolves.toMatchObject({ cu: 20 });
    expect(limiter.remainingDay()).toBe(80);
  });

  it('an unanswered request gives its compute units back, and the one waiting for them goes at once', async () => {
    const limiter = new Limiter({ limits: { perMinute: 60, perDay: 1_000 }, clock: systemClock });
    const spent: number[] = [];
    limiter.onSpend = (cu) => spent.push(cu);
    const first = await limiter.acquire(10);
    let second = false;
    void limiter.acquire(10).then(() => (second = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(second).toBe(false); // the 10 s window holds a sixth of the minute: 10 CU
    limiter.settle(first, false);
    await vi.advanceTimersByTimeAsync(0);
    expect(second).toBe(true);
    expect(limiter.remainingDay()).toBe(990);
    expect(spent).toEqual([]);
  });

  it('an aborted wait leaves the queue', async () => {
    const limiter = new Limiter({ limits: { perMinute: 60, perDay: 1_000 }, clock: systemClock });
    await limiter.acquire(10);
    const abort = new AbortController();
    const waiting = limiter.acquire(10, 'critical', abort.signal);
    expect(limiter.waiting).toBe(1);
    abort.abort(new Error('rule removed'));
    await expect(waiting).rejects.toThrow('rule removed');
    expect(limiter.waiting).toBe(0);
  });
});
