import type fc from 'fast-check';
import type { Run } from './commands.js';
import { Outage } from './steps-outage.js';
import type { Model } from './world.js';

// Issue 38, "one outage, one message": the Data API down for a few polls.

export const REGRESSIONS_38_OUTAGE: Array<[string, Array<fc.AsyncCommand<Model, Run>>]> = [
  ['the Data API answering 503 for 3 polls is one "cannot see" and one "sees again", no "is blind" per rule', [new Outage(503, 3)]],
  ['an outage of one poll, below failingAfter, says nothing', [new Outage(502, 1)]],
];
