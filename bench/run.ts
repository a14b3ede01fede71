import { execSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem, type as osType, version as osVersion } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { callsBench } from './calls.js';
import { evaluateBench } from './evaluate.js';
import { storeBench } from './store.js';
import { sharedLatencyBench } from './shared-latency.js';
import { expositionBench } from './exposition.js';
import { expressionsBench } from './expressions.js';
import { fleetBench } from './fleet.js';
import { incidentsBench } from './incidents.js';
import { latencyBench } from './latency.js';
import type { BenchResult } from './lib.js';
import { memoryBench } from './memory.js';
import { metricsBench } from './metrics.js';
import { stormBench } from './storm.js';

// `npm run bench` runs every benchmark and writes BENCHMARKS.md; `npm run bench -- storm
// metrics` runs those only and prints them (BENCHMARKS.md is written only by a full run).

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const BENCHES: Array<{ id: string; run: () => Promise<BenchResult> }> = [
  { id: 'calls', run: () => callsBench() },
  { id: 'fleet', run: () => fleetBench() },
  { id: 'latency', run: () => latencyBench(30) },
  { id: 'evaluate', run: () => evaluateBench([1_000, 10_000, 100_000]) },
  { id: 'store', run: () => storeBench(100_000) },
  { id: 'shared-latency', run: () => sharedLatencyBench(30) },
  { id: 'expressions', run: () => expressionsBench() },
  { id: 'metrics', run: () => metricsBench() },
  { id: 'memory', run: () => memoryBench() },
  { id: 'storm', run: () => stormBench() },
  { id: 'exposition', run: () => expositionBench() },
  { id: 'incidents', run: () => incidentsBench() },
];

function machine(): Array<[string, string]> {
  const list = cpus();
  const models = [...new Set(list.map((c) => c.model.trim()))].join(', ');
  let commit = 'unknown';
  try {
    const sha = execSync('git rev-parse --short HEAD', { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    const dirty = execSync('git status --porcelain -- src package.json package-lock.json', { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() !== '';
    commit = `${sha}${dirty ? ' (with uncommitted changes in src/)' : ''}`;
  } catch {
    // not a git checkout
  }
  return [
    ['CPU', `${models} × ${list.length}`],
    ['RAM', `${(totalmem() / 1024 ** 3).toFixed(1)} GiB`],
    ['Node.js', process.version],
    ['OS', `${osType()} ${release()} (${osVersion()}), ${process.arch}`],
    ['Commit', commit],
  ];
}

function verdict(pass: boolean | undefined): string {
  return pass === undefined ? '—' : pass ? 'pass' : '**MISS**';
}

function report(results: readonly BenchResult[], startedAt: Date, seconds: number, load: [number, number]): string {
  const lines = [
    '# Benchmarks',
    '',
    `Measured by \`npm run bench\` (bench/) on ${startedAt.toISOString().slice(0, 10)} (${startedAt.toISOString()}), in ${Math.round(seconds)} s. Written by the benchmark run: edit bench/, not this file.`,
    'Every figure is measured against the real components (App, Engine, SQLite store, HTTP client, delivery, metrics registry, the CLI) and the simulator (`src/sim/server.ts`) on loopback; none is asserted in a test.',
    '',
    '## Machine',
    '',
    '| | |',
    '|---|---|',
    ...machine().map(([k, v]) => `| ${k} | ${v} |`),
    `| Load average (1 min) at start / end | ${load[0].toFixed(2)} / ${load[1].toFixed(2)} (other work on the machine shows here and in the timings) |`,
    '',
    '## Results',
    '',
    '| # | figure | measured | target | |',
    '|---|---|---|---|---|',
  ];
  let n = 0;
  for (const r of results) {
    for (const f of r.figures) lines.push(`| ${++n} | ${f.name} | ${f.value} | ${f.target ?? '—'} | ${verdict(f.pass)} |`);
  }
  lines.push('');
  for (const r of results) lines.push(`## ${r.title}`, '', ...r.details, '');
  lines.push(
    '## Reproduce',
    '',
    '```sh',
    'npm ci',
    `npm run bench                      # builds dist/ and dist-bench/, runs every benchmark (${Math.ceil(seconds / 60)} minutes here), rewrites BENCHMARKS.md`,
    `npm run bench -- storm metrics     # only these (${BENCHES.map((b) => b.id).join(', ')}); prints, leaves BENCHMARKS.md alone`,
    '```',
    '',
    'Timings depend on the machine and on what else runs on it: run it on an otherwise idle machine.',
    '',
  );
  return lines.join('\n');
}

function print(r: BenchResult): void {
  console.log(`\n== ${r.title}`);
  for (const f of r.figures) console.log(`  ${f.name}: ${f.value}${f.target ? `   target ${f.target}: ${f.pass === undefined ? '-' : f.pass ? 'pass' : 'MISS'}` : ''}`);
  for (const line of r.details) if (line.startsWith('|')) console.log(`    ${line}`);
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !BENCHES.some((b) => b.id === w));
  if (unknown.length > 0) {
    console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${BENCHES.map((b) => b.id).join(', ')}`);
    process.exit(2);
  }
  const selected = wanted.length === 0 ? BENCHES : BENCHES.filter((b) => wanted.includes(b.id));
  const startedAt = new Date();
  const loadAtStart = loadavg()[0] as number;
  console.log(machine().map(([k, v]) => `${k}: ${v}`).join('\n'));
  const results: BenchResult[] = [];
  for (const b of selected) {
    const t = Date.now();
    console.log(`\n-- ${b.id} …`);
    const result = await b.run();
    console.log(`-- ${b.id}: ${((Date.now() - t) / 1000).toFixed(0)} s`);
    print(result);
    results.push(result);
  }
  const seconds = (Date.now() - startedAt.getTime()) / 1000;
  console.log(`\nall done in ${seconds.toFixed(0)} s`);
  if (wanted.length === 0) {
    writeFileSync(join(ROOT, 'BENCHMARKS.md'), report(results, startedAt, seconds, [loadAtStart, loadavg()[0] as number]));
    console.log('wrote BENCHMARKS.md');
  }
  const misses = results.flatMap((r) => r.figures).filter((f) => f.pass === false);
  if (misses.length > 0) console.log(`\n${misses.length} figure(s) miss their target:\n${misses.map((f) => `  - ${f.name}: ${f.value} (target ${f.target})`).join('\n')}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
