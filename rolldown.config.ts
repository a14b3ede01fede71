import { defineConfig } from 'rolldown';

// The CLI and the expression process as a few files in dist/: Node loads one file fast and
// four hundred slowly (`check` took 0.8 s of CPU from tsc's output, 0.2 s bundled). What
// loads only on request (the simulator, demo, rule tests, schema) stays in chunks of its own.
// Left to node_modules: the native SQLite binding; pino, whose transports start workers by
// file path; and what loads at its first use (jsonata, pino-pretty), by require.
export default defineConfig({
  input: { cli: 'src/cli.ts', sandbox: 'src/rules/endpoint/sandbox.ts' },
  platform: 'node',
  external: ['better-sqlite3', 'jsonata', 'pino', 'pino-pretty'],
  output: { dir: 'dist', format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js', sourcemap: true, cleanDir: true },
});
