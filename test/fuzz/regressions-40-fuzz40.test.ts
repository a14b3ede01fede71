import { describe, it } from 'vitest';
import './commands.js';
import { captureLogs, replay } from './replay.js';
import { REGRESSIONS_40_FUZZ40 } from './regressions-40-fuzz40.js';

// Issue 40's replayed cases of the network baseline and an L1's liveness: odd figures, a dip, stale sweeps, a frozen tip.

describe('the network baseline and an L1 liveness (invariant fuzzer)', () => {
  const logs = captureLogs();
  it.each(REGRESSIONS_40_FUZZ40)('stays fixed: %s', async (_name, steps) => {
    await replay(logs, steps);
  }, 60_000);
});
