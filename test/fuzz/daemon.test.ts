import fc from 'fast-check';
import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import { baseline, commandsOf, families, type Run } from './commands.js';
import { REGRESSIONS } from './regressions.js';
import { startDaemon } from './daemon.js';
import type { Model } from './world.js';
import { watchLoop, watchTimers } from './probes.js';

// The daemon-level invariant fuzzer (docs/operations.md, "How avawatch is tested"): the real
// App against the simulator behind a hostile service, delivering to six misbehaving
// providers, over sequences of polls, clock steps, real changes and odd answers.
// `npm test` runs a short seeded budget; AVAWATCH_FUZZ_RUNS (and _COMMANDS, _SEED) run more.

const RUNS = Number(process.env['AVAWATCH_FUZZ_RUNS'] ?? 6);
const COMMANDS = Number(process.env['AVAWATCH_FUZZ_COMMANDS'] ?? 16);
const STEPS = process.env['AVAWATCH_FUZZ_STEPS']?.split(',') ?? Object.keys(families);
const SEED = process.env['AVAWATCH_FUZZ_SEED'] === undefined ? 20261125 : Number(process.env['AVAWATCH_FUZZ_SEED']);

describe('the daemon over sequences of odd answers (invariant fuzzer)', () => {
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

  /** One daemon over these steps, every invariant checked after each. */
  async function replay(steps: Iterable<fc.AsyncCommand<Model, Run>>): Promise<void> {
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

  it.each(REGRESSIONS)('stays fixed: %s', async (_name, steps) => {
    await replay(steps);
  }, 60_000);

  it(`keeps every invariant (${RUNS} runs of up to ${COMMANDS} steps, seed ${SEED})`, { timeout: Math.max(300_000, RUNS * COMMANDS * 20_000) }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commandsOf(STEPS), { maxCommands: COMMANDS }), (cmds) => replay(cmds)),
      { numRuns: RUNS, seed: SEED, endOnFailure: process.env['AVAWATCH_FUZZ_NO_SHRINK'] !== undefined },
    );
  });
});
