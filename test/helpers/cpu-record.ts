import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

// Each test file's CPU at its last run (test/helpers/file-cpu.ts writes it, vitest.config.ts
// orders the files by it): one JSON line a file run, `{ file, cpu }`, the file's absolute path.

const RECORD = fileURLToPath(new URL('../../.cache/test-cpu.jsonl', import.meta.url));

export function recordCpu(file: string, cpu: number): void {
  mkdirSync(dirname(RECORD), { recursive: true });
  appendFileSync(RECORD, `${JSON.stringify({ file, cpu: Math.round(cpu * 10) / 10 })}\n`);
}

/** Each file's last figure, by its path from `root`; the record is cut to those lines. */
export function lastCpu(root: string): Map<string, number> {
  const last = new Map<string, number>();
  let text: string;
  try {
    text = readFileSync(RECORD, 'utf8');
  } catch {
    return last; // no record yet: test/durations.json says
  }
  for (const line of text.split('\n')) {
    try {
      const { file, cpu } = JSON.parse(line) as { file: string; cpu: number };
      last.set(relative(root, file), cpu);
    } catch {
      // An empty line, or one cut short by a run stopped mid-write.
    }
  }
  writeFileSync(RECORD, [...last].map(([file, cpu]) => `${JSON.stringify({ file: join(root, file), cpu })}\n`).join(''));
  return last;
}
