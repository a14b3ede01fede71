import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Three workers on two cores: much of the suite waits (loopback I/O, CLI processes, real
    // servers), so a third keeps both cores busy (two: 246 s, three: 181 s of wall time).
    maxWorkers: 3,
    // A process a test starts from src/ (the endpoint rules' expression process) runs TypeScript.
    execArgv: ['--import', new URL('./test/helpers/ts-loader.mjs', import.meta.url).href],
    reporters: ['default', './test/summary-reporter.ts'],
    projects: [
      // Files share their worker's module graph: src is imported once per worker, not once per
      // file (the suite's CPU 445 → 255 s with the bundled CLI). A test leaves no global behind:
      // each App, server and fake clock is its own and stopped or restored at the end.
      { extends: true, test: { name: 'unit', include: ['src/**/*.spec.ts'], isolate: false } },
      { extends: true, test: { name: 'test', include: ['test/**/*.test.ts'], isolate: false } },
    ],
  },
});
