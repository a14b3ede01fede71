import fc from 'fast-check';
import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import { baseline, type Run } from './commands.js';
import { startDaemon } from './daemon.js';
import { REGRESSIONS } from './regressions.js';
import type { Model } from './world.js';
import { watchLoop, watchTimers } from './probes.js';

/** The daemon's log lines (it logs to stderr), captured for the file's tests. */
export function captureLogs(): string[] {
  const logs: string[] = [];
  beforeAll(() => {
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      logs.push(String(chunk));
      return true;
    });
  });
  afterAll(() => {
    vi.restoreAllMocks();
  });
  return logs;
}

/** One daemon over these steps, every invariant checked after each. */
export async function replay(logs: string[], steps: Iterable<fc.AsyncCommand<Model, Run>>): Promise<void> {
  const timers = watchTimers();
  const loop = watchLoop();
  const { daemon, model } = await startDaemon(logs);
  const run: Run = { d: daemon, w: { loop, timers }, judged: { verdict: new Map(), since: new Map() }, steps: 0 };
  try {
    await baseline(model, run);
    await fc.asyncModelRun(() => ({ model, real: run }), steps);
  } finally {
    await daemon.close();
    loop.stop();
    timers.restore();
  }
}

/** Replays every other case of REGRESSIONS, from `half` (0 or 1): the two halves are two files. */
export function describeRegressions(half: 0 | 1): void {
  describe('the daemon over sequences of odd answers (invariant fuzzer)', () => {
    const logs = captureLogs();
    it.each(REGRESSIONS.filter((_, i) => i % 2 === half))('stays fixed: %s', async (_name, steps) => {
      await replay(logs, steps);
    }, 60_000);
  });
}
