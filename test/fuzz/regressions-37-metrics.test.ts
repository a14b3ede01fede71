import { describe, it } from 'vitest';
import { REGRESSIONS_37_METRICS } from './regressions-37-metrics.js';
import { captureLogs, replay } from './replay.js';

describe('the daemon over the node-metrics findings of issue 37 (invariant fuzzer)', () => {
  const logs = captureLogs();
  it.each(REGRESSIONS_37_METRICS)('stays fixed: %s', async (_name, steps) => {
    await replay(logs, steps);
  }, 60_000);
});
