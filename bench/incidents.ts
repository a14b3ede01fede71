import { performance } from 'node:perf_hooks';
import { detect, type DetectInput } from '../src/incidents/detect.js';
import { groupsOf } from '../src/incidents/groups.js';
import type { ChildRef } from '../src/incidents/types.js';
import { baselineOf, child, fleetInventory, nodeOf } from '../test/helpers/incidents-world.js';
import { percentile, type BenchResult } from './lib.js';

// Figure: issue 40's verdict work per poll for a network of 2,000 validators and a fleet of 500:
// the baseline's distribution (three sorts of 2,000 figures, once per sweep) and the detection
// (once per commit), pure CPU on this thread. The target is 50 ms: under 0.1 % of a 1-minute poll.
// The figure is the median (the CPU it costs); p99 shows the machine's other work and the GC.

const NETWORK = 2_000;
const FLEET = 500;
const RUNS = 200;
const TARGET_MS = 50;
const MIN = 60_000;

interface Case {
  name: string;
  children: ChildRef[];
}

export function incidentsBench(): Promise<BenchResult> {
  const now = 100 * MIN;
  const dips = (i: number) => i % 10 < 7;
  const deadHost = (i: number) => i >= 5 && i < 10;
  const figures = (i: number) => (deadHost(i) ? { reach: 0, uptime: 20 } : dips(i) ? { uptime: 60 } : {});
  const all = Array.from({ length: FLEET }, (_, i) => i);
  const cases: Case[] = [
    { name: '(c) 70 % of the network dips and one host of five dies', children: [...all.filter((i) => dips(i) || deadHost(i)).map((i) => child(i, 'validator-health/uptime', now - 5 * MIN + i)), ...[5, 6, 7, 8, 9].map((i) => child(i, 'node-health/down', now - 5 * MIN))] },
    { name: 'worst: every fleet validator with three alerts', children: all.flatMap((i) => ['validator-health/uptime', 'validator-health/reachability', 'node-health/down'].map((f) => child(i, f, now - 5 * MIN + i))) },
  ];

  const baselineMs = timed(() => baselineOf(NETWORK, figures, { at: now - MIN }));
  const baseline = baselineOf(NETWORK, figures, { at: now - MIN });
  const inventory = fleetInventory(FLEET);
  const groupsMs = timed(() => groupsOf(inventory, ['host', 'region', 'provider', 'version', 'team']));
  const groups = groupsOf(inventory, ['host', 'region', 'provider', 'version', 'team']);
  const input = (children: ChildRef[]): DetectInput => ({
    now,
    children,
    groups,
    baselines: new Map([['mainnet', baseline]]),
    fleet: new Map([['mainnet', all.map(nodeOf)]]),
    stakeOf: () => 2_000,
    config: { k: 3, window: 10 * MIN, network: { share: 0.33, tolerance: 5, maxAge: 20 * MIN } },
  });

  const details = [
    `Pure CPU, ${RUNS} runs each after a warm-up: a baseline over ${NETWORK.toLocaleString('en')} network validators (p10/p50/p90 of three figures, the stake share under each threshold), the groups of a ${FLEET}-validator fleet (host of five, region, provider), and \`detect\` over its active alerts.`,
    '',
    '| step | alerts | incidents | p50 | p99 |',
    '|---|---|---|---|---|',
    `| baseline of ${NETWORK.toLocaleString('en')} (once per sweep) | — | — | ${fmt(percentile(baselineMs, 50))} | ${fmt(percentile(baselineMs, 99))} |`,
    `| groups of ${FLEET} (once per config load) | — | — | ${fmt(percentile(groupsMs, 50))} | ${fmt(percentile(groupsMs, 99))} |`,
  ];
  let worst = 0;
  for (const c of cases) {
    const found = detect(input(c.children)).incidents.length;
    const ms = timed(() => detect(input(c.children)));
    const total = percentile(ms, 50) + percentile(baselineMs, 50);
    worst = Math.max(worst, total);
    details.push(`| detect, ${c.name} | ${c.children.length} | ${found} | ${fmt(percentile(ms, 50))} | ${fmt(percentile(ms, 99))} |`);
  }
  return Promise.resolve({
    id: 'incidents',
    title: 'Incident verdict: baseline and detection for 2,000 network validators and a 500-validator fleet',
    figures: [{ name: `baseline + verdict, ${NETWORK.toLocaleString('en')} network validators and a ${FLEET}-validator fleet (median, worst case)`, value: fmt(worst), target: `< ${TARGET_MS} ms`, pass: worst < TARGET_MS }],
    details,
  });
}

function timed(run: () => unknown): number[] {
  for (let i = 0; i < 20; i++) run();
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    run();
    ms.push(performance.now() - t);
  }
  return ms;
}

function fmt(ms: number): string {
  return `${ms.toFixed(2)} ms`;
}
