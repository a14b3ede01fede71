import { describe, it } from 'vitest';
import './commands.js';
import { captureLogs, replay } from './replay.js';
import { REGRESSIONS_41 } from './regressions-41-fuzz.js';

// Issue 41's replayed cases: node-health's `for`, the uptime levels, `uptime: false`, rows past maxAge.

describe('what the fuzz model judges exactly (invariant fuzzer)', () => {
  const logs = captureLogs();
  it.each(REGRESSIONS_41)('stays fixed: %s', async (_name, steps) => {
    await replay(logs, steps);
  }, 60_000);
});
