import type fc from 'fast-check';
import { Blip, type Run } from './commands.js';
import { Unavailable } from './steps-delivery-node.js';
import { LongLine } from './steps-metrics.js';
import { Outage } from './steps-outage.js';
import { NODES, type Model } from './world.js';

const A = NODES[0]!;

// Issue 38, "one outage, one message": the Data API down for a few polls.

export const REGRESSIONS_38_OUTAGE: Array<[string, Array<fc.AsyncCommand<Model, Run>>]> = [
  ['the Data API answering 503 for 3 polls is one "cannot see" and one "sees again", no "is blind" per rule', [new Outage(503, 3)]],
  ['an outage of one poll, below failingAfter, says nothing', [new Outage(502, 1)]],
  // Found by the long run (seed 424242): the service paused by a 429 saw no flip, so nothing was owed to Slack and no attempt could fail; the step judged it anyway.
  [
    'a receiver down for an hour while the service is paused (nothing to send it) is not called failing',
    [
      new Blip([
        { kind: 'http', match: '.', status: 429, headers: { 'retry-after': '3000000' } },
        { kind: 'field', list: 'blocks', field: 'blockTimestamp', edge: { scale: 1000 }, node: A },
      ]),
      new LongLine(3_200_000),
      new Unavailable('slack', A),
    ],
  ],
];
