// Every timer of the daemon is scheduled here, on the global setTimeout: a test that fakes
// timers fakes them all (node:timers/promises is not faked). A leaf: it imports nothing of ours.

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

/** setTimeout with the delay clamped (timerDelay). */
export function setTimer(fn: () => void, ms: number): NodeJS.Timeout {
  return setTimeout(fn, timerDelay(ms));
}

/** Resolves after `ms` (clamped); rejects with an AbortError when `signal` aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(signal as AbortSignal));
    };
    const timer = setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** As node:timers/promises rejects: name AbortError, the signal's reason as the cause. */
function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error('The operation was aborted', { cause: signal.reason }), { name: 'AbortError', code: 'ABORT_ERR' });
}

/** Resolves after `ms` (clamped), or as soon as `signal` aborts: never rejects. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimer(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
