import type fc from 'fast-check';
import { type Run } from './commands.js';
import { Peers } from './steps-health.js';
import type { Model } from './world.js';
import { NODES } from './world.js';

// Issue 39's node-health cases (commands.ts is imported first: it registers the steps file's
// family). The simulator's info.peers lists at most 3 peers, so these guard the daemon's path
// (the count from the health answer, or from /ext/metrics with the health API off), not the
// 1 MiB cap: src/rules/node-health/loopback.spec.ts serves the full list to show that.

const [A, B] = NODES as [string, string, string, string];

export const REGRESSIONS_39_HEALTH: Array<[string, Array<fc.AsyncCommand<Model, Run>>]> = [
  ['a node with 5,000 peers: node-health holds its count from the health answer, nothing fails', [new Peers(A, 5_000, 'on')]],
  ['the health API off (404): the peer count from /ext/metrics, the node judged by its info API, nothing fails', [new Peers(B, 3_150, 'off')]],
];
