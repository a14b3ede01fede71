import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { activeValidator, completedValidator, pendingValidator } from '../../src/sim/samples.js';
import { postFacts, postText, WEBHOOK_SECRET_PATH, type SlackPost } from '../helpers/slack-receiver.js';
import { firingAlerts } from '../../src/alerts/view.js';
import { withDaemon, type Daemon, type DaemonOptions } from '../helpers/daemon.js';
import { testNodeId } from '../helpers/node-ids.js';
import { storedStates } from '../helpers/stored-states.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const RULE = 'my-validators';
const DAY = 86_400;
const old = { nodeId: NODE, txHash: '2oLd1PeriodTxHash5VqKJH7mWQgH9Ue3k7bXzDvb3NpUWyqm', startTimestamp: 1_700_000_000, endTimestamp: 1_700_000_000 + 180 * DAY };
const cur = { nodeId: NODE, txHash: 'CuRrentPeriodTxHashk2iDm8SPW1r8T5nYqFZbd4zA3kGfQw', startTimestamp: 1_716_000_000, endTimestamp: 1_716_000_000 + 365 * DAY };

async function evaluations(a: App): Promise<number> {
  const metric = await a.metrics.ruleEvaluations.get();
  return metric.values.find((v) => v.labels.rule === RULE)?.value ?? 0;
}

/** Waits for `n` more evaluations to finish (success or failure). */
async function polls(d: Daemon, n: number): Promise<void> {
  const target = (await evaluations(d.app)) + n + 1; // +1: the one under way now must finish too
  await d.until(async () => (await evaluations(d.app)) >= target, `${n} more polls`, { within: 10_000 });
}

async function baseline(d: Daemon): Promise<void> {
  await d.until(async () => (await storedStates(d.app.store, RULE))[NODE], 'the baseline poll');
}

