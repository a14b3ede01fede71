import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchLogger, BIG_BUDGET, sleep, startApp, type BenchResult, type Figure } from './lib.js';

// Figure: /healthz while endpoint rules do the most expensive thing a service answer can make
// them do (issue 24): a 90,000-item page, and a runaway expression over 100 items. The
// expressions run in their own process; what is left on the daemon's thread is the page's
// JSON, the rule's evaluation and the commit. /healthz is asked every 20 ms from the same
// process, so its answer time includes every block of the event loop.

const PROBE_MS = 20;

interface Scenario {
  name: string;
  items: number;
  condition: string;
  /** How long /healthz is watched (several evaluations). */
  watchMs: number;
}

const SCENARIOS: Scenario[] = [
  { name: 'a 90,000-item page, condition mode, every 5 s', items: 90_000, condition: 'v > 89990', watchMs: 16_000 },
  { name: 'a runaway expression over 100 items (stopped at expressionTimeout 10 s)', items: 100, condition: '$count($spread([1..30000])) < 0', watchMs: 14_000 },
];

export async function expressionsBench(): Promise<BenchResult> {
  const figures: Figure[] = [];
  const details = ['The real App with one `endpoint` rule (every 5 s) over a list server on loopback; /healthz asked every 20 ms from the same process.', ''];
  details.push('| scenario | /healthz answers | p50 | p99 | worst | evaluations (ok / failed) | items read |', '|---|---|---|---|---|---|---|');
  for (const s of SCENARIOS) {
    const r = await measure(s);
    figures.push({ name: `/healthz worst answer time while an endpoint rule reads ${s.name}`, value: `${r.worst} ms`, target: '< 1000 ms', pass: r.worst < 1000 });
    details.push(`| ${s.name} | ${r.samples.length} | ${r.p50} ms | ${r.p99} ms | ${r.worst} ms | ${r.ok} / ${r.failed} | ${r.read} |`);
  }
  return { id: 'expressions', title: 'The daemon stays responsive while endpoint expressions work', figures, details };
}

async function measure(s: Scenario): Promise<{ samples: number[]; p50: number; p99: number; worst: number; ok: number; failed: number; read: number }> {
  const list = await listServer(s.items);
  const dir = mkdtempSync(join(tmpdir(), 'avawatch-bench-expr-'));
  writeFileSync(
    join(dir, 'avawatch.yaml'),
    `api: {dataUrl: "${list.url}", metricsUrl: "${list.url}", maxResponseBytes: 64000000, budget: {perMinute: ${BIG_BUDGET.perMinute}, perDay: ${BIG_BUDGET.perDay}}}
state: {path: "${join(dir, 'state.db')}"}
server: {listen: "127.0.0.1:0"}
ruleFiles: [rules.yaml]
`,
  );
  writeFileSync(
    join(dir, 'rules.yaml'),
    `rules:
  - name: big
    kind: endpoint
    every: 5s
    severity: warning
    path: /v1/chains/43114/nfts/collections/0x71B5Ac9C7e9fbdC5D1A5B5E1A1E0a5C5c5A5d5E5/tokens
    items: tokens
    key: k
    mode: condition
    maxPages: 1
    maxItems: 100000
    condition: ${JSON.stringify(s.condition)}
`,
  );
  const logs = benchLogger();
  const app = await startApp(join(dir, 'avawatch.yaml'), logs);
  const samples: number[] = [];
  try {
    // From the start: the first evaluation writes every item's state, the heaviest commit.
    const end = Date.now() + s.watchMs;
    while (Date.now() < end) {
      const t = performance.now();
      await fetch(`${app.url}/healthz`);
      samples.push(Math.round(performance.now() - t));
      await sleep(PROBE_MS);
    }
    const evaluations = (await app.metrics.ruleEvaluations.get()).values.find((v) => v.labels['rule'] === 'big')?.value ?? 0;
    const failed = (await app.metrics.ruleFailures.get()).values.find((v) => v.labels['rule'] === 'big')?.value ?? 0;
    const read = [...app.engine.samples('avawatch_endpoint_items')].find((x) => x.labels['rule'] === 'big')?.value ?? 0;
    const sorted = [...samples].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    return { samples, p50: at(0.5), p99: at(0.99), worst: sorted.at(-1) ?? 0, ok: evaluations - failed, failed, read };
  } finally {
    await app.stop();
    await new Promise<void>((r) => list.server.close(() => r()));
    list.server.closeAllConnections();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One page of `count` small items (`{k, v}`), the same every time. */
async function listServer(count: number): Promise<{ url: string; server: Server }> {
  const body = JSON.stringify({ tokens: Array.from({ length: count }, (_, i) => ({ k: `item-${i}`, v: i })) });
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
