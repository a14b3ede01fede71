import type fc from 'fast-check';
import type { Run } from './commands.js';
import { LongLine, SeriesRenamed } from './steps-metrics.js';
import type { Model } from './world.js';
import { NODES } from './world.js';

// Issue 37's node-metrics findings, each as the steps that show it (replayed by
// regressions-37-metrics.test.ts).

const [A] = NODES as [string];

export const REGRESSIONS_37_METRICS: Array<[string, Array<fc.AsyncCommand<Model, Run>>]> = [
  ['a node-metrics rule whose metric was renamed is silent forever', [new SeriesRenamed(A)]],
  ['one 3.2 MB line in an exposition freezes the daemon (quadratic reader)', [new LongLine(3_200_000)]],
  // Seed 424242 path "25" (session 5): each rule's linear scan of the shared 32 MiB read ran in one drain of microtasks, 1,030 ms in all.
  ['one 32 MiB line read by every node-metrics rule at once blocks the loop a second', [new LongLine(32 * 1024 * 1024 - 64)]],
];
