import { describe, expect, it } from 'vitest';
import { failure, json, nodeServer, rpc } from '../../test/helpers/node-server.js';
import { z } from 'zod';
import { HttpNodeApi } from './node-api.js';
import { systemClock } from '../base/clock.js';

// The node API client against a real loopback server answering as AvalancheGo does.

const { serve, seen } = nodeServer();
const signal = () => new AbortController().signal;
const api = (timeoutMs = 2_000, extra: Partial<ConstructorParameters<typeof HttpNodeApi>[0]> = {}) => new HttpNodeApi({ timeoutMs, clock: systemClock, ...extra });

const UNHEALTHY = {
  checks: {
    C: { message: { engine: { consensus: {} } }, timestamp: '2026-01-01T00:00:00.123456789Z', duration: 5123 },
    diskspace: {
      message: { availableDiskBytes: 1, availableDiskPercentage: 7 },
      error: 'remaining available disk space percentage (7%) is below warning threshold available space percentage (10%)',
      timestamp: '2026-01-01T00:00:30+02:00',
      duration: 1000,
      contiguousFailures: 4,
      timeOfFirstFailure: '2026-01-01T00:00:00.5+02:00',
    },
    newCheck: { error: 'not yet run', timestamp: '0001-01-01T00:00:00Z', duration: 0 },
  },
  healthy: false,
};

