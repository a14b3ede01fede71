import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRuleTest } from '../src/ruletest/runner.js';

// The shipped rule tests (rules/tests/*.test.yaml), each run as `avawatch test` runs it, in this
// process: a file among the others rather than a serial step before vitest (npm test's critical
// path). cli-demo.test.ts holds what the CLI adds: its output and exit codes.

const DIR = 'rules/tests';
const FILES = readdirSync(DIR).filter((f) => f.endsWith('.test.yaml')).sort();

describe('the shipped rule tests', () => {
  it('are found (one at least for every example rule file: cli-demo.test.ts)', () => {
    expect(FILES.length).toBeGreaterThanOrEqual(readdirSync('rules').filter((f) => f.endsWith('.yaml')).length);
  });

  it.each(FILES)('%s passes', async (file) => {
    const result = await runRuleTest(join(DIR, file));
    const failed = result.steps.filter((s) => !s.ok).map((s) => `step ${s.step} (at ${s.at}):\n${s.report}`);
    expect(failed.join('\n')).toBe('');
    expect(result.ok).toBe(true);
  }, 60_000);
});
