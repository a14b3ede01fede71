// The daemon's one notion of "now". A leaf: it imports nothing of ours.

/**
 * Two readings, in unix-like milliseconds. The App owns one and hands the same clock to every
 * part it builds, so a rule test or the demo (on the simulator's time) moves them all at once.
 * Timers stay global setTimeout: a test that fakes them runs the App on the simulator's clock
 * (or fakes Date and performance with them).
 *
 * - `now()`: the wall clock. It stamps what a person reads, what the service is asked, and
 *   is what a chain's timestamps are compared with ("validation ends in 2h"). An NTP
 *   correction or a VM restored from a snapshot steps it, either way.
 * - `mono()`: the steady clock. It never steps: every age, wait, `for:`, dedupe window,
 *   backoff and maxAge counts on it. Its origin is the wall clock when the process started,
 *   so a time persisted on it (outbox rows, alert state) still reads as a date: a step during
 *   the process's life changes no elapsed time, and the next start re-anchors it to the wall
 *   (store/reanchor.ts brings back the times a previous run left ahead of it). Persisting wall
 *   times instead would need a monotonic copy of each kept in memory, and every row read back
 *   after a restart would be aged on the wall again.
 */
export interface Clock {
  now(): number;
  mono(): number;
}

let anchor: { wall: number; perf: number } | undefined;

/**
 * The host's clocks, read at each call. Anchored again if performance.now() goes back, which
 * only a test's faked timers do: mono then restarts at the (faked) wall and runs with it.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  mono: () => {
    const perf = performance.now();
    if (anchor === undefined || perf < anchor.perf) anchor = { wall: Date.now(), perf };
    return anchor.wall + (perf - anchor.perf);
  },
};

/**
 * Forgets the steady clock's anchor, for a test that faked Date: vitest shares this module
 * between test files (isolate: false), and an anchor taken under a faked Date would put every
 * later steady time in the worker days off the wall (a page reading an event "6d18h ago").
 */
export function unanchorSystemClock(): void {
  anchor = undefined;
}

/** A clock whose wall and steady readings are one (tests, tools that only need one). */
export function clockAt(now: () => number): Clock {
  return { now, mono: now };
}

/** A wall time (a cron slot, a silence's end) on the steady timeline: when it comes, as of now. */
export function monoOf(clock: Clock, wall: number): number {
  return wall + (clock.mono() - clock.now());
}