describe('HttpNodeApi.health', () => {
  it('reads a 200 healthy report and a 503 unhealthy one, the checks sorted by name', async () => {
    let status = 200;
    const base = await serve((_req, res) => json(res, status, status === 200 ? { checks: { network: { message: { connectedPeers: 60 }, timestamp: '2026-01-01T00:00:00Z', duration: 1 } }, healthy: true } : UNHEALTHY));
    expect(await api().health(base, signal())).toEqual({ healthy: true, checks: [{ name: 'network', contiguousFailures: 0 }], connectedPeers: 60 });
    status = 503;
    expect(await api().health(base, signal())).toEqual({
      healthy: false,
      checks: [
        { name: 'C', contiguousFailures: 0 },
        {
          name: 'diskspace',
          error: 'remaining available disk space percentage (7%) is below warning threshold available space percentage (10%)',
          contiguousFailures: 4,
          timeOfFirstFailure: '2025-12-31T22:00:00.500Z',
        },
        { name: 'newCheck', error: 'not yet run', contiguousFailures: 0, timeOfFirstFailure: undefined },
      ],
    });
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(['GET /ext/health', 'GET /ext/health']);
  });

  it('keeps a path prefix and sends the userinfo as Basic auth, never in the URL', async () => {
    const base = await serve((_req, res) => json(res, 200, { checks: {}, healthy: true }));
    const withPrefix = base.replace('http://', 'http://ops:s3cret@') + '/node/NodeID-x/';
    await api().health(withPrefix, signal());
    expect(seen[0]?.url).toBe('/node/NodeID-x/ext/health');
    expect(seen[0]?.authorization).toBe(`Basic ${Buffer.from('ops:s3cret').toString('base64')}`);
  });

  it('reads a body that is not JSON as invalid, and a 500 as unreachable', async () => {
    let status = 200;
    const base = await serve((_req, res) => {
      res.writeHead(status, { 'content-type': 'text/html' });
      res.end('<html>gateway</html>');
    });
    const invalid = await failure(api().health(base, signal()));
    expect(invalid.kind).toBe('invalid');
    expect(invalid.message).toBe(`node ${new URL(base).host} health: an answer that is not JSON`);
    status = 500;
    const down = await failure(api().health(base, signal()));
    expect([down.kind, down.message]).toEqual(['unreachable', `node ${new URL(base).host} health: HTTP 500`]);
  });

  it("a 503 that is a proxy's HTML page is the API not answering (as its 502); a 503 with the node's report is read", async () => {
    let status = 503;
    let body = '<html><head><title>503 Service Temporarily Unavailable</title></head><body><center><h1>503 Service Temporarily Unavailable</h1></center><hr><center>nginx</center></body></html>';
    const base = await serve((_req, res) => {
      res.writeHead(status, { 'content-type': status === 503 && body.startsWith('{') ? 'application/json' : 'text/html' });
      res.end(body);
    });
    const proxy = await failure(api().health(base, signal()));
    expect([proxy.kind, proxy.message]).toEqual(['unreachable', `node ${new URL(base).host} health: HTTP 503 without a health report (a proxy's error page: the node behind it does not answer)`]);
    status = 502;
    expect((await failure(api().health(base, signal()))).kind).toBe('unreachable');
    status = 503;
    body = JSON.stringify(UNHEALTHY);
    expect((await api().health(base, signal())).healthy).toBe(false);
  });

  it("reads the peer count from the network check's message.connectedPeers (network/network.go), whatever the other checks' messages are", async () => {
    const network = (message: unknown, error?: string) => ({ message, ...(error ? { error } : {}), timestamp: '2026-01-01T00:00:00Z', duration: 1 });
    let checks: Record<string, unknown> = {};
    const base = await serve((_req, res) => json(res, 200, { checks, healthy: true }));
    const peers = async () => (await api().health(base, signal())).connectedPeers;
    checks = { network: network({ connectedPeers: 5000, sendFailRate: 0.01, timeSinceLastMsgReceived: '1.2s', 'primary network validator health': { ingressConnectionCount: 3 } }), C: network([1, 'x', null]), bls: network('node is not a validator'), odd: network(null) };
    expect(await peers()).toBe(5000);
    // Failing (too few peers): the message still holds the count.
    checks = { network: network({ connectedPeers: 2 }, 'network layer is unhealthy reason: not connected to a minimum of 5 peer(s) only 2') };
    expect(await peers()).toBe(2);
    // Not run yet (no message), an odd count, the count in another check: no figure, never a failed answer.
    for (const c of [{ network: { error: 'not yet run', timestamp: '0001-01-01T00:00:00Z', duration: 0 } }, { network: network({ connectedPeers: -1 }) }, { network: network({ connectedPeers: 'many' }) }, { network: network(['connectedPeers']) }, { router: network({ connectedPeers: 9 }) }]) {
      checks = c;
      expect(await peers(), JSON.stringify(c)).toBeUndefined();
    }
    checks = { network: network({ connectedPeers: '61' }) };
    expect(await peers()).toBe(61);
  });

  it('a 404 is the API switched off, said as such, on /ext/health and /ext/info alike', async () => {
    const base = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('404 page not found\n');
    });
    const health = await failure(api().health(base, signal()));
    expect([health.kind, health.message]).toEqual(['off', `node ${new URL(base).host} health: HTTP 404: the node does not serve this API (switched off?)`]);
    const info = await failure(api().rpc(base, '/ext/info', 'info.getNodeID', {}, z.unknown(), signal()));
    expect(info.kind).toBe('off');
  });

  it('refuses a redirect', async () => {
    const base = await serve((_req, res) => {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' });
      res.end();
    });
    const err = await failure(api().health(base, signal()));
    expect([err.kind, err.message]).toEqual(['unreachable', `node ${new URL(base).host} health: HTTP 302 (a redirect: not followed)`]);
    expect(seen).toHaveLength(1);
  });

  it('stops reading a body past the cap', async () => {
    const codes: string[] = [];
    const base = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const more = (): void => {
        while (sent < 64 && res.write(chunk)) sent++;
        if (sent < 64) res.once('drain', more);
        else res.end('{}');
      };
      more();
    });
    const err = await failure(api(2_000, { maxResponseBytes: 100_000, onResponse: (e, c) => codes.push(`${e} ${c}`) }).health(base, signal()));
    expect([err.kind, err.message]).toEqual(['too_large', `node ${new URL(base).host} health: answered, but over 100000 bytes: too large to read`]);
    expect(codes).toEqual(['health too_large']);
  });

  it('gives up at the whole-request deadline, even while the body trickles', async () => {
    const base = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"checks":');
      // never ends
    });
    const started = Date.now();
    const err = await failure(api(200).health(base, signal()));
    expect([err.kind, err.message]).toEqual(['unreachable', `node ${new URL(base).host} health: no complete answer within 200ms`]);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('HttpNodeApi.rpc', () => {
  it("calls any method at the path given with the caller's schema: fields it does not read never fail it, a field it reads that is wrong does", async () => {
    const base = await serve(rpc({ height: '1234567', future: { anything: true } }));
    const height = z.object({ height: z.coerce.number().int().nonnegative() });
    expect(await api().rpc(`${base}/prefix`, '/ext/bc/P', 'platform.getHeight', {}, height, signal())).toEqual({ height: 1234567 });
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /prefix/ext/bc/P']);
    expect(JSON.parse(seen[0]?.body ?? '')).toMatchObject({ jsonrpc: '2.0', method: 'platform.getHeight', params: {} });
    const bad = await serve(rpc({ height: 'tall' }));
    const err = await failure(api().rpc(bad, '/ext/bc/P', 'platform.getHeight', {}, height, signal()));
    expect([err.kind, err.message]).toEqual(['invalid', `node ${new URL(bad).host} platform.getHeight: an answer that does not parse (height: Invalid input: expected number, received NaN)`]);
  });

  it("throws the node's JSON-RPC error as rpc, with its message clipped", async () => {
    const long = `couldn't get node uptime: node is not a validator ${'x'.repeat(1000)}`;
    const base = await serve((_req, res) => json(res, 200, { jsonrpc: '2.0', error: { code: -32000, message: long, data: null }, id: 1 }));
    const err = await failure(api().rpc(base, '/ext/info', 'info.uptime', {}, z.unknown(), signal()));
    expect(err.kind).toBe('rpc');
    expect(err.message.startsWith(`node ${new URL(base).host} info.uptime: the node answered an error (-32000): couldn't get node uptime: node is not a validator x`)).toBe(true);
    expect(err.message.length).toBeLessThan(400);
  });

  it('never names the userinfo, the path or the query of the URL in an error', async () => {
    const base = await serve((req, res) => {
      if (req.url?.includes('/ext/info')) return json(res, 200, { jsonrpc: '2.0', error: { code: -32000, message: 'nope', data: null }, id: 1 });
      res.writeHead(404);
      res.end();
    });
    const secretBase = base.replace('http://', 'http://admin:hunter2@') + '/private-prefix?token=t0psecret';
    const messages = [
      (await failure(api().health(secretBase, signal()))).message,
      (await failure(api().rpc(secretBase, '/ext/info', 'info.uptime', {}, z.unknown(), signal()))).message,
      (await failure(api().metricsText(`${secretBase}`, signal()))).message,
      (await failure(api().health('http://admin:hunter2@127.0.0.1:1/x?token=t0psecret', signal()))).message,
      (await failure(api().health('not a url hunter2', signal()))).message,
    ];
    for (const m of messages) {
      for (const secret of ['admin', 'hunter2', 't0psecret', 'private-prefix', 'http://']) expect(m).not.toContain(secret);
    }
    expect(messages[3]).toBe('node 127.0.0.1:1 health: network error: connection refused (ECONNREFUSED)');
    expect(seen.find((s) => s.url.includes('/ext/health'))?.url).toBe('/private-prefix/ext/health?token=t0psecret');
  });
});

