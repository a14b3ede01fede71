import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect } from 'vitest';
import { recordCpu } from './cpu-record.js';

// Each test file's CPU, its worker's and its reaped processes' (the CLI, daemons, PostgreSQL's
// tools), recorded (cpu-record.ts): vitest.config.ts starts a file that mostly waits beside one
// that computes, not four waiting at once (test/durations.json keeps a copy for a fresh
// clone). Wall time is vitest's own record.

/** Seconds of CPU of this process's reaped children, by Linux's /proc (0 elsewhere). */
function childrenCpu(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // cutime and cstime (fields 16 and 17), in clock ticks: 100 a second on Linux.
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
}

const cpuNow = (): number => {
  const own = process.cpuUsage();
  return (own.user + own.system) / 1e6 + childrenCpu();
};

let file = '';
let from = 0;
beforeAll(() => {
  file = expect.getState().testPath ?? '';
  from = cpuNow();
});
afterAll(() => {
  if (file !== '') recordCpu(file, cpuNow() - from);
});
