import { describe, it } from 'vitest';
import './commands.js';
import { captureLogs, replay } from './replay.js';
import { REGRESSIONS_39_HEALTH } from './regressions-39-health.js';

// Issue 39's replayed node-health cases: the peer count from the health answer (or the metrics gauge), never the list.

describe('node-health reads the peer count without the peer list (invariant fuzzer)', () => {
  const logs = captureLogs();
  it.each(REGRESSIONS_39_HEALTH)('stays fixed: %s', async (_name, steps) => {
    await replay(logs, steps);
  }, 60_000);
});
