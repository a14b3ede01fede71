import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Secret } from '../../src/base/secret.js';
import type { DeliveryError} from '../../src/channels/types.js';
import { type AlertMessage } from '../../src/channels/types.js';
import { signature, webhookChannel, type WebhookReceiver } from '../../src/channels/webhook/index.js';

const alert: AlertMessage = {
  alertId: 3,
  rule: 'l1-balance',
  kind: 'l1-validator-balance',
  status: 'firing',
  severity: 'critical',
  subject: 'v1',
  summary: 'L1 validator v1 has 0.4 AVAX left, below 0.5 AVAX',
  labels: { rule: 'l1-balance', check: 'balance' },
  details: { 'Remaining balance': '0.4 AVAX' },
  at: '2026-01-01T00:00:00.000Z',
};

describe('webhook receiver against a real HTTP server', () => {
  let server: Server;
  let url: string;
  let got: Array<{ headers: IncomingHttpHeaders; body: string }>;
  let answer: { status: number; headers?: Record<string, string> };

  beforeEach(async () => {
    got = [];
    answer = { status: 200 };
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(answer.status, answer.headers).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/token-abc123`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const receiver = (over: Partial<WebhookReceiver> = {}): WebhookReceiver => ({
    name: 'ops-hook',
    type: 'webhook',
    url: new Secret(url),
    secret: new Secret('shared-s3cret'),
    timeout: 2_000,
    minInterval: 0,
    ...over,
  });
  const signal = new AbortController().signal;

  it('posts the documented JSON with a signature the receiver can verify', async () => {
    await webhookChannel.create(receiver()).send([alert], signal);
    const [req] = got;
    expect(JSON.parse(req!.body)).toEqual({
      version: '1',
      receiver: 'ops-hook',
      status: 'firing',
      alerts: [
        {
          id: 3,
          status: 'firing',
          rule: 'l1-balance',
          kind: 'l1-validator-balance',
          severity: 'critical',
          subject: 'v1',
          summary: 'L1 validator v1 has 0.4 AVAX left, below 0.5 AVAX',
          labels: { rule: 'l1-balance', check: 'balance' },
          details: { 'Remaining balance': '0.4 AVAX' },
          at: '2026-01-01T00:00:00.000Z',
        },
      ],
    });
    const ts = req!.headers['x-avawatch-timestamp'] as string;
    expect(req!.headers['x-avawatch-signature']).toBe(signature('shared-s3cret', ts, req!.body));
    expect(req!.headers['x-avawatch-signature']).not.toBe(signature('wrong', ts, req!.body));
  });

  it('sends no signature header without a secret', async () => {
    await webhookChannel.create(receiver({ secret: undefined })).send([alert], signal);
    expect(got[0]!.headers['x-avawatch-signature']).toBeUndefined();
  });

  it('retries 5xx and 429 (with Retry-After), not 410; never names the URL', async () => {
    answer = { status: 503 };
    const e1 = await webhookChannel.create(receiver()).send([alert], signal).catch((e: unknown) => e);
    expect(e1).toMatchObject({ retryable: true, reason: 'http_503' });
    answer = { status: 429, headers: { 'retry-after': '7' } };
    expect(await webhookChannel.create(receiver()).send([alert], signal).catch((e: unknown) => e)).toMatchObject({ retryable: true, retryAfterMs: 7000 });
    answer = { status: 410 };
    const e3 = (await webhookChannel.create(receiver()).send([alert], signal).catch((e: unknown) => e)) as DeliveryError;
    expect(e3).toMatchObject({ retryable: false, reason: 'http_410', message: 'webhook receiver "ops-hook": HTTP 410' });
    expect([e1, e3].map(String).join()).not.toContain('token-abc123');
  });
});
