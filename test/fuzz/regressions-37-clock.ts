import type fc from 'fast-check';
import type { Run } from './commands.js';
import { ClockStep } from './steps-clock.js';
import { NODES, type Model } from './world.js';

// Issue 37, "time that cannot lie": the wall clock stepped, the steady clock and the world unmoved.

const [A, B, C] = NODES as [string, string, string];
const HOUR = 3600_000;

export const REGRESSIONS_37_CLOCK: Array<[string, Array<fc.AsyncCommand<Model, Run>>]> = [
  ['a for: alert started before a step back of 1 h fires after its elapsed time; a waiting notification is not held for the hour', [new ClockStep(-HOUR, A)]],
  ['a forward step of 26 h does not dead-letter a notification seconds old', [new ClockStep(26 * HOUR, B)]],
  ['a step back of a day, then forward again: every rule still calls the service', [new ClockStep(-24 * HOUR, C), new ClockStep(24 * HOUR, C)]],
];
