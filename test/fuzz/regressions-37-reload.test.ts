import { describe, it } from 'vitest';
import { captureLogs, replay } from './replay.js';
import { REGRESSIONS_37_RELOAD } from './regressions-37-reload.js';

// Issue 37, reloads: the fuzzer's cases replayed on every run (steps-reload.ts says what each checks).

describe('reloads that edit the fleet tell receivers the truth (invariant fuzzer)', () => {
  const logs = captureLogs();
  it.each(REGRESSIONS_37_RELOAD)('stays fixed: %s', async (_name, steps) => {
    await replay(logs, steps);
  }, 60_000);
});
