import { afterEach, describe, expect, it } from 'vitest';
import { Secret } from '../base/secret.js';
import type { ServerAuthConfig } from '../config/schema.js';
import { STATUS_PAGE_CSP } from '../status/page.js';
import { createMetrics } from '../metrics/registry.js';
import { startHttpServer, type HttpServer } from './server.js';

const TOKEN = 'tok-5d1f0e9c2b7a';
const USER = 'prometheus';
const PASSWORD = 'pw-91c3e07a';
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('the HTTP server', () => {
  let server: HttpServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function start(auth?: ServerAuthConfig): Promise<string> {
    const metrics = createMetrics({ version: 'test', outboxPending: () => 0, firing: () => [], ruleSamples: () => [], ruleGauges: [] });
    server = await startHttpServer(
      '127.0.0.1:0',
      metrics,
      { alerts: () => [], ready: () => ({ ready: true, problems: [] }), statusPage: () => Promise.resolve('<!doctype html><p>page</p>') },
      { auth },
    );
    return server.url;
  }

  async function status(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<number> {
    return (await fetch(url, { headers, method })).status;
  }

  it('serves the status page at / with a strict Content-Security-Policy, and answers HEAD with headers only', async () => {
    const url = await start();
    const res = await fetch(`${url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(STATUS_PAGE_CSP);
    expect(STATUS_PAGE_CSP).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.text()).toBe('<!doctype html><p>page</p>');

    const head = await fetch(`${url}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String('<!doctype html><p>page</p>'.length));
    expect(head.headers.get('content-security-policy')).toBe(STATUS_PAGE_CSP);
    expect(await head.text()).toBe('');
    expect(await status(`${url}/`, {}, 'POST')).toBe(405);
  });

  it('without server.auth everything is open', async () => {
    const url = await start();
    for (const path of ['/', '/metrics', '/api/v1/alerts', '/healthz', '/readyz']) expect(await status(`${url}${path}`), path).toBe(200);
  });

  it('with a token: 401 and a Bearer challenge without it, 200 with it; the probes stay open', async () => {
    const url = await start({ token: new Secret(TOKEN) });
    for (const path of ['/', '/metrics', '/api/v1/alerts']) {
      const res = await fetch(`${url}${path}`);
      expect(res.status, path).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="avawatch"');
      expect(await res.text()).not.toContain(TOKEN);
      expect(await status(`${url}${path}`, { authorization: `Bearer ${TOKEN}` }), path).toBe(200);
      expect(await status(`${url}${path}`, { authorization: `bearer ${TOKEN}` }), 'the scheme is case-insensitive').toBe(200);
      expect(await status(`${url}${path}`, { authorization: `Bearer ${TOKEN}x` }), path).toBe(401);
      expect(await status(`${url}${path}`, { authorization: `Bearer ${TOKEN.slice(0, -1)}` }), path).toBe(401);
      expect(await status(`${url}${path}`, { authorization: basic(USER, TOKEN) }), 'basic is not configured').toBe(401);
    }
    expect(await status(`${url}/`, {}, 'HEAD')).toBe(401);
    expect(await status(`${url}/healthz`)).toBe(200);
    expect(await status(`${url}/readyz`)).toBe(200);
  });

  it('with basic credentials: 200 with the right pair only', async () => {
    const url = await start({ username: USER, password: new Secret(PASSWORD) });
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="avawatch", charset="UTF-8"');
    expect(await status(`${url}/metrics`, { authorization: basic(USER, PASSWORD) })).toBe(200);
    expect(await status(`${url}/`, { authorization: basic(USER, PASSWORD) })).toBe(200);
    expect(await status(`${url}/`, { authorization: basic(USER, `${PASSWORD}!`) })).toBe(401);
    expect(await status(`${url}/`, { authorization: basic('admin', PASSWORD) })).toBe(401);
    expect(await status(`${url}/`, { authorization: 'Basic not-base64-at-all' })).toBe(401);
    expect(await status(`${url}/`, { authorization: `Bearer ${PASSWORD}` })).toBe(401);
    expect(await status(`${url}/healthz`)).toBe(200);
  });

  it('with both: either works, and the 401 offers both schemes', async () => {
    const url = await start({ token: new Secret(TOKEN), username: USER, password: new Secret(PASSWORD) });
    const res = await fetch(`${url}/api/v1/alerts`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="avawatch", Basic realm="avawatch", charset="UTF-8"');
    expect(await status(`${url}/api/v1/alerts`, { authorization: `Bearer ${TOKEN}` })).toBe(200);
    expect(await status(`${url}/api/v1/alerts`, { authorization: basic(USER, PASSWORD) })).toBe(200);
  });
});
