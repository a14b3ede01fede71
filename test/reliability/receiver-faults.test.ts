import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { freePort } from '../helpers/ports.js';
import { CHANGE, RULE, startReceiverDaemon, type OneReceiver, type ReceiverDaemon } from '../helpers/one-receiver.js';
import { startBlackHole, startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

// Receivers that fail for a while, rate-limit, refuse for good, or never answer. Whatever
// they do, every notification ends delivered once, or dead-lettered with the reason. The
// daemon runs on the fixture's fake clock (test/helpers/daemon.ts): a backoff, a Retry-After
// or a timeout costs no real time; the receivers are real servers on loopback.

type Finished = (fn: () => Promise<void> | void) => void;

/** Every outbox row ended delivered or dead with a reason; none pending or lost. */
async function settled(app: App): Promise<Array<{ state: string; lastError: string | null; attempts: number; receiver: string }>> {
  const rows = await app.store.outbox();
  expect(await app.store.pendingCount()).toBe(0);
  for (const r of rows) {
    expect(['sent', 'dead']).toContain(r.state);
    if (r.state === 'dead') expect(r.lastError).toMatch(/\S/);
  }
  return rows;
}

const setup = (onTestFinished: Finished, receiver: OneReceiver): Promise<ReceiverDaemon> => startReceiverDaemon(onTestFinished, receiver);

const slackReceiver: OneReceiver = {
  name: 'ops-slack',
  yaml: (webhookUrl) => `{name: ops-slack, type: slack, webhookUrl: "${webhookUrl}", minInterval: 10ms, timeout: 1s}`,
};
const mailReceiver = (port: number, timeout = '2s') => ({
  name: 'ops-mail',
  yaml: `{name: ops-mail, type: email, smtp: {host: 127.0.0.1, port: ${port}}, from: avawatch@example.com, to: ops@example.com, timeout: ${timeout}}`,
});
const failed = async (app: App, reason: string) => (await app.metrics.notificationsFailed.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;
const pendingRow = async (app: App, minAttempts: number) => (await app.store.outbox('pending')).find((r) => r.attempts >= minAttempts);

describe('Slack faults', () => {
  it('5xx for a long stretch: retried with backoff the whole time, then delivered exactly once', async ({ onTestFinished }) => {
    const c = await setup(onTestFinished, slackReceiver);
    const { slack } = c;
    slack.failAll(503);
    c.change();
    const row = await c.until(() => pendingRow(c.app, 15), 'fifteen failed attempts', { within: 20_000 });
    expect(row.lastError).toBe('slack receiver "ops-slack": HTTP 503 (error)');
    expect(await failed(c.app, 'http_503')).toBeGreaterThanOrEqual(15);
    expect(slack.posts).toHaveLength(0);

    slack.failAll(undefined);
    await slack.waitForPosts(1);
    await c.until(async () => (await c.app.store.outbox('sent')).length === 1, 'the row marked sent');
    expect(slack.posts.map((p) => p.body.text)).toEqual([`[EVENT INFO] ${RULE}: ${CHANGE}`]);
    const [sent] = await settled(c.app);
    expect(sent).toMatchObject({ state: 'sent', receiver: 'ops-slack' });
    // Every attempt is one the receiver saw: the failed ones and the one that got through.
    expect(sent!.attempts).toBe(slack.attempts);
  });

  it('429 with Retry-After, several in a row: each wait honoured, then delivered once', async ({ onTestFinished }) => {
    const c = await setup(onTestFinished, slackReceiver);
    const { slack } = c;
    // Retry-After (1 s) is longer than the whole backoff (at most 200 ms): it must win.
    slack.failNext({ status: 429, retryAfter: 1, body: 'rate_limited' }, { status: 429, retryAfter: 1, body: 'rate_limited' });
    c.change();
    await slack.waitForPosts(1, 15_000);
    await c.until(async () => (await c.app.store.outbox('sent')).length === 1, 'the row marked sent');
    expect(slack.attempts).toBe(3);
    const [first, second, third] = slack.attemptTimes as [number, number, number];
    expect(second - first).toBeGreaterThanOrEqual(1_000);
    expect(third - second).toBeGreaterThanOrEqual(1_000);
    expect(slack.posts).toHaveLength(1);
    expect(await failed(c.app, 'http_429')).toBe(2);
    expect(await settled(c.app)).toMatchObject([{ state: 'sent', attempts: 3 }]);
  });

  it('410 (channel archived): dead-lettered at once with the reason, and the queue is not blocked', async ({ onTestFinished }) => {
    const c = await setup(onTestFinished, slackReceiver);
    const { slack } = c;
    slack.failNext({ status: 410, body: 'channel_is_archived' });
    c.change();
    const dead = await c.until(async () => (await c.app.store.outbox('dead'))[0], 'a dead letter');
    expect(dead).toMatchObject({ attempts: 1, lastError: 'slack receiver "ops-slack": HTTP 410: channel archived or webhook revoked (channel_is_archived)', summary: CHANGE });
    expect(slack.attempts).toBe(1);
    // A dead letter is not retried, and what comes after it still goes out.
    c.change(2);
    await slack.waitForPosts(1);
    await c.until(async () => (await c.app.store.outbox('sent')).length === 1, 'the next row marked sent');
    expect(slack.attempts).toBe(2);
    expect(slack.posts[0]!.body.text).toContain('new validation period');
    expect((await settled(c.app)).map((r) => r.state)).toEqual(['sent', 'dead']);
  });
});

describe('SMTP faults', () => {
  it('connection refused: retried until the server is up, then delivered once', async ({ onTestFinished }) => {
    const port = await freePort(); // nothing listens there
    const c = await setup(onTestFinished, mailReceiver(port));
    c.change();
    const row = await c.until(() => pendingRow(c.app, 3), 'three refused attempts');
    expect(row.lastError).toBe('email receiver "ops-mail": ECONNREFUSED (ESOCKET)');
    expect(await failed(c.app, 'network')).toBeGreaterThanOrEqual(3);

    const sink: SmtpSink = await startSmtpSink(undefined, { port });
    onTestFinished(() => sink.close());
    const [mail] = await c.settle(sink.waitFor(1), 'the mail');
    expect(mail!.subject).toBe(`[EVENT INFO] ${RULE}: ${CHANGE}`);
    await c.until(async () => (await c.app.store.outbox('sent')).length === 1, 'the row marked sent');
    expect(sink.messages).toHaveLength(1);
    expect(await settled(c.app)).toMatchObject([{ state: 'sent', receiver: 'ops-mail' }]);
  });

  it('black-holed (accepts TCP, never says a word): each attempt times out in seconds and is retried; delivered once the server answers', async ({ onTestFinished }) => {
    const hole = await startBlackHole();
    // Not shorter: on a loaded machine a real exchange with the sink could outlast the deadline,
    // and a copy whose answer came late is (rightly) sent once more.
    const c = await setup(onTestFinished, mailReceiver(hole.port, '1s'));
    c.change();
    const row = await c.until(() => pendingRow(c.app, 2), 'two timed-out attempts', { within: 15_000 });
    expect(row.lastError).toBe('email receiver "ops-mail": no answer in time');
    expect(await failed(c.app, 'timeout')).toBeGreaterThanOrEqual(2);

    await hole.close();
    const sink = await startSmtpSink(undefined, { port: hole.port });
    onTestFinished(() => sink.close());
    await c.settle(sink.waitFor(1, 15_000), 'the mail');
    await c.until(async () => (await c.app.store.outbox('sent')).length === 1, 'the row marked sent');
    expect(sink.messages).toHaveLength(1);
    expect(await settled(c.app)).toMatchObject([{ state: 'sent' }]);
  });

  it('451 (greylisting), again and again: retried, delivered once it is accepted', async ({ onTestFinished }) => {
    const sink = await startSmtpSink();
    onTestFinished(() => sink.close());
    const c = await setup(onTestFinished, mailReceiver(sink.port));
    sink.failNext(...Array.from({ length: 4 }, () => ({ code: 451, message: 'greylisted, try again later' })));
    c.change();
    await c.settle(sink.waitFor(1), 'the mail');
    await c.until(async () => (await c.app.store.outbox('sent')).length === 1, 'the row marked sent');
    expect(await failed(c.app, 'smtp_451')).toBe(4);
    expect(sink.messages).toHaveLength(1);
    expect(await settled(c.app)).toMatchObject([{ state: 'sent', attempts: 5 }]);
  });

  it('550 (no such mailbox): dead-lettered at once with the server’s reply', async ({ onTestFinished }) => {
    const sink = await startSmtpSink();
    onTestFinished(() => sink.close());
    const c = await setup(onTestFinished, mailReceiver(sink.port));
    sink.failNext({ code: 550, message: 'Mailbox unavailable' });
    c.change();
    const dead = await c.until(async () => (await c.app.store.outbox('dead'))[0], 'a dead letter');
    expect(dead.attempts).toBe(1);
    expect(dead.lastError).toMatch(/^email receiver "ops-mail": SMTP 550 .*Mailbox unavailable/);
    expect(await failed(c.app, 'smtp_550')).toBe(1);
    expect(sink.messages).toHaveLength(0);
    expect((await settled(c.app)).map((r) => r.state)).toEqual(['dead']);
  });
});
