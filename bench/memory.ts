import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { request } from 'undici';
import { startSim } from '../src/sim/server.js';
import { BurstRecorder, freePort, mb, nodeId, ruleYaml, seedValidators, SIM_BUDGET, sleep, summarizeWarnings, waitUntil, writeProject, type BenchResult } from './lib.js';

const ENTITIES = 10_000;
const RULES = 10;
const EVERY_S = 30;
/** Evaluations of each rule before memory is read: the start run and two more. */
const CYCLES = 3;
const TARGET_BYTES = 150 * 1024 * 1024;
const PEAK_TARGET_BYTES = 250 * 1024 * 1024;
/** Smaller young generation and fewer malloc arenas: what the shipped launchers set. */
const SHIPPED_ENV = { NODE_OPTIONS: '--max-semi-space-size=2', MALLOC_ARENA_MAX: '2' };

const here = dirname(fileURLToPath(import.meta.url));
/** The repository root (this file runs from dist-bench/bench/). */
const ROOT = resolve(here, '..', '..');

function procStatus(pid: number): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

async function scrape(url: string): Promise<Map<string, number>> {
  const res = await request(url);
  const text = await res.body.text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-z_]+)(\{[^}]*\})?\s+(\S+)$/.exec(line);
    if (m) out.set(m[1] as string, (out.get(m[1] as string) ?? 0) + Number(m[3]));
  }
  return out;
}

interface DaemonRun {
  entities: number;
  seconds: number;
  beforeGc: number;
  afterGc: number;
  hwm: number;
  /** VmRSS sampled every 250 ms over the second half of the run. */
  running: number[];
  heapBefore: { used: number; total: number };
  heapAfter: { used: number; total: number };
  evaluations: number;
  failures: number;
  requests: number;
  bursts: Array<{ requests: number; seconds: number }>;
  stderr: string[];
}

/**
 * Runs `node dist/cli.js run` watching `entities` nodes in RULES validator-status rules until
 * every rule was evaluated `cycles` times and the last cycle ended, then reads its memory
 * before and after a full GC (the preload runs gc() on SIGUSR2).
 */
