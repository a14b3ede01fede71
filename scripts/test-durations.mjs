// Writes test/durations.json from vitest's own record of the last run (node_modules/.vite) and
// test/helpers/file-cpu.ts's (.cache/test-cpu.jsonl): for each file of a second or more, its
// seconds of wall time and of CPU. vitest.config.ts orders the files by them where a fresh
// clone (CI) has no record. Stale figures only change the order.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const dir = 'node_modules/.vite/vitest';
const [hash] = readdirSync(dir);
const { results } = JSON.parse(readFileSync(join(dir, hash, 'results.json'), 'utf8'));
const cpu = new Map();
const record = '.cache/test-cpu.jsonl';
if (existsSync(record)) {
  // As test/helpers/cpu-record.ts reads it (a plain script cannot import TypeScript on Node 20).
  for (const line of readFileSync(record, 'utf8').split('\n')) {
    try {
      const { file, cpu: s } = JSON.parse(line);
      cpu.set(relative(process.cwd(), file), s);
    } catch {
      // An empty line, or one cut short by a run stopped mid-write.
    }
  }
}
const slow = results
  .map(([key, { duration }]) => [key.slice(key.indexOf(':') + 1), Math.round(duration / 100) / 10])
  .filter(([, s]) => s >= 1)
  .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
  .map(([file, s]) => [file, cpu.has(file) ? [s, cpu.get(file)] : [s]]);
// One file a line: a change of order is a diff of a few lines.
writeFileSync('test/durations.json', `{\n${slow.map(([file, v]) => `  ${JSON.stringify(file)}: [${v.join(', ')}]`).join(',\n')}\n}\n`);
console.log(`test/durations.json: ${slow.length} files of a second or more, ${slow.filter(([, v]) => v.length === 2).length} with their CPU`);
