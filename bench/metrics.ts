import { PRIMARY_NETWORK } from '../src/rules/fields.js';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { createMetrics } from '../src/metrics/registry.js';
import { startHttpServer } from '../src/server/server.js';
import { ruleKinds } from '../src/rules/registry.js';
import { validatorStatus } from '../src/rules/validator-status/index.js';
import type { State } from '../src/rules/validator-status/schema.js';
import type { GaugeSample } from '../src/rules/types.js';
import { median, ms, nodeId, percentile, type BenchResult } from './lib.js';

const SERIES = 10_000;
const RUNS = 20;
const TARGET_MS = 50;

/**
 * Figure 4: time to render /metrics with 10k rule gauge series: the app's registry
 * (src/metrics/registry.ts) with its default process metrics, fed the samples the
 * validator-status kind derives from 2,500 nodes' committed state (4 series per node),
 * spread over 10 rules as the engine labels them.
 */
export async function metricsBench(): Promise<BenchResult> {
  const nodes = SERIES / 4;
  const rules = 10;
  const samples: GaugeSample[] = [];
  const nowS = Math.floor(Date.now() / 1000);
  for (let r = 0; r < rules; r++) {
    const states = new Map<string, State>();
    for (let i = r * (nodes / rules); i < (r + 1) * (nodes / rules); i++) {
      states.set(nodeId(i), { period: { txHash: `tx${i}`, status: 'active', startTimestamp: nowS - 86_400, endTimestamp: nowS + 86_400 * 200 }, missing: false });
    }
    const spec = { network: 'mainnet' as const, nodeIds: [...states.keys()], subnetId: PRIMARY_NETWORK };
    for (const s of validatorStatus.samples(spec, states, new Date())) samples.push({ ...s, labels: { rule: `validators-${r}`, ...s.labels } });
  }
  const byMetric = new Map<string, typeof samples>();
  for (const sample of samples) {
    const list = byMetric.get(sample.metric) ?? [];
    list.push(sample);
    byMetric.set(sample.metric, list);
  }
  const metrics = createMetrics({
    version: 'bench',
    outboxPending: () => 0,
    firing: () => [],
    // As the engine hands them out: grouped by gauge, made once per commit.
    ruleSamples: (metric) => byMetric.get(metric) ?? [],
    ruleGauges: Object.values(ruleKinds).flatMap((k) => k.gauges),
    ready: () => true,
  });
  for (let i = 0; i < 3; i++) await metrics.render(); // warm-up
  const times: number[] = [];
  let body = '';
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    body = await metrics.render();
    times.push(performance.now() - t);
  }
  const lines = body.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  const ruleSeries = lines.filter((l) => /^avawatch_validator_/.test(l)).length;

  // The same through the HTTP server a Prometheus scrape hits.
  const server = await startHttpServer('127.0.0.1:0', metrics, { alerts: () => [], ready: () => ({ ready: true, problems: [] }) });
  const scrapes: number[] = [];
  try {
    for (let i = 0; i < RUNS + 3; i++) {
      const t = performance.now();
      const res = await request(`${server.url}/metrics`);
      await res.body.text();
      if (i >= 3) scrapes.push(performance.now() - t);
    }
  } finally {
    await server.close();
  }
  const med = median(times);
  return {
    id: 'metrics',
    title: '/metrics render time',
    figures: [{ name: `/metrics render, ${ruleSeries.toLocaleString('en-US')} rule series (median of ${RUNS})`, value: ms(med), target: `< ${TARGET_MS} ms`, pass: med < TARGET_MS }],
    details: [
      `\`render()\` of \`createMetrics()\` (\`src/metrics/registry.ts\`, the default process metrics included), its rule gauges fed ${samples.length.toLocaleString('en-US')} samples: validator-status's gauges from the committed state of ${nodes.toLocaleString('en-US')} nodes in ${rules} rules. ${RUNS} renders after 3 warm-ups.`,
      '',
      '| measure | min | p50 | p95 | max |',
      '|---|---|---|---|---|',
      `| \`render()\` | ${ms(Math.min(...times))} | ${ms(med)} | ${ms(percentile(times, 95))} | ${ms(Math.max(...times))} |`,
      `| GET /metrics over loopback (\`src/server/server.ts\`) | ${ms(Math.min(...scrapes))} | ${ms(median(scrapes))} | ${ms(percentile(scrapes, 95))} | ${ms(Math.max(...scrapes))} |`,
      '',
      `Body: ${(body.length / 1024).toFixed(0)} KiB, ${lines.length.toLocaleString('en-US')} series in all (${ruleSeries.toLocaleString('en-US')} of them rule gauges).`,
    ],
  };
}
