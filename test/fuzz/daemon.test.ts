import fc from 'fast-check';
import { describe, it } from 'vitest';
import { commandsOf, families } from './commands.js';
import { captureLogs, replay } from './replay.js';

// The daemon-level invariant fuzzer (docs/operations.md, "How avawatch is tested"): the real
// App against the simulator behind a hostile service, delivering to six misbehaving
// providers, over sequences of polls, clock steps, real changes and odd answers.
// `npm test` runs a short seeded budget; AVAWATCH_FUZZ_RUNS (and _COMMANDS, _SEED) run more.
// The cases it once found are replayed in regressions.test.ts.

const RUNS = Number(process.env['AVAWATCH_FUZZ_RUNS'] ?? 4);
const COMMANDS = Number(process.env['AVAWATCH_FUZZ_COMMANDS'] ?? 16);
const STEPS = process.env['AVAWATCH_FUZZ_STEPS']?.split(',') ?? Object.keys(families);
const SEED = process.env['AVAWATCH_FUZZ_SEED'] === undefined ? 20261125 : Number(process.env['AVAWATCH_FUZZ_SEED']);

describe('the daemon over sequences of odd answers (invariant fuzzer)', () => {
  const logs = captureLogs();

  it(`keeps every invariant (${RUNS} runs of up to ${COMMANDS} steps, seed ${SEED})`, { timeout: Math.max(300_000, RUNS * COMMANDS * 20_000) }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commandsOf(STEPS), { maxCommands: COMMANDS }), (cmds) => replay(logs, cmds)),
      { numRuns: RUNS, seed: SEED, endOnFailure: process.env['AVAWATCH_FUZZ_NO_SHRINK'] !== undefined },
    );
  });
});
