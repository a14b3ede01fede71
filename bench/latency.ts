import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { App } from '../src/app/app.js';
import { activeValidator, completedValidator } from '../src/sim/samples.js';
import { startSim, type SimServer } from '../src/sim/server.js';
import {
  benchLogger,
  median,
  nodeId,
  percentile,
  period,
  seedValidators,
  SIM_BUDGET,
  sleep,
  startApp,
  startSlackStub,
  summarizeWarnings,
  waitUntil,
  writeProject,
  type BenchResult,
  type Figure,
} from './lib.js';

const NODES = 5;

/** The shipped config (dist-bench/bench/ → the repository's config/). */
const SHIPPED = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'config', 'avawatch.yaml');

/** The shipped profile's route (grouped by validator, groupWait 1m, groupInterval 5m), as the file has it. */
function shippedRoute(): { receivers: string[]; routes?: unknown[] } {
  return (parse(readFileSync(SHIPPED, 'utf8')) as { route: { receivers: string[]; routes?: unknown[] } }).route;
}

/** What a change is, for the reader of the table. */
type Kind = 'first news' | 'critical';

interface Run {
  everyS: number;
  samples: number[];
  kinds: Kind[];
  /** From the first poll tick (a wall-clock multiple of the interval) after the change to the arrival. */
  afterTick: number[];
  warnings: string[];
}

/**
 * The measured change of a node at its `turn`-th change. The first is news (its validation
 * completes, paid: info) about a validator with no message yet; every later one is critical
 * (a new period ends without a reward) about a validator that had a message within
 * groupInterval.
 */
function change(sim: SimServer, node: number, turn: number): Kind {
  const p = periodOf(node, turn);
  if (turn === 0) sim.world.setValidators('mainnet', nodeId(node), [completedValidator(p)]);
  else sim.world.setValidators('mainnet', nodeId(node), [completedValidator({ ...p, rewards: { validationRewardAmount: '0' } })]);
  return turn === 0 ? 'first news' : 'critical';
}

/** The latency rule's committed states by node. */
async function stored(app: App): Promise<Record<string, unknown>> {
  return Object.fromEntries((await app.store.stateRows('latency')).rows.map((r) => [r.entity, JSON.parse(r.state) as unknown]));
}

/**
 * Before a later change, the node validates again (a new period: good news, info). Not
 * measured: later news of the validator, it waits in the group, and the critical takes it along.
 */
async function restake(sim: SimServer, app: App, node: number, turn: number): Promise<void> {
  const p = periodOf(node, turn);
  sim.world.setValidators('mainnet', nodeId(node), [activeValidator(p)]);
  const seen = async () => ((await stored(app))[nodeId(node)] as { period?: { txHash?: string } } | undefined)?.period?.txHash === p.txHash;
  await waitUntil(seen, `the poll that sees node ${node}'s new period`, 30_000, 2);
}

/** Node i's period of its `turn`-th change: each turn after the first is a new one. */
function periodOf(node: number, turn: number) {
  const base = period(node);
  return turn === 0 ? base : { ...base, txHash: `${base.txHash}-${turn}` };
}

