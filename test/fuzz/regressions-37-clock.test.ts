import { describe, it } from 'vitest';
import { REGRESSIONS_37_CLOCK } from './regressions-37-clock.js';
import { captureLogs, replay } from './replay.js';

// What the fuzzer's clock steps (steps-clock.ts) found (issue 37), replayed on every run.

describe('the daemon when the host clock steps (invariant fuzzer)', () => {
  const logs = captureLogs();
  it.each(REGRESSIONS_37_CLOCK)('stays fixed: %s', async (_name, steps) => {
    await replay(logs, steps);
  }, 60_000);
});
