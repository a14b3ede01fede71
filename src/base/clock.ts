// The daemon's one notion of "now", and its timers: the only file that reads the host's clocks
// (timers.ts holds the host's setTimeout behind it). test/structure.test.ts keeps it so.
import { hostTimers, timersOn, type Timers } from './timers.js';

/**
 * Two readings, in unix-like milliseconds, and timers. The App owns one and hands the same
 * clock to every part it builds (scheduler, API clients, channels, delivery, history,
 * heartbeat, config watch, the page), so a rule test or the demo (on the simulator's time)
 * moves them all at once.
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
 * - timers (`setTimer`, `sleep`, `pause`): waits in steady milliseconds. The host's run on the
 *   global setTimeout (a test's fake timers drive them); the demo's run `speed` times faster.
 *   A deadline on another system's answer, which comes at the host's pace, is systemClock's.
 */
export interface Clock extends Readings, Timers {}

export interface Readings {
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
  ...hostTimers,
};

/**
 * Forgets the steady clock's anchor, for a test that faked Date: vitest shares this module
 * between test files (isolate: false), and an anchor taken under a faked Date would put every
 * later steady time in the worker days off the wall (a page reading an event "6d18h ago").
 */
export function unanchorSystemClock(): void {
  anchor = undefined;
}

/** These readings, with the host's timers (a test that sets the time by hand). */
export function clockOf(readings: Readings): Clock {
  return { now: () => readings.now(), mono: () => readings.mono(), ...hostTimers };
}

/** A clock whose wall and steady readings are one, on the host's timers (tests, tools that only need one). */
export function clockAt(now: () => number): Clock {
  return clockOf({ now, mono: now });
}

/**
 * These readings with timers `speed` times faster than the host's (the demo's world): a wait
 * of `ms` on it takes `ms / speed` of the host's. Speed 0 (a world only advance() moves) waits
 * on the host's time.
 */
export function scaledClock(readings: Readings, speed: number): Clock {
  const scale = speed > 0 ? speed : 1;
  const timers = scale === 1 ? hostTimers : timersOn((fn, ms, o) => hostTimers.setTimer(fn, ms / scale, o));
  return { now: () => readings.now(), mono: () => readings.mono(), ...timers };
}

/** A wall time (a cron slot, a silence's end) on the steady timeline: when it comes, as of now. */
export function monoOf(clock: Clock, wall: number): number {
  return wall + (clock.mono() - clock.now());
}
