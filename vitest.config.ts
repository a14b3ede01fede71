import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/**
 * The longest files first, so the last minutes are short ones: by vitest's record of the last
 * run, or where it has none (a fresh clone: CI) by test/durations.json (`node
 * scripts/test-durations.mjs` writes it). In name order the fuzzer's replays ran last, and a
 * quiet `npm test` took 179 s instead of about 152.
 */
class LongestFirst extends BaseSequencer {
  readonly #known = JSON.parse(readFileSync(new URL('./test/durations.json', import.meta.url), 'utf8')) as Record<string, number>;

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ms = (f: TestSpecification): number => {
      const path = relative(this.ctx.config.root, f.moduleId);
      return this.ctx.cache.getFileTestResults(`${f.project.name}:${path}`)?.duration ?? (this.#known[path] ?? 0) * 1000;
    };
    return [...files].sort((a, b) => ms(b) - ms(a));
  }
}

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Four workers on the two cores: much of the suite waits (loopback I/O, CLI processes, real
    // servers, a demo at 8×), so more workers than cores keep both busy (quiet machine, one
    // project: three 152 s, four 128 s, five 125 s of wall time).
    maxWorkers: 4,
    // A process a test starts from src/ (the endpoint rules' expression process) runs its
    // TypeScript script from a bundle of it, made once (test/helpers/ts-loader.mjs).
    execArgv: ['--import', new URL('./test/helpers/ts-loader.mjs', import.meta.url).href],
    reporters: ['default', './test/summary-reporter.ts'],
    // One project, and files share their worker's module graph: src is imported once per
    // worker, not once per file (the suite's CPU 445 → 255 s with the bundled CLI), and specs
    // and integration tests share workers (two projects: 249 s of CPU, one: 229 s). A test
    // leaves no global behind: each App, server and fake clock is its own and stopped or
    // restored at the end.
    include: ['src/**/*.spec.ts', 'test/**/*.test.ts'],
    sequence: { sequencer: LongestFirst },
    // The steady clock's anchor is module state: each file starts it on the real wall (src/base/clock.ts).
    setupFiles: ['./test/helpers/setup-clock.ts'],
    isolate: false,
    // Each file's transform is kept on disk, keyed by its text, vitest's version and this
    // config: a run after the first transforms only what changed (src specs alone: 33 → 30 s of
    // CPU; `npx vitest --clearCache` empties it). Not in node_modules, so each clone or worktree
    // has its own.
    experimental: { fsModuleCache: true, fsModuleCachePath: '.cache/vitest' },
  },
});
