import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../src/app/app.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/base/log.js';
import { activeValidator, completedValidator, pendingValidator } from '../../src/sim/samples.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { writeProject, type TempProject } from '../helpers/harness.js';
import { postFacts, postText, startSlackReceiver, WEBHOOK_SECRET_PATH, type SlackPost, type SlackReceiver } from '../helpers/slack-receiver.js';
import { firingAlerts } from '../../src/alerts/view.js';
import { waitUntil } from '../helpers/wait.js';
import { captureStderr, startApp } from '../helpers/app.js';
import { testNodeId } from '../helpers/node-ids.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const RULE = 'my-validators';
const DAY = 86_400;
const old = { nodeId: NODE, txHash: '2oLd1PeriodTxHash5VqKJH7mWQgH9Ue3k7bXzDvb3NpUWyqm', startTimestamp: 1_700_000_000, endTimestamp: 1_700_000_000 + 180 * DAY };
const cur = { nodeId: NODE, txHash: 'CuRrentPeriodTxHashk2iDm8SPW1r8T5nYqFZbd4zA3kGfQw', startTimestamp: 1_716_000_000, endTimestamp: 1_716_000_000 + 365 * DAY };

describe('daemon: validator status end to end', () => {
  let sim: SimServer;
  let slack: SlackReceiver;
  let project: TempProject;
  let app: App | undefined;
  let stderr: string[] = [];

  beforeEach(async () => {
    sim = await startSim();
    slack = await startSlackReceiver();
    project = writeProject({ dataUrl: sim.url, webhookUrl: slack.webhookUrl, nodeIds: [NODE], every: '1s' });
    sim.world.setValidators('mainnet', NODE, [completedValidator(old), activeValidator(cur)]);
    stderr = captureStderr();
  });

  afterEach(async () => {
    await app?.stop();
    app = undefined;
    vi.restoreAllMocks();
    await sim.close();
    await slack.close();
    project.cleanup();
  });

  async function start(): Promise<App> {
    app = await startApp(project.configFile);
    return app;
  }

  async function evaluations(a: App): Promise<number> {
    const metric = await a.metrics.ruleEvaluations.get();
    return metric.values.find((v) => v.labels.rule === RULE)?.value ?? 0;
  }

  /** Waits for `n` more evaluations to finish (success or failure). */
  async function polls(a: App, n: number): Promise<void> {
    const target = (await evaluations(a)) + n + 1; // +1: the one under way now must finish too
    await waitUntil(async () => (await evaluations(a)) >= target, `${n} more polls`, 10_000);
  }

  async function baseline(a: App): Promise<void> {
    await waitUntil(() => a.store.loadStates(RULE)[NODE], 'the baseline poll');
  }

  it('posts one Block Kit message within a poll interval of active → completed, and only one', async () => {
    const a = await start();
    await baseline(a);
    expect(slack.posts).toHaveLength(0); // the first observation is a baseline

    const changedAt = Date.now();
    sim.world.setValidators('mainnet', NODE, [completedValidator(old), completedValidator(cur)]);
    const [post] = await slack.waitForPosts(1, 5_000);
    await polls(a, 2);

    expect(slack.posts).toHaveLength(1);
    expect(post!.body.text).toBe(`[EVENT INFO] ${RULE}: ${NODE} validation active → completed`);
    expect(postFacts(post!)).toMatchObject({ Node: NODE, Change: 'active → completed', 'Period ended': '2025-05-18T02:40:00Z' });
    expect(post!.at - changedAt).toBeLessThan(60_000); // sanity only; latency is measured by the benchmark
  });

  it('reports pending → active and a new period after one completed', async () => {
    sim.world.setValidators('mainnet', NODE, [completedValidator(old), pendingValidator(cur)]);
    const a = await start();
    await baseline(a);
    sim.world.setValidators('mainnet', NODE, [completedValidator(old), activeValidator(cur)]);
    await slack.waitForPosts(1);
    const next = { ...cur, txHash: 'NeXtPeriodTxHash3zUvWmS8fDkP1aRtYqLc9HeBn2XoJgKi7', startTimestamp: cur.endTimestamp + 60 };
    sim.world.setValidators('mainnet', NODE, [completedValidator(old), completedValidator(cur), activeValidator(next)]);
    await slack.waitForPosts(2);
    expect(slack.posts.map((p) => p.body.text)).toEqual([
      `[EVENT INFO] ${RULE}: ${NODE} validation pending → active`,
      `[EVENT INFO] ${RULE}: ${NODE} validation active → active (new validation period)`,
    ]);
  });

  it('a restart neither repeats nor loses a change', async () => {
    let a = await start();
    await baseline(a);
    await a.stop();

    // The change happens while avawatch is down.
    sim.world.setValidators('mainnet', NODE, [completedValidator(old), completedValidator(cur)]);
    a = await start();
    await slack.waitForPosts(1);
    await polls(a, 2);
    await a.stop();

    a = await start();
    await polls(a, 2);
    expect(slack.posts.map((p) => p.body.text)).toEqual([`[EVENT INFO] ${RULE}: ${NODE} validation active → completed`]);
  });

  it('a message Slack could not take waits in the outbox and is delivered after Slack returns, across a restart', async () => {
    slack.failAll(503);
    let a = await start();
    await baseline(a);
    sim.world.setValidators('mainnet', NODE, [completedValidator(old), completedValidator(cur)]);
    await waitUntil(() => a.store.outbox('pending').find((r) => r.attempts >= 2), 'two failed attempts');
    const failed = await a.metrics.notificationsFailed.get();
    expect(failed.values.find((v) => v.labels.reason === 'http_503')?.value).toBeGreaterThanOrEqual(2);
    await a.stop();

    slack.failAll(undefined);
    a = await start();
    await slack.waitForPosts(1);
    await polls(a, 2);
    expect(slack.posts).toHaveLength(1);
    expect(a.store.outbox('sent')).toHaveLength(1);
    expect(a.store.pendingCount()).toBe(0);
  });

  it('honours Slack 429 Retry-After and dead-letters a 404 with its reason', async () => {
    slack.failNext({ status: 429, retryAfter: 1, body: 'rate_limited' });
    const a = await start();
    await baseline(a);
    sim.world.setValidators('mainnet', NODE, [completedValidator(old), completedValidator(cur)]);
    await slack.waitForPosts(1, 8_000);
    expect(slack.attempts).toBe(2); // the 429, then the delivery
    expect(a.store.outbox('sent')).toHaveLength(1);
    // Retry-After: 1 means the retry is scheduled no sooner than a second after the 429.
    expect(stderr.join('')).toMatch(/"reason":"http_429".*"retryInMs":(1\d{3}|[2-9]\d{3})/);

    slack.failNext({ status: 404, body: 'no_service' });
    // Its next validation starts active (ACP-41: no pending period since Durango) and shows up in the list.
    sim.world.setValidators('mainnet', NODE, [completedValidator(old), completedValidator(cur), activeValidator({ ...cur, txHash: 'NextTxHash9zUvWmS8fDkP1aRtYqLc9HeBn2XoJgKi7Ab', startTimestamp: cur.endTimestamp + 100 })]);
    const dead = await waitUntil(() => a.store.outbox('dead')[0], 'a dead letter');
    expect(dead.lastError).toBe('slack receiver "ops-slack": HTTP 404: webhook or channel not found (no_service)');
    expect(dead.attempts).toBe(1);
  });

  it('failed polls change no state and raise no false alert; at three in a row rule-failing fires, naming the error, and resolves on recovery', async () => {
    const a = await start();
    await baseline(a);
    const before = a.store.loadStates(RULE);
    const ready = await fetch(`${a.url}/readyz`);
    expect([ready.status, await ready.text()]).toEqual([200, 'ready\n']);
    // The bulk list of active periods (the first call of a poll) fails; retries: 1 in the
    // harness, so 2 attempts per evaluation: 6 faults fail three evaluations.
    sim.world.faults.push(...Array.from({ length: 6 }, () => ({ pathMatches: '/validators$', query: 'validationStatus=active', status: 503 })));
    await waitUntil(async () => ((await a.metrics.ruleFailures.get()).values[0]?.value ?? 0) >= 2, 'two failed evaluations');
    expect(a.store.loadStates(RULE)).toEqual(before);
    expect(slack.posts).toHaveLength(0); // two failures: not yet blind
    expect(stderr.join('')).toContain('data API GET /v1/networks/mainnet/validators: HTTP 503: injected fault');

    const [failing] = await slack.waitForPosts(1);
    expect(postText(failing as SlackPost)).toContain(inJson(`rule "${RULE}" is blind: its last 3 evaluations failed (data API GET /v1/networks/mainnet/validators: HTTP 503: injected fault)`));
    expect(a.store.loadStates(RULE)).toEqual(before);
    const notReady = await fetch(`${a.url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.text()).toContain(`rule ${RULE}: 3 evaluations failed in a row`);
    expect(firingAlerts(a.store).map((f) => `${f.rule} ${f.labels['alertname']}`)).toEqual([`${RULE} rule-failing`]);

    // The faults are used up: the next poll succeeds and resolves it; the validator never changed.
    const [, resolved] = await slack.waitForPosts(2);
    expect(postText(resolved as SlackPost)).toContain(inJson(`rule "${RULE}" evaluates again`));
    expect((await fetch(`${a.url}/readyz`)).status).toBe(200);
    await polls(a, 2);
    expect(slack.posts).toHaveLength(2);
    expect(a.store.loadStates(RULE)).toEqual(before);
    expect(firingAlerts(a.store)).toEqual([]);
  });

  it('a node the service does not know is reported once, as a warning', async () => {
    const unknown = 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu';
    project.cleanup();
    project = writeProject({ dataUrl: sim.url, webhookUrl: slack.webhookUrl, nodeIds: [NODE, unknown], every: '1s' });
    const a = await start();
    await slack.waitForPosts(1);
    await polls(a, 3);
    expect(slack.posts.map((p) => p.body.text)).toEqual([
      `[EVENT WARNING] ${RULE}: ${unknown} is not known to the service on mainnet: check the NodeID and network`,
    ]);
  });

  it('serves /metrics with what the daemon sees, and /healthz', async () => {
    const a = await start();
    await baseline(a);
    const body = await (await fetch(`${a.url}/metrics`)).text();
    expect(body).toContain(`avawatch_validator_status{rule="${RULE}",network="mainnet",node_id="${NODE}",status="active"} 1`);
    expect(body).toContain(`avawatch_validator_end_timestamp_seconds{rule="${RULE}",network="mainnet",node_id="${NODE}"} ${cur.endTimestamp}`);
    expect(body).toMatch(/avawatch_build_info\{version="\d+\.\d+\.\d+",nodejs="[\d.]+"\} 1/);
    expect(body).toMatch(new RegExp(`avawatch_rule_evaluations_total\\{rule="${RULE}"\\} [1-9]`));
    expect(body).toContain('avawatch_api_requests_total{api="data",endpoint="/v1/networks/{network}/validators",code="200"}');
    expect(body).toContain('avawatch_outbox_pending 0');
    expect(body).toContain('process_resident_memory_bytes');
    const health = await fetch(`${a.url}/healthz`);
    expect(health.status).toBe(200);
  });

  it('never writes the webhook URL to the log or /metrics, even when Slack fails', async () => {
    slack.failAll(500);
    const a = await start();
    await baseline(a);
    sim.world.setValidators('mainnet', NODE, [completedValidator(old), completedValidator(cur)]);
    await waitUntil(() => a.store.outbox('pending').find((r) => r.attempts >= 2), 'failed attempts');
    const metrics = await (await fetch(`${a.url}/metrics`)).text();
    const log = stderr.join('');
    expect(log).toContain('notification failed; will retry');
    expect(log).not.toContain(WEBHOOK_SECRET_PATH);
    expect(log).not.toContain('XXXXsecretXXXXtokenXXXX');
    expect(metrics).not.toContain('XXXXsecretXXXXtokenXXXX');
  });
});

describe('daemon: delivery pacing', () => {
  it('after a 429 the receiver is left alone until Retry-After has passed, then the rest is delivered in order', async () => {
    const sim = await startSim();
    const slack = await startSlackReceiver();
    const nodes = ['NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ', 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu'];
    const p = (n: string) => ({ nodeId: n, txHash: `tx-${n.slice(-4)}`, startTimestamp: 1_716_000_000, endTimestamp: 1_747_536_000 });
    for (const n of nodes) sim.world.setValidators('mainnet', n, [activeValidator(p(n))]);
    // One group per node, so each change is its own message.
    const project = writeProject({ dataUrl: sim.url, webhookUrl: slack.webhookUrl, nodeIds: nodes, every: '1s', groupBy: ['node'] });
    const loaded = loadConfig(project.configFile, {});
    const a = new App({ loaded, log: createLogger('error', false).log });
    try {
      await a.start();
      await waitUntil(() => Object.keys(a.store.loadStates(RULE)).length === 3, 'the baseline');
      slack.failNext({ status: 429, retryAfter: 1, body: 'rate_limited' });
      for (const n of nodes) sim.world.setValidators('mainnet', n, [completedValidator(p(n))]);
      await slack.waitForPosts(3, 10_000);
      const [rejected, ...rest] = slack.attemptTimes;
      expect(slack.attemptTimes).toHaveLength(4);
      for (const t of rest) expect(t - rejected!).toBeGreaterThanOrEqual(1_000);
      expect(slack.posts.map((post) => post.body.text.split(': ')[1]?.split(' ')[0])).toEqual(nodes);
    } finally {
      await a.stop();
      await sim.close();
      await slack.close();
      project.cleanup();
    }
  });
});

describe('daemon: storms are grouped', () => {
  it('200 validators of one rule changing at once become one Slack message with the count and the first ten', async () => {
    // 200 lookups a poll exceed the keyless budget (6,000 CU a minute): this test is about grouping.
    const sim = await startSim({ budget: { data: { perMinute: 1_000_000, perDay: 10_000_000 } } });
    const slack = await startSlackReceiver();
    const nodes = Array.from({ length: 200 }, (_, i) => testNodeId(i));
    const p = (n: string) => ({ nodeId: n, txHash: `tx-${n.slice(-8)}`, startTimestamp: 1_716_000_000, endTimestamp: 1_747_536_000 });
    for (const n of nodes) sim.world.setValidators('mainnet', n, [activeValidator(p(n))]);
    const project = writeProject({ dataUrl: sim.url, webhookUrl: slack.webhookUrl, nodeIds: nodes, every: '2s', api: 'budget: {perMinute: 1000000, perDay: 10000000}' });
    const a = new App({ loaded: loadConfig(project.configFile, {}), log: createLogger('error', false).log });
    try {
      await a.start();
      await waitUntil(() => Object.keys(a.store.loadStates(RULE)).length === 200, 'the baseline', 20_000);
      for (const n of nodes) sim.world.setValidators('mainnet', n, [completedValidator(p(n))]);
      await slack.waitForPosts(1, 20_000);
      await waitUntil(() => a.store.pendingCount() === 0 && a.store.outbox('sent').length === 200, 'all 200 marked sent', 20_000);
      expect(slack.posts).toHaveLength(1);
      const post = slack.posts[0]!;
      expect(post.body.text).toBe(`[200 alerts] ${RULE}: ${nodes[0]} validation active → completed (+199 more)`);
      const list = JSON.stringify(post.body.blocks);
      expect(list).toContain(`• EVENT INFO: ${nodes[9]} validation active → completed`);
      expect(list).not.toContain(nodes[10]!);
      expect(list).toContain('…and 190 more');
    } finally {
      await a.stop();
      await sim.close();
      await slack.close();
      project.cleanup();
    }
  }, 60_000);
});

/** Text as it sits inside a JSON body. */
function inJson(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}