describe('daemon: validator status end to end', () => {
  /** NODE active in its current period after a completed one; the daemon polling it every second. */
  const daemon = (body: (d: Daemon) => Promise<void>, o: Partial<DaemonOptions> = {}) =>
    withDaemon(
      {
        project: { nodeIds: [NODE], every: '1s' },
        ...o,
        before: async (d) => {
          d.sim.world.setValidators('mainnet', NODE, [completedValidator(old), activeValidator(cur)]);
          await o.before?.(d);
        },
      },
      body,
    );

  it('posts one Block Kit message within a poll interval of active → completed, and only one', () =>
    daemon(async (d) => {
      await baseline(d);
      expect(d.slack.posts).toHaveLength(0); // the first observation is a baseline

      const changedAt = Date.now();
      d.sim.world.setValidators('mainnet', NODE, [completedValidator(old), completedValidator(cur)]);
      const [post] = await d.slack.waitForPosts(1, 5_000);
      await polls(d, 2);

      expect(d.slack.posts).toHaveLength(1);
      expect(post!.body.text).toBe(`[EVENT INFO] ${RULE}: ${NODE} validation active → completed`);
      expect(postFacts(post!)).toMatchObject({ Node: NODE, Change: 'active → completed', 'Period ended': '2025-05-18T02:40:00Z' });
      expect(post!.at - changedAt).toBeLessThan(60_000); // sanity only; latency is measured by the benchmark
    }));

  it('reports pending → active and a new period after one completed', () =>
    daemon(
      async (d) => {
        await baseline(d);
        d.sim.world.setValidators('mainnet', NODE, [completedValidator(old), activeValidator(cur)]);
        await d.slack.waitForPosts(1);
        const next = { ...cur, txHash: 'NeXtPeriodTxHash3zUvWmS8fDkP1aRtYqLc9HeBn2XoJgKi7', startTimestamp: cur.endTimestamp + 60 };
        d.sim.world.setValidators('mainnet', NODE, [completedValidator(old), completedValidator(cur), activeValidator(next)]);
        await d.slack.waitForPosts(2);
        expect(d.slack.posts.map((p) => p.body.text)).toEqual([
          `[EVENT INFO] ${RULE}: ${NODE} validation pending → active`,
          `[EVENT INFO] ${RULE}: ${NODE} validation active → active (new validation period)`,
        ]);
      },
      { before: (d) => d.sim.world.setValidators('mainnet', NODE, [completedValidator(old), pendingValidator(cur)]) },
    ));

  it('a restart neither repeats nor loses a change', () =>
    daemon(async (d) => {
      await baseline(d);
      await d.stopApp();

      // The change happens while avawatch is down.
      d.sim.world.setValidators('mainnet', NODE, [completedValidator(old), completedValidator(cur)]);
      await d.start();
      await d.slack.waitForPosts(1);
      await polls(d, 2);
      await d.stopApp();

      await d.start();
      await polls(d, 2);
      expect(d.slack.posts.map((p) => p.body.text)).toEqual([`[EVENT INFO] ${RULE}: ${NODE} validation active → completed`]);
    }));

  it('a message Slack could not take waits in the outbox and is delivered after Slack returns, across a restart', () =>
    daemon(async (d) => {
      d.slack.failAll(503);
      await baseline(d);
      d.sim.world.setValidators('mainnet', NODE, [completedValidator(old), completedValidator(cur)]);
      await d.until(async () => (await d.app.store.outbox('pending')).find((r) => r.attempts >= 2), 'two failed attempts');
      const failed = await d.app.metrics.notificationsFailed.get();
      expect(failed.values.find((v) => v.labels.reason === 'http_503')?.value).toBeGreaterThanOrEqual(2);
      await d.stopApp();

      d.slack.failAll(undefined);
      const a = await d.start();
      await d.slack.waitForPosts(1);
      await polls(d, 2);
      expect(d.slack.posts).toHaveLength(1);
      expect(await a.store.outbox('sent')).toHaveLength(1);
      expect(await a.store.pendingCount()).toBe(0);
    }));

  it('honours Slack 429 Retry-After and dead-letters a 404 with its reason', () =>
    daemon(async (d) => {
      const a = d.app;
      d.slack.failNext({ status: 429, retryAfter: 1, body: 'rate_limited' });
      await baseline(d);
      d.sim.world.setValidators('mainnet', NODE, [completedValidator(old), completedValidator(cur)]);
      await d.slack.waitForPosts(1, 8_000);
      expect(d.slack.attempts).toBe(2); // the 429, then the delivery
      await d.until(async () => (await a.store.outbox('sent')).length > 0, 'the post marked sent');
      expect(await a.store.outbox('sent')).toHaveLength(1);
      // Retry-After: 1 means the retry is scheduled no sooner than a second after the 429.
      expect(d.logs.join('')).toMatch(/"reason":"http_429".*"retryInMs":(1\d{3}|[2-9]\d{3})/);
      const [rejected, accepted] = d.slack.attemptTimes;
      expect(accepted! - rejected!).toBeGreaterThanOrEqual(1_000);

      d.slack.failNext({ status: 404, body: 'no_service' });
      // Its next validation starts active (ACP-41: no pending period since Durango) and shows up in the list.
      d.sim.world.setValidators('mainnet', NODE, [completedValidator(old), completedValidator(cur), activeValidator({ ...cur, txHash: 'NextTxHash9zUvWmS8fDkP1aRtYqLc9HeBn2XoJgKi7Ab', startTimestamp: cur.endTimestamp + 100 })]);
      const dead = await d.until(async () => (await a.store.outbox('dead'))[0], 'a dead letter');
      expect(dead.lastError).toBe('slack receiver "ops-slack": HTTP 404: webhook or channel not found (no_service)');
      expect(dead.attempts).toBe(1);
    }));

  it('failed polls change no state and raise no false alert; at three in a row rule-failing fires, naming the error, and resolves on recovery', () =>
    daemon(async (d) => {
      const a = d.app;
      await baseline(d);
      const before = await storedStates(a.store, RULE);
      const ready = await fetch(`${a.url}/readyz`);
      expect([ready.status, await ready.text()]).toEqual([200, 'ready\n']);
      // The bulk list of active periods (the first call of a poll) fails; retries: 1 in the
      // harness, so 2 attempts per evaluation: 6 faults fail three evaluations.
      d.sim.world.faults.push(...Array.from({ length: 6 }, () => ({ pathMatches: '/validators$', query: 'validationStatus=active', status: 503 })));
      await d.until(async () => ((await a.metrics.ruleFailures.get()).values[0]?.value ?? 0) >= 2, 'two failed evaluations');
      expect(await storedStates(a.store, RULE)).toEqual(before);
      expect(d.slack.posts).toHaveLength(0); // two failures: not yet blind
      expect(d.logs.join('')).toContain('data API GET /v1/networks/mainnet/validators: HTTP 503: injected fault');

      const [failing] = await d.slack.waitForPosts(1);
      // The service down is a cause outside the rule: avawatch's one alert for it names the rule.
      expect(postText(failing as SlackPost)).toMatch(/avawatch cannot see: the data service answers 503 since \d\d:\d\d UTC, 1 rule/);
      expect(postText(failing as SlackPost)).toContain(inJson(`${RULE} (3 failed)`));
      expect(postText(failing as SlackPost)).toContain(inJson('data API GET /v1/networks/mainnet/validators: HTTP 503: injected fault'));
      expect(await storedStates(a.store, RULE)).toEqual(before);
      const notReady = await fetch(`${a.url}/readyz`);
      expect(notReady.status).toBe(503);
      expect(await notReady.text()).toMatch(new RegExp(`the data service answers 503 since \\d\\d:\\d\\d UTC: 1 rule failing \\(${RULE}\\)`));
      expect((await firingAlerts(a.store)).map((f) => `${f.rule} ${f.labels['alertname']} ${f.labels['source']}`)).toEqual(['avawatch rule-failing data-service']);

      // The faults are used up: the next poll succeeds and resolves it; the validator never changed.
      const [, resolved] = await d.slack.waitForPosts(2);
      expect(postText(resolved as SlackPost)).toContain(inJson('avawatch sees again: the data service answers, 1 rule evaluates again'));
      expect((await fetch(`${a.url}/readyz`)).status).toBe(200);
      await polls(d, 2);
      expect(d.slack.posts).toHaveLength(2);
      expect(await storedStates(a.store, RULE)).toEqual(before);
      expect(await firingAlerts(a.store)).toEqual([]);
    }));

  it('a node the service does not know is reported once, as a warning', async () => {
    const unknown = 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu';
    return daemon(
      async (d) => {
        await d.slack.waitForPosts(1);
        await polls(d, 3);
        expect(d.slack.posts.map((p) => p.body.text)).toEqual([
          `[EVENT WARNING] ${RULE}: ${unknown} is not known to the service on mainnet: check the NodeID and network`,
        ]);
      },
      { project: { nodeIds: [NODE, unknown], every: '1s' } },
    );
  });

  it('serves /metrics with what the daemon sees, and /healthz', () =>
    daemon(async (d) => {
      await baseline(d);
      const body = await (await fetch(`${d.app.url}/metrics`)).text();
      expect(body).toContain(`avawatch_validator_status{rule="${RULE}",network="mainnet",node_id="${NODE}",status="active"} 1`);
      expect(body).toContain(`avawatch_validator_end_timestamp_seconds{rule="${RULE}",network="mainnet",node_id="${NODE}"} ${cur.endTimestamp}`);
      expect(body).toMatch(/avawatch_build_info\{version="\d+\.\d+\.\d+",nodejs="[\d.]+"\} 1/);
      expect(body).toMatch(new RegExp(`avawatch_rule_evaluations_total\\{rule="${RULE}"\\} [1-9]`));
      expect(body).toContain('avawatch_api_requests_total{api="data",endpoint="/v1/networks/{network}/validators",code="200"}');
      expect(body).toContain('avawatch_outbox_pending 0');
      expect(body).toContain('process_resident_memory_bytes');
      const health = await fetch(`${d.app.url}/healthz`);
      expect(health.status).toBe(200);
    }));

  it('never writes the webhook URL to the log or /metrics, even when Slack fails', () =>
    daemon(async (d) => {
      d.slack.failAll(500);
      await baseline(d);
      d.sim.world.setValidators('mainnet', NODE, [completedValidator(old), completedValidator(cur)]);
      await d.until(async () => (await d.app.store.outbox('pending')).find((r) => r.attempts >= 2), 'failed attempts');
      const metrics = await (await fetch(`${d.app.url}/metrics`)).text();
      const log = d.logs.join('');
      expect(log).toContain('notification failed; will retry');
      expect(log).not.toContain(WEBHOOK_SECRET_PATH);
      expect(log).not.toContain('XXXXsecretXXXXtokenXXXX');
      expect(metrics).not.toContain('XXXXsecretXXXXtokenXXXX');
    }));
});