describe('HttpNodeApi.rpc shared', () => {
  it('identical calls in flight are one call, each read with its own schema; other params are not shared; a later call, or one after a failure, reads the node again', async () => {
    let n = 0;
    const base = await serve((_req, res, body) => {
      n++;
      const call = JSON.parse(body) as { method: string; params: { nodeIDs?: string[] } };
      if (call.params.nodeIDs?.includes('bad')) return json(res, 500, 'no');
      // No delay needed: the four calls below are made in one turn, so all are in flight.
      json(res, 200, { jsonrpc: '2.0', result: { validators: call.params.nodeIDs ?? [], calls: n }, id: 1 });
    });
    const client = api(2_000);
    const nodes = z.object({ validators: z.array(z.string()) }).transform((r) => r.validators);
    const calls = z.object({ calls: z.number() }).transform((r) => r.calls);
    const gone = new AbortController();
    const shared = [
      client.rpc(base, '/ext/bc/P', 'platform.getCurrentValidators', { nodeIDs: ['x'] }, nodes, signal()),
      client.rpc(base, '/ext/bc/P', 'platform.getCurrentValidators', { nodeIDs: ['x'] }, calls, gone.signal),
      client.rpc(base, '/ext/bc/P', 'platform.getCurrentValidators', { nodeIDs: ['x'] }, calls, signal()),
      client.rpc(base, '/ext/bc/P', 'platform.getCurrentValidators', { nodeIDs: ['y'] }, nodes, signal()),
    ];
    // A caller that gives up leaves the others theirs.
    gone.abort(new Error('shutdown'));
    const settled = await Promise.allSettled(shared);
    expect(settled.map((r) => (r.status === 'fulfilled' ? r.value : 'aborted'))).toEqual([['x'], 'aborted', 1, ['y']]);
    expect(n).toBe(2);
    expect(await client.rpc(base, '/ext/bc/P', 'platform.getCurrentValidators', { nodeIDs: ['x'] }, calls, signal())).toBe(3);
    await failure(client.rpc(base, '/ext/bc/P', 'platform.getCurrentValidators', { nodeIDs: ['bad'] }, calls, signal()));
    await failure(client.rpc(base, '/ext/bc/P', 'platform.getCurrentValidators', { nodeIDs: ['bad'] }, calls, signal()));
    expect(n).toBe(5);
  });
});

