// The daemon's one notion of "now". A leaf: it imports nothing of ours.

/**
 * Unix milliseconds. The App owns one and hands the same clock to every part it builds, so
 * a rule test or the demo (on the simulator's time) moves them all at once. Timers stay
 * global setTimeout: a test fakes those together with Date.
 */
export interface Clock {
  now(): number;
}

/** The wall clock, read at each call (so a faked Date is seen too). */
export const systemClock: Clock = { now: () => Date.now() };
