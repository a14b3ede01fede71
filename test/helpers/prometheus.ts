import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitUntil, type Wait } from './wait.js';
import { freePort } from './ports.js';

/** A binary of the Debian package `prometheus` (prometheus, promtool) on PATH. */
function binary(name: 'prometheus' | 'promtool'): string {
  if (spawnSync('sh', ['-c', `command -v ${name}`]).status === 0) return name;
  throw new Error(`${name} is not installed: run \`bash scripts/test-deps.sh\` (Debian package prometheus)`);
}

/** A port free on loopback now (for a server the test starts after Prometheus, which must know its target). */
/** Every wait on Prometheus itself (ready, its scrapes, its rule evaluations), a process of its own. */
// real wait: Prometheus runs on its own wall clock (its scrape_interval); no test clock reaches it.
export const onPrometheus: Wait = (check, what, timeoutMs) => waitUntil(check, what, timeoutMs);


/** `promtool check metrics` on an exposition (stdin): its exit code and everything it printed. */
export async function promtoolCheckMetrics(exposition: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(binary('promtool'), ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  child.stdin.end(exposition);
  return { code: await exited, output };
}

export interface PromSample {
  metric: Record<string, string>;
  /** [unix seconds, value as Prometheus formats it] */
  value: [number, string];
}

export interface RunningPrometheus {
  url: string;
  /** An instant query (GET /api/v1/query); the vector's samples. */
  query(expr: string): Promise<PromSample[]>;
  /** Scrape targets with health and last error (GET /api/v1/targets), for failure messages. */
  targets(): Promise<Array<{ scrapeUrl: string; health: string; lastError: string }>>;
  stop(): Promise<void>;
}

export interface PrometheusOptions {
  /** `host:port` of each target. */
  targets: string[];
  /** The scrape job's name (default `avawatch`). */
  job?: string;
  /** More jobs, as YAML list items under scrape_configs (e.g. with authorization or basic_auth). */
  moreJobs?: string;
}

/**
 * A real Prometheus on loopback scraping `targets` every second, its TSDB and config in a
 * temporary directory (nothing written to the working directory).
 */
export async function startPrometheus(o: PrometheusOptions): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'avawatch-prom-'));
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    `global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: ${o.job ?? 'avawatch'}
    metrics_path: /metrics
    static_configs:
      - targets: [${o.targets.map((t) => `'${t}'`).join(', ')}]
${o.moreJobs ?? ''}`,
  );
  const port = await freePort();
  const child: ChildProcess = spawn(
    binary('prometheus'),
    [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (c: Buffer) => (log = (log + c.toString('utf8')).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await onPrometheus(
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited with code ${child.exitCode}:\n${log}`);
        return (await fetch(`${url}/-/ready`).catch(() => undefined))?.ok;
      },
      'Prometheus to be ready',
      30_000,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  const api = async <T>(path: string): Promise<T> => {
    const body = (await (await fetch(`${url}${path}`)).json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`Prometheus ${path}: ${body.error ?? body.status}`);
    return body.data;
  };
  return {
    url,
    query: async (expr) => (await api<{ result: PromSample[] }>(`/api/v1/query?query=${encodeURIComponent(expr)}`)).result,
    targets: async () => (await api<{ activeTargets: Array<{ scrapeUrl: string; health: string; lastError: string }> }>('/api/v1/targets')).activeTargets,
    stop,
  };
}