export async function latencyBench(changes: number): Promise<BenchResult> {
  const runs: Run[] = [];
  for (const everyS of [5, 1]) runs.push(await measure(everyS, changes));
  const figures: Figure[] = runs.map((r) => {
    const p99 = percentile(r.samples, 99);
    const limit = r.everyS * 1000 + 1000;
    return {
      name: `Detection latency, change → Slack, every ${r.everyS}s, the shipped grouping (${r.samples.length} changes, ${count(r, 'critical')} critical within groupInterval of a message)`,
      value: `p50 ${(median(r.samples) / 1000).toFixed(2)} s, p99 ${(p99 / 1000).toFixed(2)} s`,
      target: `p99 ≤ ${r.everyS + 1} s (interval + 1 s)`,
      pass: p99 <= limit,
    };
  });
  return {
    id: 'latency',
    title: 'Detection latency',
    figures,
    details: [
      `Real App against the simulator and a Slack-compatible receiver on loopback: one validator-status rule (\`validators: all\`) over an inventory of ${NODES} validators, the default Slack receiver settings (minInterval 1s) and the shipped profile's route, read from config/avawatch.yaml (alerts about a validator grouped by it, groupWait 1m, groupInterval 5m); \`api.budget\` and the simulator's budget large enough never to throttle. ` +
        `Each change is one validator's, in turn, after a uniformly random pause of 0 … one interval since the previous message arrived, so changes fall at every phase of the cycle. A validator's first change is news (its validation completes, paid: info) about a validator with no message yet; each later one is critical (a new period ended without a reward) about a validator that had a message well within groupInterval; before it, the validator is re-staked (good news, not measured: it waits in the group and goes with the critical). Latency = arrival at the receiver − time of the change.`,
      '',
      '| interval | changes | min | p50 | p90 | p99 | max | p99 first news | p99 critical | after tick |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...runs.map((r) => {
        const s = (p: number, values = r.samples) => `${(percentile(values, p) / 1000).toFixed(2)} s`;
        const of = (kind: Kind) => r.samples.filter((_, i) => r.kinds[i] === kind);
        return `| ${r.everyS}s | ${r.samples.length} | ${s(0)} | ${s(50)} | ${s(90)} | ${s(99)} | ${s(100)} | ${s(99, of('first news'))} | ${s(99, of('critical'))} | ${Math.round(median(r.afterTick))} ms |`;
      }),
      '',
      '*after tick*: median time from the poll tick that follows the change (rules poll on wall-clock multiples of `every`) to the message: the request, evaluation, commit, the urgent wait (0.8 s from the poll) and delivery.',
      ...runs.flatMap((r) => (r.warnings.length > 0 ? ['', `Daemon warnings at ${r.everyS}s: ${summarizeWarnings(r.warnings).join('; ')}`] : [])),
    ],
  };
}

function count(r: Run, kind: Kind): number {
  return r.kinds.filter((k) => k === kind).length;
}

async function measure(everyS: number, changes: number): Promise<Run> {
  const sim = await startSim({ budget: SIM_BUDGET });
  seedValidators(sim, NODES);
  const slack = await startSlackStub();
  const inventory = Array.from({ length: NODES }, (_, i) => `  - { name: v${i}, nodeId: ${nodeId(i)}, network: mainnet }`);
  const rule = `  - { name: latency, kind: validator-status, every: ${everyS}s, severity: critical, validators: all }\n`;
  const project = writeProject({ simUrl: sim.url, webhookUrl: slack.webhookUrl, route: shippedRoute(), rules: rule, extra: ['validators:', ...inventory, ''].join('\n') });
  const logs = benchLogger();
  const { warnings } = logs;
  const app = await startApp(project.configFile, logs);
  const samples: number[] = [];
  const kinds: Kind[] = [];
  const afterTick: number[] = [];
  const everyMs = everyS * 1000;
  try {
    await waitUntil(async () => Object.keys(await stored(app)).length === NODES, 'the baseline poll', 10_000);
    for (let k = 0; k < changes; k++) {
      const [node, turn] = [k % NODES, Math.floor(k / NODES)];
      if (turn > 0) await restake(sim, app, node, turn);
      await sleep(Math.random() * everyS * 1000);
      const changedAt = Date.now();
      kinds.push(change(sim, node, turn));
      // A message held by groupWait (1m) or groupInterval (5m) would time out here.
      const post = await waitUntil(() => slack.posts[k], `the message of change ${k + 1}`, everyS * 1000 * 4 + 5_000, 2);
      samples.push(post.at - changedAt);
      afterTick.push(post.at - Math.ceil(changedAt / everyMs) * everyMs);
    }
    await sleep(everyS * 1000 + 200);
    if (slack.posts.length !== changes) warnings.push(`${slack.posts.length} messages for ${changes} changes`);
    return { everyS, samples, kinds, afterTick, warnings };
  } finally {
    await app.stop();
    await slack.close();
    await sim.close();
    project.cleanup();
  }
}
