// The host's timers, on the global setTimeout: a test that fakes timers fakes them all
// (node:timers/promises is not faked). Reached through a Clock (clock.ts), never directly:
// the demo's clock runs them faster. A leaf: it imports nothing of ours.

import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * setTimeout's ceiling (about 24.8 days). Node runs a longer delay after 1 ms instead, with
 * a TimeoutOverflowWarning: a wait asked by a provider would become a busy loop.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A delay setTimeout takes as meant: negative or NaN is 0, past the ceiling is the ceiling.
 * A clamped timer fires early; every caller looks at its own deadline again when it fires.
 */
export function timerDelay(ms: number): number {
  if (!(ms > 0)) return 0;
  return Math.min(ms, MAX_TIMER_MS);
}

/** Cancels a timer; a no-op once it fired or was cancelled. */
export type Cancel = () => void;

/** Waits counted in a clock's steady milliseconds. */
export interface Timers {
  /** Calls `fn` after `ms`. `unref`: this timer alone does not keep the process up. */
  setTimer(fn: () => void, ms: number, o?: { unref?: boolean }): Cancel;
  /** Resolves after `ms`; rejects with an AbortError when `signal` aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Resolves after `ms`, or as soon as `signal` aborts: never rejects. */
  pause(ms: number, signal?: AbortSignal): Promise<void>;
}

/** sleep and pause on top of a setTimer. */
export function timersOn(setTimer: Timers['setTimer']): Timers {
  return {
    setTimer,
    sleep(ms, signal) {
      if (signal?.aborted) return Promise.reject(abortError(signal));
      return new Promise((resolve, reject) => {
        const onAbort = (): void => {
          cancel();
          reject(abortError(signal as AbortSignal));
        };
        const cancel = setTimer(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }, ms);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    pause(ms, signal) {
      if (ms <= 0 || signal?.aborted) return Promise.resolve();
      return new Promise((resolve) => {
        const done = (): void => {
          cancel();
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const cancel = setTimer(done, ms);
        signal?.addEventListener('abort', done, { once: true });
      });
    },
  };
}

/** Calls `fn` every `ms` on `timers` until the returned Cancel. */
export function every(timers: Pick<Timers, 'setTimer'>, ms: number, fn: () => void): Cancel {
  let cancel: Cancel = () => undefined;
  let stopped = false;
  const tick = (): void => {
    if (stopped) return;
    fn();
    if (!stopped) cancel = timers.setTimer(tick, ms);
  };
  cancel = timers.setTimer(tick, ms);
  return () => {
    stopped = true;
    cancel();
  };
}

/** setTimeout with the delay clamped (timerDelay). */
export const hostTimers: Timers = timersOn((fn, ms, o) => {
  const timer = setTimeout(fn, timerDelay(ms));
  if (o?.unref) timer.unref();
  return () => clearTimeout(timer);
});

/** As node:timers/promises rejects: name AbortError, the signal's reason as the cause. */
function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error('The operation was aborted', { cause: signal.reason }), { name: 'AbortError', code: 'ABORT_ERR' });
}

/**
 * `work`'s outcome, or `late()`'s (a value, or a throw) when `work` has not settled within `ms`
 * on `timers`: a cap on a wait for another system. `work` keeps running; its later rejection is
 * handled. The cap's timer ends with the wait.
 */
export async function within<T, L>(timers: Pick<Timers, 'sleep'>, ms: number, work: Promise<T>, late: () => L): Promise<T | L> {
  work.catch(() => undefined);
  const cap = new AbortController();
  try {
    return await Promise.race([work, timers.sleep(ms, cap.signal).then(late)]);
  } finally {
    cap.abort();
  }
}

let lane: Promise<unknown> = Promise.resolve();

/**
 * Runs `job` in a turn of the event loop of its own, after every job handed here before it.
 * For CPU work on a text from outside (an exposition of up to 32 MiB): the rules that share one
 * read would otherwise each scan it in the same drain of microtasks, the loop blocked for their
 * sum (a second over ten rules); one at a time, timers and sockets run between two. Not a wait
 * on time: node:timers/promises' setImmediate, which no fake clock holds.
 */
export function ownTurn<T>(job: () => T): Promise<T> {
  const turn = lane.then(() => nextTurn()).then(job);
  lane = turn.catch(() => undefined);
  return turn;
}
