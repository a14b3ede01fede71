import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// The six providers the fuzzer delivers to, on loopback, each answering in its own shape
// and able to misbehave as the real one can: a 429 with any wait (in the provider's own
// field), a 5xx, an answer only after the sender gave up (the message was received), a huge
// body, a redirect, an error page that quotes the request.

export type Provider = 'slack' | 'telegram' | 'discord' | 'pagerduty' | 'webhook' | 'alertmanager';
export const PROVIDERS: readonly Provider[] = ['slack', 'telegram', 'discord', 'pagerduty', 'webhook', 'alertmanager'];

export type Misbehaviour =
  | { kind: 'too-many'; waitSeconds: number }
  | { kind: 'error'; status: number }
  /** Receives the message, then answers 200 only after this long (after the sender's timeout). */
  | { kind: 'slow'; ms: number }
  | { kind: 'huge'; status: number; bytes: number }
  | { kind: 'redirect'; status: number }
  /** An error page that quotes the request: its path and headers (the secret path or token). */
  | { kind: 'echo'; status: number };

export interface Received {
  path: string;
  body: string;
  status: number;
  /** Alert ids the message carries (the webhook's JSON names them). */
  ids: number[];
}

export interface ProviderStandIn {
  provider: Provider;
  /** The URL the receiver is configured with (its secret part included). */
  url: string;
  /** The secret parts of it a leak would show. */
  secrets: string[];
  received: Received[];
  /** Bytes of huge answers written before the sender stopped reading, per answer. */
  hugeWritten: number[];
  /** Redirect answers given (each must end its rows as a configuration error). */
  redirects: number;
  /** Misbehave for the next `times` requests (then answer as usual). */
  misbehave(m: Misbehaviour, times: number): void;
  calm(): void;
  close(): Promise<void>;
}

export const TELEGRAM_TOKEN = '7012345678:AAHfuzzBotTokenSecret-x_YZ0123456789';
export const PAGERDUTY_KEY = 'R0uTfuzzKey0123456789abcdefABCDEF';
const SLACK_PATH = '/services/T0FUZZ000/B0FUZZ000/fuzzSlackSecretXYZ0123456789';
const DISCORD_PATH = '/api/webhooks/1234567890123456789/FuZzDiScOrDwEbHoOkToKeN_aBcDeF-0123456789';
const WEBHOOK_PATH = '/hooks/fuzz-hook-7f3c9a1e5b2d4c6e8a0b';

export async function startProvider(provider: Provider): Promise<ProviderStandIn> {
  const received: Received[] = [];
  const hugeWritten: number[] = [];
  let plan: { m: Misbehaviour; times: number } | undefined;
  let redirects = 0;
  const server = createServer((req, res) => {
    void readAll(req).then((body) => {
      const m = plan && plan.times > 0 ? plan.m : undefined;
      if (plan && m) plan.times--;
      const path = req.url ?? '';
      const status = answer(req, res, m, body);
      if (m?.kind === 'redirect') redirects++;
      received.push({ path, body, status, ids: idsOf(body) });
    });
  });

  function answer(req: IncomingMessage, res: ServerResponse, m: Misbehaviour | undefined, body: string): number {
    if (!m) return ok(res);
    switch (m.kind) {
      case 'too-many':
        return tooMany(res, m.waitSeconds);
      case 'error':
        res.writeHead(m.status, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error_code: m.status, description: 'Internal Server Error', message: 'server error' }));
        return m.status;
      case 'slow': {
        const timer = setTimeout(() => ok(res), m.ms);
        res.once('close', () => clearTimeout(timer));
        return 200;
      }
      case 'huge':
        hugeWritten.push(0);
        streamHuge(res, m.status, m.bytes, (n) => (hugeWritten[hugeWritten.length - 1] = n));
        return m.status;
      case 'redirect':
        res.writeHead(m.status, { location: `${url}/moved${req.url ?? ''}` }).end();
        return m.status;
      case 'echo': {
        const quoted = `${req.method} ${req.url} ${JSON.stringify(req.headers)} ${body.slice(0, 200)}`;
        res.writeHead(m.status, { 'content-type': 'text/html' }).end(`<html><body><h1>Error</h1><pre>Cannot ${quoted}</pre></body></html>`);
        return m.status;
      }
    }
  }

  function ok(res: ServerResponse): number {
    if (res.destroyed) return 200;
    if (provider === 'telegram') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, result: { message_id: 1, date: 0 } }));
    else if (provider === 'discord') res.writeHead(204).end();
    else if (provider === 'alertmanager') res.writeHead(200).end();
    else if (provider === 'pagerduty') res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'success', message: 'Event processed', dedup_key: 'k' }));
    else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    return provider === 'discord' ? 204 : provider === 'pagerduty' ? 202 : 200;
  }

  function tooMany(res: ServerResponse, seconds: number): number {
    const json = { 'content-type': 'application/json' };
    if (provider === 'telegram') res.writeHead(429, json).end(JSON.stringify({ ok: false, error_code: 429, description: `Too Many Requests: retry after ${seconds}`, parameters: { retry_after: seconds } }));
    else if (provider === 'discord') res.writeHead(429, { ...json, 'retry-after': String(Math.ceil(seconds)) }).end(JSON.stringify({ message: 'You are being rate limited.', retry_after: seconds, global: false }));
    else res.writeHead(429, { 'retry-after': String(seconds), ...json }).end(JSON.stringify({ message: 'rate limited' }));
    return 429;
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const path = { slack: SLACK_PATH, telegram: '', discord: DISCORD_PATH, pagerduty: '', webhook: WEBHOOK_PATH, alertmanager: '' }[provider];
  const url = `${base}${path}`;
  const secrets = { slack: [SLACK_PATH], telegram: [TELEGRAM_TOKEN], discord: [DISCORD_PATH], pagerduty: [PAGERDUTY_KEY], webhook: [WEBHOOK_PATH], alertmanager: [] }[provider];
  return {
    provider,
    url,
    secrets,
    received,
    hugeWritten,
    get redirects() {
      return redirects;
    },
    misbehave: (m, times) => (plan = { m, times }),
    calm: () => (plan = undefined),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function streamHuge(res: ServerResponse, status: number, bytes: number, onWritten: (n: number) => void): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(65_536, 0x20);
  let sent = 0;
  const pump = (): void => {
    while (sent < bytes && !res.destroyed) {
      sent += chunk.length;
      onWritten(sent);
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end('{}');
  };
  pump();
}

function idsOf(body: string): number[] {
  try {
    const json = JSON.parse(body) as { alerts?: Array<{ id?: unknown }> };
    return (json.alerts ?? []).flatMap((a) => (typeof a.id === 'number' ? [a.id] : []));
  } catch {
    return [];
  }
}

async function readAll(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
