import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.spec.ts', 'test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Integration tests bind loopback ports and spawn the CLI; two cores, so keep it modest.
    maxWorkers: 2,
    // A process a test starts from src/ (the endpoint rules' expression process) runs TypeScript.
    execArgv: ['--import', new URL('./test/helpers/ts-loader.mjs', import.meta.url).href],
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
