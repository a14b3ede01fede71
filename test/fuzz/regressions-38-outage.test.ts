import { describe, it } from 'vitest';
import { REGRESSIONS_38_OUTAGE } from './regressions-38-outage.js';
import { captureLogs, replay } from './replay.js';

// The fuzzer's outage step (steps-outage.ts, issue 38), replayed on every run.

describe('the daemon when the Data API is down for a few polls (invariant fuzzer)', () => {
  const logs = captureLogs();
  it.each(REGRESSIONS_38_OUTAGE)('stays fixed: %s', async (_name, steps) => {
    await replay(logs, steps);
  }, 60_000);
});