describe('HttpNodeApi.metricsText', () => {
  it('reads the exposition at the URL as given, and caps it at maxMetricsBytes', async () => {
    const text = '# TYPE avalanche_network_peers gauge\navalanche_network_peers 60\n';
    const base = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4', 'content-length': String(Buffer.byteLength(text)) });
      res.end(text);
    });
    expect(await api().metricsText(`${base}/ext/metrics`, signal())).toBe(text);
    expect(seen[0]?.url).toBe('/ext/metrics');
    const err = await failure(api(2_000, { maxMetricsBytes: 10 }).metricsText(`${base}/ext/metrics`, signal()));
    expect(err.message).toBe(`node ${new URL(base).host} metrics: answered, but over 10 bytes: too large to read`);
  });

  it('rules reading the same node share one read within shareMs; a caller that aborts leaves the others theirs', async () => {
    let n = 0;
    const base = await serve((_req, res) => {
      n++;
      setTimeout(() => res.end(`avalanche_network_peers ${n}\n`), 50);
    });
    const client = api(2_000, { shareMs: 60_000 });
    const gone = new AbortController();
    const reads = [client.metricsText(`${base}/ext/metrics`, signal()), client.metricsText(`${base}/ext/metrics`, gone.signal), client.metricsText(`${base}/ext/metrics`, signal())];
    gone.abort(new Error('shutdown'));
    const settled = await Promise.allSettled(reads);
    expect(settled.map((r) => (r.status === 'fulfilled' ? r.value : 'aborted'))).toEqual(['avalanche_network_peers 1\n', 'aborted', 'avalanche_network_peers 1\n']);
    expect(await client.metricsText(`${base}/ext/metrics`, signal())).toBe('avalanche_network_peers 1\n');
    expect(n).toBe(1);
    expect(await api(2_000, { shareMs: 0 }).metricsText(`${base}/ext/metrics`, signal())).toBe('avalanche_network_peers 2\n');
  });
});
