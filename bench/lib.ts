import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import type { App } from '../src/app/app.js';
import { composeApp, openConfiguredStore } from '../src/app/compose.js';
import { testNodeId } from '../test/helpers/node-ids.js';
import { loadConfig } from '../src/config/load.js';
import { activeValidator, completedValidator } from '../src/sim/samples.js';
import type { SimServer } from '../src/sim/server.js';

/** One measured figure of a benchmark, as it appears in the summary table. */
export interface Figure {
  name: string;
  value: string;
  target?: string;
  /** undefined: informational (no target). */
  pass?: boolean;
}

export interface BenchResult {
  id: string;
  title: string;
  figures: Figure[];
  /** Markdown lines: method, parameters and raw numbers. */
  details: string[];
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A simulator budget (and api.budget) large enough that it never throttles a benchmark. */
export const BIG_BUDGET = { perMinute: 10_000_000, perDay: 1_000_000_000 };
export const SIM_BUDGET = { data: BIG_BUDGET, metrics: BIG_BUDGET };

/** A distinct NodeID for index i whose CB58 checksum matches (the loader checks it). */
export function nodeId(i: number): string {
  return testNodeId(`bench-${i}`);
}

/** A period of node i: started 30 days ago, ends in 200 days (far from any warnBefore). */
export function period(i: number, nowS = Math.floor(Date.now() / 1000)) {
  return { nodeId: nodeId(i), txHash: `BenchTx${String(i).padStart(10, '0')}`, startTimestamp: nowS - 30 * 86_400, endTimestamp: nowS + 200 * 86_400 };
}

/** Puts `count` nodes with one active period each into the simulator. */
export function seedValidators(sim: SimServer, count: number): void {
  for (let i = 0; i < count; i++) sim.world.setValidators('mainnet', nodeId(i), [activeValidator(period(i))]);
}

export function completeValidator(sim: SimServer, i: number): void {
  sim.world.setValidators('mainnet', nodeId(i), [completedValidator(period(i))]);
}

export function activateValidator(sim: SimServer, i: number): void {
  sim.world.setValidators('mainnet', nodeId(i), [activeValidator(period(i))]);
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  // Nearest rank: p99 of 30 samples is the largest.
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export const median = (values: readonly number[]) => percentile(values, 50);

export function ms(value: number, digits = 1): string {
  return `${value.toFixed(digits)} ms`;
}

export function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export interface BenchLog {
  log: Logger;
  /** Lines at warn or above. */
  warnings: string[];
}

/** The daemon's logger, silent except that warnings and errors are kept (and counted in the report). */
export function benchLogger(): BenchLog {
  const warnings: string[] = [];
  const log = pino(
    { level: 'warn', base: undefined },
    {
      write(line: string) {
        warnings.push(line.trim());
      },
    },
  );
  return { log, warnings };
}

/** Distinct warning messages with their counts, for the report. */
export function summarizeWarnings(lines: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const line of lines) {
    let msg = line;
    try {
      msg = (JSON.parse(line) as { msg?: string }).msg ?? line;
    } catch {
      // not JSON: the whole line
    }
    counts.set(msg, (counts.get(msg) ?? 0) + 1);
  }
  return [...counts].map(([msg, n]) => `${n}× ${msg}`);
}

export interface Project {
  dir: string;
  configFile: string;
  statePath: string;
  cleanup(): void;
}

export interface ProjectOptions {
  simUrl: string;
  /** Rule file contents (YAML, under `rules:`). */
  rules: string;
  webhookUrl?: string;
  /** More top-level config. */
  extra?: string;
  /** server.listen (default 127.0.0.1:0). */
  listen?: string;
  /** More keys under api:, one per line. */
  api?: string[];
  /** The whole `route:` (default: every alert to the Slack receiver, ops-slack, ungrouped). */
  route?: unknown;
  /** More keys under state:, one per line (`url: postgres://…`, `lease: 3s`). */
  state?: string[];
  /** More keys of the Slack receiver, one per line (`minInterval: 0s`). */
  slack?: string[];
  /** `api.budget` as configured by default (the keyless plan) instead of one that never throttles. */
  plan?: boolean;
}

/** A config and a rule file on disk, as an operator writes them (like test/helpers/harness.ts). */
export function writeProject(o: ProjectOptions): Project {
  const dir = mkdtempSync(join(tmpdir(), 'avawatch-bench-'));
  const statePath = join(dir, 'state', 'avawatch.db');
  const configFile = join(dir, 'avawatch.yaml');
  const receivers = o.webhookUrl
    ? `${o.route === undefined ? 'route:\n  receivers: [ops-slack]' : `route: ${JSON.stringify(o.route)}`}
receivers:
  - name: ops-slack
    type: slack
    webhookUrl: ${o.webhookUrl}
${(o.slack ?? []).map((line) => `    ${line}\n`).join('')}`
    : '';
  writeFileSync(
    configFile,
    `api:
  dataUrl: ${o.simUrl}
  metricsUrl: ${o.simUrl}
${o.plan ? '' : `  budget: { perMinute: ${BIG_BUDGET.perMinute}, perDay: ${BIG_BUDGET.perDay} }
  metricsBudget: { perMinute: ${BIG_BUDGET.perMinute}, perDay: ${BIG_BUDGET.perDay} }
`}${(o.api ?? []).map((line) => `  ${line}\n`).join('')}state:
  path: ${statePath}
${(o.state ?? []).map((line) => `  ${line}\n`).join('')}server:
  listen: ${o.listen ?? '127.0.0.1:0'}
log:
  level: warn
${receivers}ruleFiles: [rules/*.yaml]
${o.extra ?? ''}`,
  );
  mkdirSync(join(dir, 'rules'));
  writeFileSync(join(dir, 'rules', 'bench.yaml'), `rules:\n${o.rules}`);
  return { dir, configFile, statePath, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** One rule in YAML (indented for a rule file). */
export function ruleYaml(r: { name: string; kind: string; every?: string; schedule?: string; severity?: string; nodeIds: string[]; extra?: string }): string {
  const when = r.schedule !== undefined ? `schedule: "${r.schedule}"` : `every: ${r.every ?? '30s'}`;
  return `  - name: ${r.name}
    kind: ${r.kind}
    ${when}
    severity: ${r.severity ?? 'critical'}
    network: mainnet
${r.extra ?? ''}    nodeIds:
${r.nodeIds.map((id) => `      - ${id}`).join('\n')}
`;
}

/** The real App on a config file, its warnings and errors kept in `log` (with `state.url`, on its PostgreSQL store). */
export async function startApp(configFile: string, log: BenchLog): Promise<App> {
  const loaded = loadConfig(configFile, {});
  const store = loaded.config.state.url === undefined ? undefined : await openConfiguredStore(loaded);
  const { app } = composeApp(loaded, { logLevel: 'warn', readable: false, write: (line) => log.warnings.push(line.trim()), ...(store ? { store } : {}) });
  await app.start();
  return app;
}

export async function waitUntil<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 30_000, everyMs = 10): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

export async function counterSum(app: App, name: 'ruleEvaluations' | 'ruleFailures' | 'apiDeduplicated'): Promise<number> {
  const metric = await app.metrics[name].get();
  return metric.values.reduce((sum, v) => sum + v.value, 0);
}

export interface SlackPost {
  body: { text: string };
  at: number;
  /** Alerts in the message: a group's headline ends "(+N more)" (channels/text.ts groupTitle): N + 1, else 1. */
  alerts: number;
}

export interface SlackStub {
  webhookUrl: string;
  posts: SlackPost[];
  /** Every request, accepted or refused: [time, status]. */
  attempts: Array<[number, number]>;
  /** Answers the next requests with these statuses (and Retry-After), then 200 "ok". */
  failNext(...answers: Array<{ status: number; retryAfter?: number }>): void;
  close(): Promise<void>;
}

/** A Slack incoming-webhook stand-in on loopback. */
export async function startSlackStub(): Promise<SlackStub> {
  const posts: SlackPost[] = [];
  const attempts: Array<[number, number]> = [];
  const queue: Array<{ status: number; retryAfter?: number }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const planned = queue.shift();
      if (planned) {
        attempts.push([at, planned.status]);
        const headers: Record<string, string> = { 'content-type': 'text/plain' };
        if (planned.retryAfter !== undefined) headers['retry-after'] = String(planned.retryAfter);
        res.writeHead(planned.status, headers).end(planned.status === 429 ? 'rate_limited' : 'error');
        return;
      }
      attempts.push([at, 200]);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { text: string };
      const more = /\(\+(\d+) more\)$/.exec(body.text);
      posts.push({ body, at, alerts: more ? Number(more[1]) + 1 : 1 });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    webhookUrl: `http://127.0.0.1:${port}/services/T00000000/B00000000/benchbenchbenchbench`,
    posts,
    attempts,
    failNext: (...answers) => queue.push(...answers),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A free loopback port (bound and released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Records the simulator's request count over time and splits it into bursts (poll cycles)
 * separated by at least `gapMs` without a request.
 */
export class BurstRecorder {
  readonly #sim: SimServer;
  readonly #gapMs: number;
  readonly #timer: NodeJS.Timeout;
  readonly bursts: Array<{ start: number; end: number; from: number; to: number }> = [];
  #seen: number;

  constructor(sim: SimServer, gapMs: number) {
    this.#sim = sim;
    this.#gapMs = gapMs;
    this.#seen = sim.requests.length;
    this.#timer = setInterval(() => this.#poll(), 10);
  }

  #poll(): void {
    const now = Date.now();
    const n = this.#sim.requests.length;
    if (n === this.#seen) return;
    const last = this.bursts.at(-1);
    if (last && now - last.end < this.#gapMs) {
      last.end = now;
      last.to = n;
    } else {
      this.bursts.push({ start: now, end: now, from: this.#seen, to: n });
    }
    this.#seen = n;
  }

  /** Bursts that ended at least gapMs ago (complete). */
  complete(): Array<{ start: number; end: number; from: number; to: number }> {
    const now = Date.now();
    return this.bursts.filter((b) => now - b.end >= this.#gapMs);
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#poll();
  }
}
