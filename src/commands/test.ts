import { ConfigError } from '../config/load.js';
import { runRuleTest } from '../ruletest/runner.js';

/** `avawatch test FILE...`: prints PASS/FAIL per file with a diff per failed step; true when all pass. */
export async function testCommand(files: readonly string[]): Promise<boolean> {
  let failed = 0;
  for (const file of files) {
    try {
      const result = await runRuleTest(file);
      if (result.ok) {
        console.log(`PASS ${file} (${result.steps.length} steps)`);
        continue;
      }
      failed++;
      console.log(`FAIL ${file}`);
      for (const step of result.steps.filter((s) => !s.ok)) {
        console.log(`  step ${step.step} (at ${step.at}):`);
        console.log(step.report.replace(/^/gm, '    '));
      }
    } catch (err) {
      failed++;
      console.log(`FAIL ${file}`);
      console.log((err instanceof ConfigError ? err.message : String(err)).replace(/^/gm, '    '));
    }
  }
  console.log(`${files.length - failed} passed, ${failed} failed`);
  return failed === 0;
}
