import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/** Prints the plain closing line CI reads: `tests: N passed, N failed, N skipped`. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<SerializedError> = []): void {
    // An error outside any test (unhandled, or a file's hook) fails the run: it is counted too.
    const count = { passed: 0, failed: unhandled.length, skipped: 0 };
    for (const mod of modules) {
      let failedHere = 0;
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') count.passed++;
        else if (state === 'failed') failedHere++;
        else count.skipped++;
      }
      // A file that did not load, or whose beforeAll/afterAll failed while its tests passed.
      count.failed += mod.state() === 'failed' && failedHere === 0 ? 1 : failedHere;
    }
    process.stdout.write(`\ntests: ${count.passed} passed, ${count.failed} failed, ${count.skipped} skipped\n`);
  }
}
