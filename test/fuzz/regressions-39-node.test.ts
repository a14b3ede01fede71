import { describe, it } from 'vitest';
import './commands.js';
import { captureLogs, replay } from './replay.js';
import { REGRESSIONS_39_NODE } from './regressions-39-node.js';

// Issue 39's replayed cases of the node as AvalancheGo 1.15 is: the health API off, SAE, a refused L1 plugin, an idle chain.

describe('the node as AvalancheGo 1.15 is (invariant fuzzer)', () => {
  const logs = captureLogs();
  it.each(REGRESSIONS_39_NODE)('stays fixed: %s', async (_name, steps) => {
    await replay(logs, steps);
  }, 60_000);
});
