// Writes test/durations.json from vitest's own record of the last run (node_modules/.vite):
// the files of a second or more, in seconds. vitest.config.ts runs the longest first from it
// where vitest has no record (a fresh clone, CI). Stale figures only change the order.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = 'node_modules/.vite/vitest';
const [hash] = readdirSync(dir);
const { results } = JSON.parse(readFileSync(join(dir, hash, 'results.json'), 'utf8'));
const slow = results
  .map(([key, { duration }]) => [key.slice(key.indexOf(':') + 1), Math.round(duration / 100) / 10])
  .filter(([, s]) => s >= 1)
  .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
writeFileSync('test/durations.json', `${JSON.stringify(Object.fromEntries(slow), null, 2)}\n`);
console.log(`test/durations.json: ${slow.length} files of a second or more`);
