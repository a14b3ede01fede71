import { startSim } from '../src/sim/server.js';
import {
  activateValidator,
  benchLogger,
  completeValidator,
  median,
  nodeId,
  percentile,
  ruleYaml,
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

interface Run {
  everyS: number;
  samples: number[];
  /** From the first poll tick (a wall-clock multiple of the interval) after the change to the arrival. */
  afterTick: number[];
  warnings: string[];
}

/**
 * Figure 2: detection latency, from a change in the simulator to the Slack receiver getting
 * the message. One change at a time, each after a random pause within one interval, so
 * the changes fall at every phase of the poll cycle.
 */
export async function latencyBench(changes: number): Promise<BenchResult> {
  const runs: Run[] = [];
  for (const everyS of [5, 1]) runs.push(await measure(everyS, changes));
  const figures: Figure[] = runs.map((r) => {
    const p99 = percentile(r.samples, 99);
    const limit = r.everyS * 1000 + 1000;
    return {
      name: `Detection latency, change → Slack, every ${r.everyS}s (${r.samples.length} changes)`,
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
      `Real App against the simulator and a Slack-compatible receiver on loopback: one validator-status rule over ${NODES} nodes, the default Slack receiver settings (minInterval 1s) and route; \`api.budget\` and the simulator's budget large enough never to throttle. ` +
        `Each change flips one node active ↔ completed in the simulator's world after a uniformly random pause of 0 … one interval since the previous message arrived, so changes fall at every phase of the cycle; latency = arrival at the receiver − time of the change.`,
      '',
      '| interval | changes | min | p50 | p90 | p99 | max | after tick |',
      '|---|---|---|---|---|---|---|---|',
      ...runs.map((r) => {
        const s = (p: number) => `${(percentile(r.samples, p) / 1000).toFixed(2)} s`;
        return `| ${r.everyS}s | ${r.samples.length} | ${s(0)} | ${s(50)} | ${s(90)} | ${s(99)} | ${s(100)} | ${Math.round(median(r.afterTick))} ms |`;
      }),
      '',
      '*after tick*: median time from the poll tick that follows the change (rules poll on wall-clock multiples of `every`) to the message: the request, evaluation, commit and delivery.',
      ...runs.flatMap((r) => (r.warnings.length > 0 ? ['', `Daemon warnings at ${r.everyS}s: ${summarizeWarnings(r.warnings).join('; ')}`] : [])),
    ],
  };
}

async function measure(everyS: number, changes: number): Promise<Run> {
  const sim = await startSim({ budget: SIM_BUDGET });
  seedValidators(sim, NODES);
  const slack = await startSlackStub();
  const ids = Array.from({ length: NODES }, (_, i) => nodeId(i));
  const project = writeProject({ simUrl: sim.url, webhookUrl: slack.webhookUrl, rules: ruleYaml({ name: 'latency', kind: 'validator-status', every: `${everyS}s`, nodeIds: ids }) });
  const logs = benchLogger();
  const { warnings } = logs;
  const app = await startApp(project.configFile, logs);
  const samples: number[] = [];
  const afterTick: number[] = [];
  const everyMs = everyS * 1000;
  try {
    await waitUntil(() => Object.keys(app.store.loadStates('latency')).length === NODES, 'the baseline poll', 10_000);
    const completed = new Set<number>();
    for (let k = 0; k < changes; k++) {
      await sleep(Math.random() * everyS * 1000);
      const node = k % NODES;
      const changedAt = Date.now();
      if (completed.has(node)) {
        activateValidator(sim, node);
        completed.delete(node);
      } else {
        completeValidator(sim, node);
        completed.add(node);
      }
      const post = await waitUntil(() => slack.posts[k], `the message of change ${k + 1}`, everyS * 1000 * 4 + 5_000, 2);
      samples.push(post.at - changedAt);
      afterTick.push(post.at - Math.ceil(changedAt / everyMs) * everyMs);
    }
    await sleep(everyS * 1000 + 200);
    if (slack.posts.length !== changes) warnings.push(`${slack.posts.length} messages for ${changes} changes`);
    return { everyS, samples, afterTick, warnings };
  } finally {
    await app.stop();
    await slack.close();
    await sim.close();
    project.cleanup();
  }
}
