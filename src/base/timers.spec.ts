import { afterEach, describe, expect, it, vi } from 'vitest';
import { every, hostTimers, MAX_TIMER_MS, ownTurn, timerDelay, within } from './timers.js';

const { setTimer, pause } = hostTimers;

const warnings: string[] = [];
const onWarning = (w: Error): void => {
  warnings.push(w.name);
};

/** Lets a warning Node emitted (on the next tick) arrive, and a 1 ms timer fire. */
// real wait: the real timers are what is tested (Node's overflow warning comes on a later tick).
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 15));

describe('timers', () => {
  afterEach(() => {
    process.off('warning', onWarning);
    warnings.length = 0;
  });

  it('clamps a delay to what setTimeout can hold', () => {
    expect(MAX_TIMER_MS).toBe(2_147_483_647);
    expect(timerDelay(3_000_000_000)).toBe(MAX_TIMER_MS);
    expect(timerDelay(Infinity)).toBe(MAX_TIMER_MS);
    expect(timerDelay(1_500)).toBe(1_500);
    expect(timerDelay(-5)).toBe(0);
    expect(timerDelay(Number.NaN)).toBe(0);
  });

  it('a wait of 3,000,000 s neither warns nor fires early', async () => {
    process.on('warning', onWarning);
    let fired = 0;
    const cancel = setTimer(() => fired++, 3_000_000_000);
    const abort = new AbortController();
    // Not a wait: the sleep under test, aborted before it ends.
    const slept = hostTimers.sleep(3_000_000_000, abort.signal).catch((err: Error) => err.name);
    const paused = pause(3_000_000_000, abort.signal).then(() => 'paused');
    await settle();
    expect(fired).toBe(0);
    expect(warnings).toEqual([]);
    cancel();
    abort.abort();
    expect(await slept).toBe('AbortError');
    expect(await paused).toBe('paused');
  });

  it('every: calls on each period until cancelled, from inside a call too', () => {
    vi.useFakeTimers();
    try {
      let calls = 0;
      const stop = every(hostTimers, 1_000, () => {
        calls++;
        if (calls === 3) stop();
      });
      vi.advanceTimersByTime(999);
      expect(calls).toBe(0);
      vi.advanceTimersByTime(1);
      expect(calls).toBe(1);
      vi.advanceTimersByTime(5_000);
      expect(calls).toBe(3);
      const other = every(hostTimers, 100, () => calls++);
      vi.advanceTimersByTime(250);
      other();
      vi.advanceTimersByTime(1_000);
      expect(calls).toBe(5);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('within', () => {
  it("gives the work's outcome when it settles in time, and late()'s (a value or a throw) when it does not; a late rejection is handled", async () => {
    vi.useFakeTimers();
    try {
      expect(await within(hostTimers, 100, Promise.resolve('answer'), () => 'late')).toBe('answer');
      const never = new Promise<string>(() => undefined);
      const capped = within(hostTimers, 100, never, () => 'late');
      await vi.advanceTimersByTimeAsync(100);
      expect(await capped).toBe('late');
      let fail!: (e: Error) => void;
      const failsLater = new Promise<string>((_, reject) => (fail = reject));
      const thrown = within(hostTimers, 100, failsLater, () => {
        throw new Error('no answer within 0.1s');
      });
      const outcome = expect(thrown).rejects.toThrow('no answer within 0.1s');
      await vi.advanceTimersByTimeAsync(100);
      await outcome;
      fail(new Error('connection reset')); // after the cap: handled, not an unhandled rejection
      await expect(within(hostTimers, 100, Promise.reject(new Error('refused')), () => 'late')).rejects.toThrow('refused');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('ownTurn', () => {
  it('runs jobs handed at once one per turn of the event loop: what the loop has queued meanwhile runs between two', async () => {
    const seen: string[] = [];
    const a = ownTurn(() => {
      seen.push('a');
      setImmediate(() => seen.push('loop'));
      return 1;
    });
    const b = ownTurn(() => {
      seen.push('b');
      return 2;
    });
    expect(await Promise.all([a, b])).toEqual([1, 2]);
    expect(seen).toEqual(['a', 'loop', 'b']);
  });

  it('a job that throws rejects its own turn only', async () => {
    const bad = ownTurn(() => {
      throw new Error('unparsable');
    });
    await expect(bad).rejects.toThrow('unparsable');
    expect(await ownTurn(() => 'next')).toBe('next');
  });
});
