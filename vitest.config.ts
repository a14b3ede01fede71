import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';
import { lastCpu } from './test/helpers/cpu-record.js';

/**
 * A file of LONG_S seconds or more that spends less than WAITING of them on CPU mostly waits:
 * four workers share two cores, so a file that computes gets about half of its wall time.
 */
const LONG_S = 5;
const WAITING = 0.4;

/**
 * The longest files first, so the last minutes are short ones, and those that mostly wait (on
 * real processes, PostgreSQL's leases, a demo in real time) taken in turn with those that
 * compute: the longest were all of the waiting kind, and four of them at once left the two
 * cores half idle (interleaved, a quiet `npm test` took 158 s against 167, two runs each). Wall
 * time is vitest's record of the last run; CPU is test/helpers/file-cpu.ts's
 * (.cache/test-cpu.jsonl). Where either has no record (a fresh clone: CI), test/durations.json
 * says (`node scripts/test-durations.mjs` writes it). In name order the fuzzer's replays ran
 * last, and a quiet `npm test` took 179 s instead of about 152.
 */
class LongestFirst extends BaseSequencer {
  readonly #known = JSON.parse(readFileSync(new URL('./test/durations.json', import.meta.url), 'utf8')) as Record<string, [number, number?]>;

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cpu = lastCpu(this.ctx.config.root);
    const path = (f: TestSpecification): string => relative(this.ctx.config.root, f.moduleId);
    const seconds = (f: TestSpecification): number => {
      const ms = this.ctx.cache.getFileTestResults(`${f.project.name}:${path(f)}`)?.duration;
      return ms === undefined ? (this.#known[path(f)]?.[0] ?? 0) : ms / 1000;
    };
    const waits = (f: TestSpecification): boolean => {
      const s = seconds(f);
      const used = cpu.get(path(f)) ?? this.#known[path(f)]?.[1];
      return s >= LONG_S && used !== undefined && used < s * WAITING;
    };
    const byLength = [...files].sort((a, b) => seconds(b) - seconds(a));
    const waiting = byLength.filter(waits);
    const computing = byLength.filter((f) => !waits(f));
    return byLength.map((_, k) => {
      const [first, second] = k % 2 === 0 ? [waiting, computing] : [computing, waiting];
      return (first.shift() ?? second.shift()) as TestSpecification;
    });
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
    // The steady clock's anchor is module state: each file starts it on the real wall
    // (src/base/clock.ts). Each file's CPU is recorded for the order above.
    setupFiles: ['./test/helpers/setup-clock.ts', './test/helpers/file-cpu.ts'],
    isolate: false,
    // Each file's transform is kept on disk, keyed by its text, vitest's version and this
    // config: a run after the first transforms only what changed (src specs alone: 33 → 30 s of
    // CPU; `npx vitest --clearCache` empties it). Not in node_modules, so each clone or worktree
    // has its own.
    experimental: { fsModuleCache: true, fsModuleCachePath: '.cache/vitest' },
  },
});
