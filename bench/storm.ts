import { startSim } from '../src/sim/server.js';
import { benchLogger, completeValidator, nodeId, ruleYaml, seedValidators, SIM_BUDGET, sleep, startApp, startSlackStub, summarizeWarnings, waitUntil, writeProject, type BenchResult, type Figure } from './lib.js';

const ALERTS = 1_000;
/** A cron schedule that never comes during the benchmark: only App.once() evaluates. */
const NEVER = '0 0 1 1 *';

interface Storm {
  rules: number;
  messages: number;
  attempts: number;
  refused: number;
  delivered: number;
  sentRows: number;
  dead: number;
  pending: number;
  commitMs: number;
  drainMs: number;
  totalMs: number;
  warnings: string[];
}

/**
 * Figure 6: a storm of 1,000 alerts to one Slack receiver that answers the first post with
 * 429 and Retry-After: 1. The real App (daemon delivery), the real outbox; the alerts are
 * 1,000 validator status changes found by one evaluation (App.once, as the scheduler would).
 */
export async function stormBench(): Promise<BenchResult> {
  const one = await storm(1);
  const ten = await storm(10);
  const figure = (s: Storm): Figure => ({
    name: `Storm of ${ALERTS.toLocaleString('en-US')} alerts (${s.rules === 1 ? '1 rule' : `${s.rules} rules`}), first post answered 429 + Retry-After: 1: messages sent, drain time`,
    value: `${s.messages} messages (${s.attempts} posts, ${s.refused} refused), ${s.delivered} alerts delivered, drained in ${(s.drainMs / 1000).toFixed(2)} s`,
    target: '≤ 10 messages, every alert delivered',
    pass: s.messages <= 10 && s.delivered === ALERTS && s.sentRows === ALERTS && s.pending === 0 && s.dead === 0,
  });
  return {
    id: 'storm',
    title: 'Alert storm to one Slack receiver',
    figures: [figure(one), figure(ten)],
    details: [
      `Real App with one Slack receiver (default settings: minInterval 1s, route groupBy [rule]) on a loopback stand-in that answers the first post with 429 and \`Retry-After: 1\`, then 200. ${ALERTS.toLocaleString('en-US')} nodes in the simulator are first polled as the baseline, then all change (active → completed) and one \`App.once()\` evaluates every rule and commits the alerts; the daemon's delivery loop sends them.`,
      '*Drain* = from the commit to the last accepted post, with the outbox empty; *total* adds the evaluation that found the changes. A group message\'s headline ends "(+N more)"; *delivered* sums its N + 1 over accepted posts; *sent rows* are outbox rows marked sent.',
      '',
      '| rules | messages | posts (refused) | alerts delivered | outbox sent / pending / dead | evaluation + commit | drain | total |',
      '|---|---|---|---|---|---|---|---|',
      ...[one, ten].map(
        (s) =>
          `| ${s.rules} × ${ALERTS / s.rules} nodes | ${s.messages} | ${s.attempts} (${s.refused}) | ${s.delivered} | ${s.sentRows} / ${s.pending} / ${s.dead} | ${(s.commitMs / 1000).toFixed(2)} s | ${(s.drainMs / 1000).toFixed(2)} s | ${(s.totalMs / 1000).toFixed(2)} s |`,
      ),
      '',
      ...[one, ten].flatMap((s) => (s.warnings.length > 0 ? [`Daemon warnings (${s.rules} rule(s)): ${summarizeWarnings(s.warnings).join('; ')}.`, ''] : [])),
    ],
  };
}

async function storm(ruleCount: number): Promise<Storm> {
  const sim = await startSim({ budget: SIM_BUDGET });
  seedValidators(sim, ALERTS);
  const slack = await startSlackStub();
  const per = ALERTS / ruleCount;
  const rules = Array.from({ length: ruleCount }, (_, r) =>
    ruleYaml({ name: `storm-${r}`, kind: 'validator-status', schedule: NEVER, nodeIds: Array.from({ length: per }, (_, k) => nodeId(r * per + k)) }),
  ).join('');
  // Two App.once() a moment apart: without this the second would be answered from the
  // first's shared GETs (api.dedupeWindow), which a cron rule (maxAge unbounded) accepts.
  const project = writeProject({ simUrl: sim.url, webhookUrl: slack.webhookUrl, rules, api: ['dedupeWindow: 0s'] });
  const logs = benchLogger();
  const { warnings } = logs;
  const app = await startApp(project.configFile, logs);
  try {
    const baseline = await app.once();
    if (baseline.failures.length > 0 || baseline.alerts.length > 0) throw new Error(`baseline: ${baseline.failures.length} failures, ${baseline.alerts.length} alerts`);
    slack.failNext({ status: 429, retryAfter: 1 });
    for (let i = 0; i < ALERTS; i++) completeValidator(sim, i);
    const t0 = Date.now();
    const { alerts, failures } = await app.once();
    const committed = Date.now();
    if (failures.length > 0 || alerts.length !== ALERTS) throw new Error(`storm: ${failures.length} failures, ${alerts.length} alerts`);
    await waitUntil(async () => (await app.store.pendingCount()) === 0 && slack.posts.reduce((n, p) => n + p.alerts, 0) >= ALERTS, 'the outbox to drain', 60_000, 5);
    const last = Math.max(...slack.posts.map((p) => p.at));
    await sleep(1_500); // anything more would be a duplicate
    return {
      rules: ruleCount,
      messages: slack.posts.length,
      attempts: slack.attempts.length,
      refused: slack.attempts.filter(([, status]) => status !== 200).length,
      delivered: slack.posts.reduce((n, p) => n + p.alerts, 0),
      sentRows: (await app.store.outbox('sent')).length,
      dead: (await app.store.outbox('dead')).length,
      pending: await app.store.pendingCount(),
      commitMs: committed - t0,
      drainMs: last - committed,
      totalMs: last - t0,
      warnings,
    };
  } finally {
    await app.stop();
    await slack.close();
    await sim.close();
    project.cleanup();
  }
}