describe('daemon: delivery pacing', () => {
  it('after a 429 the receiver is left alone until Retry-After has passed, then the rest is delivered in order', async () => {
    const nodes = ['NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ', 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu'];
    const p = (n: string) => ({ nodeId: n, txHash: `tx-${n.slice(-4)}`, startTimestamp: 1_716_000_000, endTimestamp: 1_747_536_000 });
    // One group per node, so each change is its own message.
    await withDaemon(
      {
        project: { nodeIds: nodes, every: '1s', groupBy: ['node'] },
        logLevel: 'error',
        before: (d) => {
          for (const n of nodes) d.sim.world.setValidators('mainnet', n, [activeValidator(p(n))]);
        },
      },
      async (d) => {
        await d.until(async () => Object.keys((await storedStates(d.app.store, RULE))).length === 3, 'the baseline');
        d.slack.failNext({ status: 429, retryAfter: 1, body: 'rate_limited' });
        for (const n of nodes) d.sim.world.setValidators('mainnet', n, [completedValidator(p(n))]);
        await d.slack.waitForPosts(3, 10_000);
        const [rejected, ...rest] = d.slack.attemptTimes;
        expect(d.slack.attemptTimes).toHaveLength(4);
        for (const t of rest) expect(t - rejected!).toBeGreaterThanOrEqual(1_000);
        expect(d.slack.posts.map((post) => post.body.text.split(': ')[1]?.split(' ')[0])).toEqual(nodes);
      },
    );
  });
});

describe('daemon: storms are grouped', () => {
  it('200 validators of one rule changing at once become one Slack message with the count and the first ten', async () => {
    const nodes = Array.from({ length: 200 }, (_, i) => testNodeId(i));
    const p = (n: string) => ({ nodeId: n, txHash: `tx-${n.slice(-8)}`, startTimestamp: 1_716_000_000, endTimestamp: 1_747_536_000 });
    await withDaemon(
      {
        // 200 lookups a poll exceed the keyless budget (6,000 CU a minute): this test is about grouping.
        sim: { budget: { data: { perMinute: 1_000_000, perDay: 10_000_000 } } },
        project: { nodeIds: nodes, every: '2s', api: 'budget: {perMinute: 1000000, perDay: 10000000}' },
        logLevel: 'error',
        before: (d) => {
          for (const n of nodes) d.sim.world.setValidators('mainnet', n, [activeValidator(p(n))]);
        },
      },
      async (d) => {
        const a = d.app;
        await d.until(async () => Object.keys((await storedStates(a.store, RULE))).length === 200, 'the baseline');
        for (const n of nodes) d.sim.world.setValidators('mainnet', n, [completedValidator(p(n))]);
        await d.slack.waitForPosts(1, 20_000);
        await d.until(async () => (await a.store.pendingCount()) === 0 && (await a.store.outbox('sent')).length === 200, 'all 200 marked sent');
        expect(d.slack.posts).toHaveLength(1);
        const post = d.slack.posts[0]!;
        expect(post.body.text).toBe(`🔵 INFO: ${nodes[0]} validation active → completed (+199 more)`);
        const list = JSON.stringify(post.body.blocks);
        expect(list).toContain(`• EVENT INFO: ${nodes[9]} validation active → completed`);
        expect(list).not.toContain(nodes[10]!);
        expect(list).toContain('…and 190 more');
      },
    );
  });
});

/** Text as it sits inside a JSON body. */
function inJson(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}
