import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from './errors.js';
import { requestContext } from './context.js';
import { parseRetryAfter } from '../base/retry.js';
import { HttpClient, type HttpClientOptions } from './http.js';
import { Limiter } from './limiter.js';
import { clockAt, clockOf, systemClock } from '../base/clock.js';

type Reply = { status: number; body?: string; headers?: Record<string, string>; hang?: boolean; drop?: boolean };

describe('HttpClient against a real local server', () => {
  let server: Server;
  let url: string;
  let replies: Reply[];
  let seen: IncomingHttpHeaders[];
  let sleeps: number[];
  const agent = new Agent({ headersTimeout: 500, bodyTimeout: 500 });

  beforeEach(async () => {
    replies = [];
    seen = [];
    sleeps = [];
    server = createServer((req, res) => {
      seen.push(req.headers);
      const reply = replies.shift() ?? { status: 200, body: '{"ok":true}' };
      if (reply.hang) return; // never answers
      if (reply.drop) return void req.socket.destroy(); // closes the connection without an answer
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(reply.body ?? '');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  function client(over: Partial<HttpClientOptions> = {}): HttpClient {
    return new HttpClient({
      api: 'data',
      baseUrl: url,
      dispatcher: agent,
      headers: {},
      timeoutMs: 1_000,
      maxResponseBytes: 1_000,
      retries: 3,
      backoffInitialMs: 100,
      backoffMaxMs: 1_000,
      maxRetryAfterMs: 10_000,
      clock: systemClock,
      random: () => 1,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      ...over,
    });
  }

  const req = { endpoint: '/v1/x/{id}', path: '/v1/x/abc' };

  it('retries 5xx and 429 with exponential backoff, honouring Retry-After as the least wait', async () => {
    replies = [{ status: 503 }, { status: 429, headers: { 'retry-after': '3' } }, { status: 502 }, { status: 200, body: '{"n":1}' }];
    await expect(client().getJson(req)).resolves.toEqual({ n: 1 });
    expect(sleeps).toEqual([100, 3_000, 400]);
  });

  it('does not retry other 4xx and names endpoint, status and the service message (array form)', async () => {
    replies = [{ status: 400, body: JSON.stringify({ message: ['pageSize must not be greater than 100', 'bad token'], error: 'Bad Request', statusCode: 400 }) }];
    const error = await client().getJson(req).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toBe('data API GET /v1/x/abc: HTTP 400: pageSize must not be greater than 100; bad token');
    expect(seen).toHaveLength(1);
  });

  it('gives up after the retries and reports the last failure', async () => {
    replies = Array.from({ length: 4 }, () => ({ status: 500, body: '{"message":"boom","statusCode":500}' }));
    await expect(client().getJson(req)).rejects.toThrow('data API GET /v1/x/abc: HTTP 500: boom');
    expect(seen).toHaveLength(4);
  });

  it('fails instead of stalling when Retry-After exceeds the limit', async () => {
    replies = [{ status: 429, headers: { 'retry-after': '3600' } }];
    await expect(client().getJson(req)).rejects.toThrow('HTTP 429');
    expect(sleeps).toEqual([]);
  });

  it('sends the API key header only when a key is set', async () => {
    await client({ headers: { 'x-glacier-api-key': 'k1' } }).getJson(req);
    await client().getJson(req);
    expect(seen[0]?.['x-glacier-api-key']).toBe('k1');
    expect(seen[1]?.['x-glacier-api-key']).toBeUndefined();
  });

  it('refuses a body over the size limit', async () => {
    replies = [{ status: 200, body: JSON.stringify({ big: 'x'.repeat(5_000) }) }];
    await expect(client().getJson(req)).rejects.toThrow('response larger than 1000 bytes');
  });

  it('reports malformed JSON without retrying', async () => {
    replies = [{ status: 200, body: '{"validators": [' }];
    await expect(client().getJson(req)).rejects.toThrow('HTTP 200 with a body that is not JSON');
    expect(seen).toHaveLength(1);
  });

  it('times out a request whose headers never come, and retries it', async () => {
    replies = [{ status: 0, hang: true }, { status: 200, body: '{"late":false}' }];
    await expect(client({ timeoutMs: 300 }).getJson(req)).resolves.toEqual({ late: false });
    expect(sleeps).toHaveLength(1);
  });

  it('makes identical GETs of different rules once: in flight or within the window, but never older than the asking rule allows', async () => {
    const deduped: string[] = [];
    let now = Date.UTC(2026, 2, 1);
    const c = client({ dedupeWindowMs: 5_000, onDedupe: (e) => deduped.push(e), clock: clockAt(() => now) });
    const ask = (maxAgeMs: number) => requestContext.run({ severity: 'critical', maxAgeMs }, () => c.getJson(req));
    const [a, b] = await Promise.all([ask(15_000), ask(15_000)]);
    expect([a, b, seen.length]).toEqual([{ ok: true }, { ok: true }, 1]);
    (b as { ok: boolean }).ok = false; // a rule's copy is its own
    expect(await ask(15_000)).toEqual({ ok: true });
    expect(seen).toHaveLength(1);
    now += 60;
    await ask(50); // a rule polling every 100 ms wants nothing older than 50 ms
    expect(seen).toHaveLength(2);
    await c.getJson({ ...req, path: '/v1/x/other' });
    expect(seen).toHaveLength(3);
    expect(deduped).toEqual(['/v1/x/{id}', '/v1/x/{id}']);
  });

  it('ages a shared answer on the steady clock: with the wall stepped back an hour, an answer 10 s old is not shared again', async () => {
    let wall = Date.UTC(2026, 2, 1);
    let steady = 0;
    const c = client({ dedupeWindowMs: 5_000, clock: clockOf({ now: () => wall, mono: () => steady }) });
    const ask = () => requestContext.run({ severity: 'critical', maxAgeMs: 30_000 }, () => c.getJson(req));
    await ask();
    wall -= 3_600_000;
    steady += 10_000;
    await ask();
    expect(seen).toHaveLength(2);
    // Stepped forward a day, 1 s later: still within the window, shared.
    wall += 86_400_000;
    steady += 1_000;
    await ask();
    expect(seen).toHaveLength(2);
  });

  it('waits for compute units before each attempt and tells the limiter what the service said', async () => {
    const limiter = new Limiter({ limits: { perMinute: 6_000, perDay: 1_000 }, clock: systemClock });
    replies = [{ status: 200, body: '{}', headers: { 'ratelimit-remaining': '100' } }];
    await client({ limiter }).getJson({ endpoint: '/v1/networks/{network}/validators/{nodeId}', path: '/v1/networks/mainnet/validators/NodeID-1' });
    expect(limiter.remainingDay()).toBe(980);
    expect(limiter.remainingMinute()).toBe(100);
    const spent = new Limiter({ limits: { perMinute: 6_000, perDay: 10 }, clock: systemClock });
    await expect(client({ limiter: spent }).getJson(req)).rejects.toThrow("data API GET /v1/x/abc: the day's budget of 10 compute units is spent");
    expect(seen).toHaveLength(1);
  });

  it('a connection closed without an answer reads "connection closed", a refused one "connection refused", with the code kept', async () => {
    const req = { endpoint: '/v1/x', path: '/v1/x' };
    replies = [{ status: 0, drop: true }];
    const closed = await client({ retries: 0 }).getJson(req).catch((e: unknown) => e);
    expect(closed).toBeInstanceOf(ApiError);
    expect((closed as ApiError).message).toBe('data API GET /v1/x: network error: connection closed (UND_ERR_SOCKET)');
    expect((closed as ApiError).details.network).toBe('connection closed');
    const refused = await client({ retries: 0, baseUrl: 'http://127.0.0.1:1' }).getJson(req).catch((e: unknown) => e);
    expect((refused as ApiError).message).toBe('data API GET /v1/x: network error: connection refused (ECONNREFUSED)');
  });

  it('counts compute units only for attempts the service answered: a timeout, a refused connection and an abort give theirs back', async () => {
    const limiter = new Limiter({ limits: { perMinute: 6_000, perDay: 1_000 }, clock: systemClock });
    const counted: number[] = [];
    limiter.onSpend = (cu) => counted.push(cu);
    const validators = { endpoint: '/v1/networks/{network}/validators/{nodeId}', path: '/v1/networks/mainnet/validators/NodeID-1' };
    // A hang (timed out), then a 503 (an answer: counted), then a success.
    replies = [{ status: 0, hang: true }, { status: 503, body: '{"message":"down"}' }, { status: 200, body: '{}' }];
    await client({ limiter, timeoutMs: 300 }).getJson(validators);
    expect(counted).toEqual([20, 20]);
    expect(limiter.remainingDay()).toBe(960);
    // Nobody listens on that port: every attempt is refused.
    const closed = client({ limiter, baseUrl: 'http://127.0.0.1:1', retries: 1 });
    await expect(closed.getJson(validators)).rejects.toThrow(/network error/);
    // Aborted while waiting for the headers.
    replies = [{ status: 0, hang: true }];
    const abort = new AbortController();
    const asked = client({ limiter, retries: 0 }).getJson({ ...validators, signal: abort.signal });
    await expect.poll(() => seen.length).toBe(4);
    abort.abort();
    await expect(asked).rejects.toThrow();
    expect(counted).toEqual([20, 20]);
    expect(limiter.remainingDay()).toBe(960);
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('2', 0)).toBe(2_000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 5_000)).toBe(5_000);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
  });
});
