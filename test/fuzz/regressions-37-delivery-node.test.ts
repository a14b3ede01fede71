import { describe, it } from 'vitest';
import { captureLogs, replay } from './replay.js';
import { REGRESSIONS_37_DELIVERY_NODE } from './regressions-37-delivery-node.js';

// Issue 37's replayed cases of a dead receiver and of the node's API as it really fails.

describe('the daemon when delivery dies and the node answers as deployments do (invariant fuzzer)', () => {
  const logs = captureLogs();
  it.each(REGRESSIONS_37_DELIVERY_NODE)('stays fixed: %s', async (_name, steps) => {
    await replay(logs, steps);
  }, 60_000);
});
