import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { composeApp } from '../../src/app/compose.js';
import { loadConfig } from '../../src/config/load.js';
import { activeValidator, completedValidator } from '../../src/sim/samples.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { freePort } from '../helpers/alertmanager.js';
import { startSlackReceiver, type SlackReceiver } from '../helpers/slack-receiver.js';
import { startBlackHole, startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import { waitUntil } from '../helpers/wait.js';
import { storedStates } from '../helpers/stored-states.js';

// Receivers that fail for a while, rate-limit, refuse for good, or never answer. Whatever
// they do, every notification ends delivered once, or dead-lettered with the reason.

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const RULE = 'my-validators';
const period = { nodeId: NODE, txHash: 'tx-reliability-1', startTimestamp: 1_716_000_000, endTimestamp: 1_747_536_000 };
const CHANGE = `${NODE} validation active → completed`;

type Finished = (fn: () => Promise<void> | void) => void;

interface Ctx {
  sim: SimServer;
  app: App;
  /** Makes the validator's next change happen (active → completed, then a new period: active from its start, ACP-41). */
  change(step?: 1 | 2): void;
  /** Every outbox row ended delivered or dead with a reason; none pending or lost. */
  settled(): Array<{ state: string; lastError: string | null; attempts: number; receiver: string }>;
}

/** The daemon with one receiver (Slack or email), past its baseline. */
async function setup(onTestFinished: Finished, receiver: { name: string; yaml: string }): Promise<Ctx> {
  const sim = await startSim();
  sim.world.setValidators('mainnet', NODE, [activeValidator(period)]);
  const dir = mkdtempSync(join(tmpdir(), 'avawatch-receivers-'));
  const config = join(dir, 'avawatch.yaml');
  writeFileSync(
    config,
    `api: {dataUrl: "${sim.url}", retries: 0, timeout: 2s}
state: {path: "${join(dir, 'state.db')}"}
server: {listen: "127.0.0.1:0"}
route: {receivers: [${receiver.name}]}
receivers:
  - ${receiver.yaml}
delivery: {backoff: 50ms, backoffMax: 200ms}
ruleFiles: [rules.yaml]
`,
  );
  writeFileSync(join(dir, 'rules.yaml'), `rules:\n  - {name: ${RULE}, kind: validator-status, every: 1s, severity: critical, network: mainnet, nodeIds: [${NODE}]}\n`);
  const app = composeApp(loadConfig(config, {}), { logLevel: process.env['RELIABILITY_LOG'] ?? 'silent', readable: false }).app;
  onTestFinished(async () => {
    await app.stop();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await app.start();
  await waitUntil(() => storedStates(app.store, RULE)[NODE], 'the baseline');
  return {
    sim,
    app,
    change(step = 1) {
      const next = { ...period, txHash: 'tx-reliability-2', startTimestamp: period.endTimestamp + 60, endTimestamp: period.endTimestamp + 86_400 * 30 };
      sim.world.setValidators('mainnet', NODE, step === 1 ? [completedValidator(period)] : [completedValidator(period), activeValidator(next)]);
    },
    settled() {
      const rows = app.store.outbox();
      expect(app.store.pendingCount()).toBe(0);
      for (const r of rows) {
        expect(['sent', 'dead']).toContain(r.state);
        if (r.state === 'dead') expect(r.lastError).toMatch(/\S/);
      }
      return rows;
    },
  };
}

const slackReceiver = (slack: SlackReceiver) => ({
  name: 'ops-slack',
  yaml: `{name: ops-slack, type: slack, webhookUrl: "${slack.webhookUrl}", minInterval: 10ms, timeout: 1s}`,
});
const mailReceiver = (port: number, timeout = '2s') => ({
  name: 'ops-mail',
  yaml: `{name: ops-mail, type: email, smtp: {host: 127.0.0.1, port: ${port}}, from: avawatch@example.com, to: ops@example.com, timeout: ${timeout}}`,
});
const failed = async (app: App, reason: string) => (await app.metrics.notificationsFailed.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;
const pendingRow = (app: App, minAttempts: number) => app.store.outbox('pending').find((r) => r.attempts >= minAttempts);

describe.concurrent('Slack faults', () => {
  it('5xx for a long stretch: retried with backoff the whole time, then delivered exactly once', async ({ onTestFinished }) => {
    const slack = await startSlackReceiver();
    onTestFinished(() => slack.close());
    const c = await setup(onTestFinished, slackReceiver(slack));
    slack.failAll(503);
    c.change();
    const row = await waitUntil(() => pendingRow(c.app, 15), 'fifteen failed attempts', 20_000);
    expect(row.lastError).toBe('slack receiver "ops-slack": HTTP 503 (error)');
    expect(await failed(c.app, 'http_503')).toBeGreaterThanOrEqual(15);
    expect(slack.posts).toHaveLength(0);

    slack.failAll(undefined);
    await slack.waitForPosts(1);
    await waitUntil(() => c.app.store.outbox('sent').length === 1, 'the row marked sent');
    expect(slack.posts.map((p) => p.body.text)).toEqual([`[EVENT INFO] ${RULE}: ${CHANGE}`]);
    const [sent] = c.settled();
    expect(sent).toMatchObject({ state: 'sent', receiver: 'ops-slack' });
    // Every attempt is one the receiver saw: the failed ones and the one that got through.
    expect(sent!.attempts).toBe(slack.attempts);
  }, 40_000);

  it('429 with Retry-After, several in a row: each wait honoured, then delivered once', async ({ onTestFinished }) => {
    const slack = await startSlackReceiver();
    onTestFinished(() => slack.close());
    const c = await setup(onTestFinished, slackReceiver(slack));
    // Retry-After (1 s) is longer than the whole backoff (at most 200 ms): it must win.
    slack.failNext({ status: 429, retryAfter: 1, body: 'rate_limited' }, { status: 429, retryAfter: 1, body: 'rate_limited' });
    c.change();
    await slack.waitForPosts(1, 15_000);
    await waitUntil(() => c.app.store.outbox('sent').length === 1, 'the row marked sent');
    expect(slack.attempts).toBe(3);
    const [first, second, third] = slack.attemptTimes as [number, number, number];
    expect(second - first).toBeGreaterThanOrEqual(1_000);
    expect(third - second).toBeGreaterThanOrEqual(1_000);
    expect(slack.posts).toHaveLength(1);
    expect(await failed(c.app, 'http_429')).toBe(2);
    expect(c.settled()).toMatchObject([{ state: 'sent', attempts: 3 }]);
  }, 40_000);

  it('410 (channel archived): dead-lettered at once with the reason, and the queue is not blocked', async ({ onTestFinished }) => {
    const slack = await startSlackReceiver();
    onTestFinished(() => slack.close());
    const c = await setup(onTestFinished, slackReceiver(slack));
    slack.failNext({ status: 410, body: 'channel_is_archived' });
    c.change();
    const dead = await waitUntil(() => c.app.store.outbox('dead')[0], 'a dead letter');
    expect(dead).toMatchObject({ attempts: 1, lastError: 'slack receiver "ops-slack": HTTP 410: channel archived or webhook revoked (channel_is_archived)', summary: CHANGE });
    expect(slack.attempts).toBe(1);
    // A dead letter is not retried, and what comes after it still goes out.
    c.change(2);
    await slack.waitForPosts(1);
    await waitUntil(() => c.app.store.outbox('sent').length === 1, 'the next row marked sent');
    expect(slack.attempts).toBe(2);
    expect(slack.posts[0]!.body.text).toContain('new validation period');
    expect(c.settled().map((r) => r.state)).toEqual(['sent', 'dead']);
  }, 40_000);
});

describe.concurrent('SMTP faults', () => {
  it('connection refused: retried until the server is up, then delivered once', async ({ onTestFinished }) => {
    const port = await freePort(); // nothing listens there
    const c = await setup(onTestFinished, mailReceiver(port));
    c.change();
    const row = await waitUntil(() => pendingRow(c.app, 3), 'three refused attempts');
    expect(row.lastError).toBe('email receiver "ops-mail": ECONNREFUSED (ESOCKET)');
    expect(await failed(c.app, 'network')).toBeGreaterThanOrEqual(3);

    const sink: SmtpSink = await startSmtpSink(undefined, { port });
    onTestFinished(() => sink.close());
    const [mail] = await sink.waitFor(1);
    expect(mail!.subject).toBe(`[EVENT INFO] ${RULE}: ${CHANGE}`);
    await waitUntil(() => c.app.store.outbox('sent').length === 1, 'the row marked sent');
    expect(sink.messages).toHaveLength(1);
    expect(c.settled()).toMatchObject([{ state: 'sent', receiver: 'ops-mail' }]);
  }, 40_000);

  it('black-holed (accepts TCP, never says a word): each attempt times out in seconds and is retried; delivered once the server answers', async ({ onTestFinished }) => {
    const hole = await startBlackHole();
    // Not shorter: on a loaded machine a real exchange with the sink could outlast the deadline,
    // and a copy whose answer came late is (rightly) sent once more.
    const c = await setup(onTestFinished, mailReceiver(hole.port, '1s'));
    c.change();
    const row = await waitUntil(() => pendingRow(c.app, 2), 'two timed-out attempts', 15_000);
    expect(row.lastError).toBe('email receiver "ops-mail": no answer in time');
    expect(await failed(c.app, 'timeout')).toBeGreaterThanOrEqual(2);

    await hole.close();
    const sink = await startSmtpSink(undefined, { port: hole.port });
    onTestFinished(() => sink.close());
    await sink.waitFor(1, 15_000);
    await waitUntil(() => c.app.store.outbox('sent').length === 1, 'the row marked sent');
    expect(sink.messages).toHaveLength(1);
    expect(c.settled()).toMatchObject([{ state: 'sent' }]);
  }, 40_000);

  it('451 (greylisting), again and again: retried, delivered once it is accepted', async ({ onTestFinished }) => {
    const sink = await startSmtpSink();
    onTestFinished(() => sink.close());
    const c = await setup(onTestFinished, mailReceiver(sink.port));
    sink.failNext(...Array.from({ length: 4 }, () => ({ code: 451, message: 'greylisted, try again later' })));
    c.change();
    await sink.waitFor(1);
    await waitUntil(() => c.app.store.outbox('sent').length === 1, 'the row marked sent');
    expect(await failed(c.app, 'smtp_451')).toBe(4);
    expect(sink.messages).toHaveLength(1);
    expect(c.settled()).toMatchObject([{ state: 'sent', attempts: 5 }]);
  }, 40_000);

  it('550 (no such mailbox): dead-lettered at once with the server’s reply', async ({ onTestFinished }) => {
    const sink = await startSmtpSink();
    onTestFinished(() => sink.close());
    const c = await setup(onTestFinished, mailReceiver(sink.port));
    sink.failNext({ code: 550, message: 'Mailbox unavailable' });
    c.change();
    const dead = await waitUntil(() => c.app.store.outbox('dead')[0], 'a dead letter');
    expect(dead.attempts).toBe(1);
    expect(dead.lastError).toMatch(/^email receiver "ops-mail": SMTP 550 .*Mailbox unavailable/);
    expect(await failed(c.app, 'smtp_550')).toBe(1);
    expect(sink.messages).toHaveLength(0);
    expect(c.settled().map((r) => r.state)).toEqual(['dead']);
  }, 40_000);
});