async function runDaemon(entities: number, cycles: number, env: Record<string, string> = {}): Promise<DaemonRun> {
  const sim = await startSim({ budget: SIM_BUDGET });
  seedValidators(sim, entities);
  const per = Math.max(1, Math.floor(entities / RULES));
  const rules = Array.from({ length: RULES }, (_, r) =>
    ruleYaml({ name: `validators-${r}`, kind: 'validator-status', every: `${EVERY_S}s`, nodeIds: Array.from({ length: per }, (_, k) => nodeId((r * per + k) % entities)) }),
  ).join('');
  const port = await freePort();
  const project = writeProject({ simUrl: sim.url, rules, listen: `127.0.0.1:${port}` });
  const cli = join(ROOT, 'dist', 'cli.js');
  const preload = pathToFileURL(join(here, 'gc-preload.js')).href;
  const child = spawn(process.execPath, ['--expose-gc', '--import', preload, cli, 'run', '--no-watch', '-c', project.configFile, '--log-level', 'warn'], {
    cwd: project.dir,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env, SLACK_WEBHOOK_URL: '' },
  });
  const stderr: string[] = [];
  child.stderr.setEncoding('utf8').on('data', (d: string) => stderr.push(d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const pid = child.pid as number;
  const metricsUrl = `http://127.0.0.1:${port}/metrics`;
  const recorder = new BurstRecorder(sim, 2_000);
  const rss: number[] = [];
  const sampler = setInterval(() => {
    try {
      rss.push(procStatus(pid).rss);
    } catch {
      // exited
    }
  }, 250);
  const started = Date.now();
  try {
    const evaluations = async () => {
      try {
        return (await scrape(metricsUrl)).get('avawatch_rule_evaluations_total') ?? 0;
      } catch {
        return 0;
      }
    };
    await waitUntil(async () => (await evaluations()) >= RULES * cycles, `${cycles} cycles of ${RULES} rules`, (cycles + 3) * EVERY_S * 1000, 500);
    // Evaluations are counted when they start: wait for the last cycle's requests to end.
    let last = sim.requests.length;
    await waitUntil(
      async () => {
        await sleep(1_000);
        const n = sim.requests.length;
        const idle = n === last;
        last = n;
        return idle;
      },
      'the last cycle to end',
      EVERY_S * 1000 * 2,
    );
    // The floor's single cycle ends within a second of the start: let start-up garbage go first.
    await sleep(Math.max(0, started + 10_000 - Date.now()));
    recorder.stop();
    clearInterval(sampler);
    const seconds = (Date.now() - started) / 1000;
    const m = await scrape(metricsUrl);
    const before = procStatus(pid);
    child.kill('SIGUSR2');
    // V8 hands freed pages back over a moment: read once it has settled.
    await sleep(3_000);
    const mAfter = await scrape(metricsUrl);
    const after = procStatus(pid);
    return {
      entities,
      seconds,
      beforeGc: before.rss,
      afterGc: after.rss,
      hwm: after.hwm,
      running: rss.slice(Math.floor(rss.length / 2)),
      heapBefore: { used: m.get('nodejs_heap_size_used_bytes') ?? NaN, total: m.get('nodejs_heap_size_total_bytes') ?? NaN },
      heapAfter: { used: mAfter.get('nodejs_heap_size_used_bytes') ?? NaN, total: mAfter.get('nodejs_heap_size_total_bytes') ?? NaN },
      evaluations: m.get('avawatch_rule_evaluations_total') ?? 0,
      failures: m.get('avawatch_rule_evaluation_failures_total') ?? 0,
      requests: sim.requests.length,
      bursts: recorder.bursts.map((b) => ({ requests: b.to - b.from, seconds: (b.end - b.start) / 1000 })),
      stderr: stderr.join('').trim().split('\n').filter((l) => l !== ''),
    };
  } finally {
    recorder.stop();
    clearInterval(sampler);
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    await sim.close();
    project.cleanup();
  }
}

/**
 * Figure 5: resident memory of the daemon (`node dist/cli.js run`, its own process) watching
 * 10,000 nodes in 10 validator-status rules against the simulator (in the benchmark's
 * process), after a few poll cycles: VmRSS from /proc after a full GC. The same daemon
 * watching 10 nodes gives the floor.
 */
export async function memoryBench(): Promise<BenchResult> {
  const floor = await runDaemon(RULES, 1);
  const big = await runDaemon(ENTITIES, CYCLES);
  // As the Dockerfile and docs/avawatch.service start it.
  const shipped = await runDaemon(ENTITIES, CYCLES, SHIPPED_ENV);
  const med = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] ?? NaN;
  const row = (label: string, f: (r: DaemonRun) => string) => `| ${label} | ${f(floor)} | ${f(big)} |`;
  return {
    id: 'memory',
    title: 'Resident memory at 10k watched entities',
    figures: [
      { name: `Resident memory (VmRSS) at ${ENTITIES.toLocaleString('en-US')} watched nodes, after ${CYCLES} cycles and a full GC`, value: mb(big.afterGc), target: '< 150 MB', pass: big.afterGc < TARGET_BYTES },
      { name: `Peak resident memory (VmHWM) polling ${ENTITIES.toLocaleString('en-US')} nodes (median while running / peak)`, value: `${mb(med(big.running))} / ${mb(big.hwm)}`, target: 'peak < 250 MB', pass: big.hwm < PEAK_TARGET_BYTES },
      {
        name: `The same, started as the Dockerfile and systemd unit start it (${Object.entries(SHIPPED_ENV).map(([k, v]) => `${k}=${v}`).join(' ')}): after a full GC / peak`,
        value: `${mb(shipped.afterGc)} / ${mb(shipped.hwm)}`,
        target: '< 150 MB',
        pass: shipped.afterGc < TARGET_BYTES,
      },
    ],
    details: [
      `The real CLI in its own process (\`node --expose-gc --import gc-preload.js dist/cli.js run --no-watch\`; the preload only runs \`gc()\` on SIGUSR2), ${RULES} validator-status rules of ${(ENTITIES / RULES).toLocaleString('en-US')} nodes each (${ENTITIES.toLocaleString('en-US')} nodes, read in bulk: 2 lists of 100 nodes a call per cycle; the daemon sets V8's \`--optimize-for-size\` itself), /metrics scraped every 500 ms (the benchmark's wait loop: a scraper far faster than Prometheus), every ${EVERY_S}s, \`api.budget\` ${SIM_BUDGET.data.perMinute.toLocaleString('en-US')} CU/min, against the simulator in the benchmark's process. Memory is read from \`/proc/<pid>/status\` once every rule has been evaluated ${CYCLES} times and the last cycle has ended, then 3 s after a full GC. The floor: the same daemon watching ${RULES} nodes, 10 s after its start.`,
      '',
      `| measure | ${RULES} nodes (floor) | ${ENTITIES.toLocaleString('en-US')} nodes |`,
      '|---|---|---|',
      row('VmRSS after the cycles, before GC', (r) => mb(r.beforeGc)),
      row('**VmRSS after a full GC**', (r) => `**${mb(r.afterGc)}**`),
      row('VmRSS while running (every 250 ms, second half): median / max', (r) => (r.running.length > 0 ? `${mb(med(r.running))} / ${mb(Math.max(...r.running))}` : '—')),
      row('VmHWM (peak)', (r) => mb(r.hwm)),
      row('V8 heap used / total before GC', (r) => `${mb(r.heapBefore.used)} / ${mb(r.heapBefore.total)}`),
      row('V8 heap used / total after GC', (r) => `${mb(r.heapAfter.used)} / ${mb(r.heapAfter.total)}`),
      row('rule evaluations / failed', (r) => `${r.evaluations} / ${r.failures}`),
      row('poll cycles: requests in seconds', (r) => r.bursts.map((b) => `${b.requests.toLocaleString('en-US')} in ${b.seconds.toFixed(1)} s`).join('; ')),
      row('run time', (r) => `${r.seconds.toFixed(0)} s`),
      ...(() => {
        // Each rule warns once at start that it has no receivers (none is configured here).
        const other = big.stderr.filter((l) => !l.includes('has no receivers'));
        return other.length > 0 ? ['', `Daemon stderr at ${ENTITIES.toLocaleString('en-US')} nodes (warn and above, besides "has no receivers"): ${summarizeWarnings(other).join('; ')}`] : [];
      })(),
    ],
  };
}
