import { describe, it } from 'vitest';
import { REGRESSIONS } from './regressions.js';
import { captureLogs, replay } from './replay.js';

// What the invariant fuzzer (daemon.test.ts) once found, replayed on every run whatever its
// random budget draws: a file of its own, so the two run side by side.

describe('the daemon over sequences of odd answers (invariant fuzzer)', () => {
  const logs = captureLogs();

  it.each(REGRESSIONS)('stays fixed: %s', async (_name, steps) => {
    await replay(logs, steps);
  }, 60_000);
});
