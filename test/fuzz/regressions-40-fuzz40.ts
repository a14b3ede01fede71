import type fc from 'fast-check';
import { type Run } from './commands.js';
import { BadSweep, L1CallFails, L1Freeze, NetworkDip, OddFigures } from './steps-baseline-l1.js';
import type { Model } from './world.js';

// Issue 40's cases of the network baseline and an L1's liveness (steps-baseline-l1.ts;
// commands.ts is imported first: it registers the steps file's families). The defects the
// fuzzer found first, then one of each step.

export const REGRESSIONS_40_FUZZ40: Array<[string, Array<fc.AsyncCommand<Model, Run>>]> = [
  ['every uptime −1 in one sweep: the baseline kept p10/p50/p90 −1 and 100% of the stake below 80% (a network-wide dip from a broken answer)', [new OddFigures('uptimePerformance', -1)]],
  ['an all-zero epoch as the frozen tip passed frozenAfter: taken as a new epoch (the count of 16 minutes restarted), no failure said', [new L1CallFails('zeros', 'crossing')]],
  ['an all-zero epoch after the fired tip thawed, then the tip frozen again with the config reloaded: held, then resolved once', [new L1CallFails('zeros', 'thawing'), new L1Freeze(20, true)]],
  ['70% of the network at 60% uptime for 20 minutes, sweeps whole: network-baseline says nothing', [new NetworkDip(70, 60, 40)]],
  ['the sweep answers 503 for 11 minutes: the last whole distribution kept, one stale info, resolved', [new BadSweep('fail', true, 503)]],
  ['the sweep comes back short for 11 minutes, another size each poll: one stale info, resolved', [new BadSweep('short', true)]],
  ['proposervm 404 as the frozen tip passes frozenAfter: no fire then, reported failing; the next reading fires', [new L1CallFails(404, 'crossing')]],
  ['proposervm 503 after the fired tip thawed: no resolution then; the next reading resolves', [new L1CallFails(503, 'thawing')]],
];
