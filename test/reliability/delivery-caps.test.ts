import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { startTelegram, TELEGRAM_CHAT, TELEGRAM_TOKEN } from '../helpers/chat-providers.js';
import { CHANGE, startReceiverDaemon, type OneReceiver, type ReceiverDaemon } from '../helpers/one-receiver.js';

// Provider answers that once made delivery wait for a day, overflow a timer, or send a copy
// on every retry: each ends bounded, and the outbox says what happened. The daemon runs on
// the fixture's fake clock (test/helpers/daemon.ts); the providers are real servers on loopback.

type Finished = (fn: () => Promise<void> | void) => void;

/** The daemon with one receiver, past its baseline; `change()` makes one notification. */
const setup = (onTestFinished: Finished, receiver: OneReceiver, delivery = '{backoff: 50ms, backoffMax: 100ms}'): Promise<ReceiverDaemon> =>
  startReceiverDaemon(onTestFinished, receiver, delivery);

/** An HTTP receiver that takes every post and answers only after `answerAfterMs`. */
async function startSlowReceiver(onTestFinished: Finished, answerAfterMs: number) {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      setTimeout(() => res.end('ok'), answerAfterMs).unref();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onTestFinished(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/T0SLOWSECRET/xyzzy`, bodies };
}

const failed = async (app: App, reason: string) => (await app.metrics.notificationsFailed.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;

describe('delivery caps', () => {
  it('Telegram asking to wait 3,000,000 s: no timer overflow, each retry after delivery.maxRetryAfter naming the ask, delivered once it relents', async ({ onTestFinished }) => {
    const telegram = await startTelegram();
    onTestFinished(() => telegram.close());
    const c = await setup(
      onTestFinished,
      { name: 'tg', yaml: `{name: tg, type: telegram, botToken: "${TELEGRAM_TOKEN}", chatId: "${TELEGRAM_CHAT}", apiUrl: "${telegram.apiUrl}", minInterval: 10ms}` },
      '{backoff: 50ms, backoffMax: 100ms, maxRetryAfter: 300ms}',
    );
    telegram.failAll(() => telegram.tooMany(3_000_000));
    c.change();
    const row = await c.until(async () => (await c.app.store.outbox('pending')).find((r) => r.attempts >= 3), 'three refused attempts', { within: 15_000 });
    expect(row.lastError).toBe(
      'telegram receiver "tg": HTTP 429: Too Many Requests: retry after 3000000; telegram asked to wait 34d17h20m, longer than delivery.maxRetryAfter 300ms',
    );
    expect(await c.app.store.outbox('dead')).toEqual([]);
    telegram.failAll(undefined);
    await c.settle(telegram.waitFor(1), 'the Telegram message');
    await c.until(async () => (await c.app.store.outbox('sent'))[0], 'the row marked sent');
    // Every attempt is one the provider saw: nothing in between ran away.
    expect((await c.app.store.outbox('sent'))[0]!.attempts).toBe(telegram.received.length);
    expect(telegram.accepted()).toHaveLength(1);
    expect(c.warnings.filter((w) => w === 'TimeoutOverflowWarning')).toEqual([]);
  });

  it('a webhook that takes the post but answers after the timeout gets one more copy, never a third; the row says so', async ({ onTestFinished }) => {
    // A timeout long enough that a busy machine still sends the post within it (200 ms could time out before sending: an attempt of no unknown outcome, and a third post).
    const slow = await startSlowReceiver(onTestFinished, 5_000);
    const c = await setup(onTestFinished, { name: 'hook', yaml: `{name: hook, type: webhook, url: "${slow.url}", timeout: 1s}` });
    c.change();
    const dead = await c.until(async () => (await c.app.store.outbox('dead'))[0], 'the row given up', { within: 15_000 });
    expect(dead).toMatchObject({
      attempts: 2,
      lastError:
        'unconfirmed: sent twice without an answer, so it may have been delivered; not sent a third time; last error: webhook receiver "hook": no answer within 1s after the request was sent (it may have been delivered)',
      summary: CHANGE,
    });
    expect(slow.bodies).toHaveLength(2);
    expect(await failed(c.app, 'unconfirmed')).toBe(1);
    expect(await failed(c.app, 'timeout')).toBe(2);
  });

  it('an SMTP server that takes the message and never confirms it gets one more copy, never a third', async ({ onTestFinished }) => {
    let messages = 0;
    const smtp = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      authOptional: true,
      logger: false,
      onData(stream) {
        stream.resume();
        stream.on('end', () => messages++); // and never answers 250
      },
    });
    await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
    onTestFinished(() => new Promise<void>((r) => smtp.close(() => r())));
    const port = (smtp.server.address() as AddressInfo).port;
    const c = await setup(onTestFinished, {
      name: 'mail',
      yaml: `{name: mail, type: email, smtp: {host: 127.0.0.1, port: ${port}}, from: avawatch@example.com, to: ops@example.com, timeout: 300ms}`,
    });
    c.change();
    // real wait: the wait for the 250 is nodemailer's socket timeout, on the real clock: paced steps.
    const dead = await c.until(async () => (await c.app.store.outbox('dead'))[0], 'the row given up', { within: 15_000, pace: 20 });
    expect(dead.lastError).toBe(
      'unconfirmed: sent twice without an answer, so it may have been delivered; not sent a third time; last error: email receiver "mail": no answer in time after the message was sent (it may have been delivered)',
    );
    expect(messages).toBe(2);
  }, 40_000); // paced on the real clock: slower on a loaded machine

  it('a webhook URL that redirects is dead-lettered at once as a configuration error, naming the host only', async ({ onTestFinished }) => {
    let posts = 0;
    const server = createServer((req, res) => {
      posts++;
      req.resume();
      res.writeHead(301, { location: 'https://hooks.example.net/services/T0MOVEDSECRET/newTokenValue' }).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/T0OLDSECRET/oldTokenValue`;
    const c = await setup(onTestFinished, { name: 'hook', yaml: `{name: hook, type: webhook, url: "${url}"}` });
    c.change();
    const dead = await c.until(async () => (await c.app.store.outbox('dead'))[0], 'a dead letter');
    expect(dead).toMatchObject({
      attempts: 1,
      lastError: 'webhook receiver "hook": the receiver\'s URL redirects (HTTP 301 to hooks.example.net): a configuration error; fix the URL',
    });
    expect(posts).toBe(1);
    expect(await failed(c.app, 'redirect')).toBe(1);
  });
});
