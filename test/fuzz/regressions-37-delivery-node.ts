import type fc from 'fast-check';
import { Advance, Real, type Run } from './commands.js';
import { NodeApiOdd, Revoked, Unavailable } from './steps-delivery-node.js';
import type { Model } from './world.js';
import { NODES } from './world.js';

// Issue 37's findings of the path out and of the node's API, each as the steps that show it
// (commands.ts is imported first: it registers the steps file's families).

const [A, B, C] = NODES as [string, string, string, string];

export const REGRESSIONS_37_DELIVERY_NODE: Array<[string, Array<fc.AsyncCommand<Model, Run>>]> = [
  ['the only receiver revoked (404) and the alert dead-lettered, the heartbeat says "every source answered"', [new Revoked('slack', A), new Advance(30_000)]],
  ['a receiver answering 503 for an hour leaves the heartbeat green', [new Unavailable('pagerduty', B)]],
  ["a node behind a proxy answering its HTML 503 is only \"cannot see\", never \"does not answer\" (the same page as 502 is)", [new NodeApiOdd('proxy-503', A), new NodeApiOdd('proxy-502', A)]],
  ['a node whose validation ended, behind a proxy answering its HTML 503, is never "down"', [new Real({ what: 'end', node: B }), new NodeApiOdd('proxy-503', B)]],
  ['the info API switched off (/ext/info 404) is a permanent rule-failing instead of being said', [new NodeApiOdd('info-off', B)]],
  ['the health API switched off (/ext/health 404) is "cannot reach"', [new NodeApiOdd('health-off', C)]],
  ['a health answer over 1 MiB reads "cannot reach"', [new NodeApiOdd('health-huge', C)]],
];
