import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../base/clock.js';
import { Secret, scrub } from '../base/secret.js';
import { failUrlOf, Heartbeat, type HeartbeatOptions } from './index.js';

// A healthchecks.io stand-in on loopback: the path of each ping, its body, and the status it answers.
let server: Server;
let base: string;
let pings: Array<{ path: string; body: string }>;
let status: number;

beforeEach(async () => {
  pings = [];
  status = 200;
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      pings.push({ path: req.url ?? '', body });
      res.writeHead(status).end('OK');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  vi.useRealTimers();
  await new Promise((r) => server.close(r));
});

function heartbeat(blind: () => readonly string[] | 'starting', over: Partial<HeartbeatOptions> = {}): Heartbeat {
  const url = new Secret(`${base}/ping/5f3c-secret-uuid`);
  return new Heartbeat({ url, everyMs: 60_000, timeoutMs: 2_000, clock: systemClock, blindness: blind, redact: (t) => scrub(t, [url]), ...over });
}

describe('heartbeat', () => {
  it('pings the URL when every source answered, and the failure URL (url + /fail) while one is blind, saying why', async () => {
    let blind: string[] = [];
    const hb = heartbeat(() => blind);
    expect(await hb.beat()).toEqual({ outcome: 'ok', why: [] });
    blind = ['rule validators: its last evaluation failed (data API: HTTP 503)'];
    expect((await hb.beat()).outcome).toBe('fail');
    expect(pings.map((p) => p.path)).toEqual(['/ping/5f3c-secret-uuid', '/ping/5f3c-secret-uuid/fail']);
    expect(JSON.parse(pings[1]?.body ?? '')).toEqual({ status: 'blind', blind });
  });

  it('a configured failure URL is used instead; nothing is pinged while avawatch is starting', async () => {
    const hb = heartbeat(() => ['x'], { failUrl: new Secret(`${base}/other/fail-here`) });
    await hb.beat();
    expect(await heartbeat(() => 'starting').beat()).toEqual({ outcome: 'skipped' });
    expect(pings.map((p) => p.path)).toEqual(['/other/fail-here']);
  });

  it('a monitor that does not take the ping is an error that never names the URL', async () => {
    status = 500;
    const errors: string[] = [];
    const r = await heartbeat(() => [], { onPing: (o, e) => o === 'error' && errors.push(e ?? '') }).beat();
    expect(r).toEqual({ outcome: 'error', error: 'heartbeat: HTTP 500' });
    await new Promise((r) => server.close(r));
    const refused = await heartbeat(() => []).beat();
    expect(refused.outcome).toBe('error');
    expect(JSON.stringify([refused, errors])).not.toContain('5f3c-secret-uuid');
    server = createServer().listen(0); // closed again by afterEach
  });

  it("the default failure URL is /fail after the path, before a query (healthchecks.io's ?create=1)", () => {
    expect(failUrlOf('https://hc-ping.com/key/slug?create=1')).toBe('https://hc-ping.com/key/slug/fail?create=1');
    expect(failUrlOf('https://hc-ping.com/5f3c/')).toBe('https://hc-ping.com/5f3c/fail');
  });

  it('a ping cut short by stop() (shutdown, a reload) is no monitor error', async () => {
    const errors: string[] = [];
    server.removeAllListeners('request');
    server.on('request', () => undefined); // never answers
    const hb = heartbeat(() => [], { onPing: (o) => errors.push(o) });
    const arrived = new Promise((r) => server.once('request', r));
    const beat = hb.beat();
    await arrived; // the ping is in flight
    hb.stop();
    expect(await beat).toEqual({ outcome: 'skipped' });
    expect(errors).toEqual([]);
  });

  it('the daemon pings every `every`, on its own timer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const hb = heartbeat(() => []);
    hb.start();
    for (let i = 1; i <= 3; i++) {
      await vi.advanceTimersByTimeAsync(60_000);
      await vi.waitFor(() => expect(pings).toHaveLength(i), { timeout: 2_000 });
    }
    hb.stop();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(pings).toHaveLength(3);
  });
});
