import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { activeValidator, completedValidator } from '../../sim/samples.js';
import { startSim, type SimServer } from '../../sim/server.js';
import { HttpClient } from '../http.js';
import { PrimaryNetwork } from './primary.js';
import { systemClock } from '../../base/clock.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const agent = new Agent();

function api(baseUrl: string, pageSize = 100): PrimaryNetwork {
  const http = new HttpClient({
    api: 'data',
    baseUrl,
    dispatcher: agent,
    headers: {},
    timeoutMs: 2_000,
    maxResponseBytes: 1_000_000,
    retries: 0,
    backoffInitialMs: 1,
    backoffMaxMs: 1,
    maxRetryAfterMs: 1,
    clock: systemClock,
  });
  return new PrimaryNetwork(http, { pageSize, maxPages: 10 });
}

describe('PrimaryNetwork.validatorPeriods', () => {
  let sim: SimServer | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    await sim?.close();
    server?.closeAllConnections();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    sim = server = undefined;
  });

  it('reads every page of a node with many periods', async () => {
    sim = await startSim();
    const periods = Array.from({ length: 5 }, (_, i) =>
      completedValidator({ nodeId: NODE, txHash: `tx${i}`, startTimestamp: 1_600_000_000 + i * 1_000_000, endTimestamp: 1_600_900_000 + i * 1_000_000 }),
    );
    sim.world.setValidators('mainnet', NODE, [...periods, activeValidator({ nodeId: NODE, txHash: 'txNow', startTimestamp: 1_700_000_000, endTimestamp: 1_800_000_000 })]);
    const result = await api(sim.url, 2).validatorPeriods('mainnet', NODE);
    expect(result).not.toBe('not-found');
    expect((result as Array<{ txHash: string }>).map((v) => v.txHash)).toEqual(['txNow', 'tx4', 'tx3', 'tx2', 'tx1', 'tx0']);
    expect(sim.requests).toHaveLength(3);
  });

  it("answers not-found only for the service's own 404 on the first page", async () => {
    sim = await startSim();
    await expect(api(sim.url).validatorPeriods('mainnet', NODE)).resolves.toBe('not-found');
  });

  it('fails on a 404 from a proxy (not the service error shape)', async () => {
    server = createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<html>404 Not Found</html>'));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await expect(api(url).validatorPeriods('mainnet', NODE)).rejects.toThrow(`data API GET /v1/networks/mainnet/validators/${NODE}: HTTP 404: <html>404 Not Found</html>`);
  });

  it('fails on a 404 for a later page instead of calling the node unknown', async () => {
    let calls = 0;
    server = createServer((_req, res) => {
      calls++;
      const first = { validators: [activeValidator({ nodeId: NODE, txHash: 'a', startTimestamp: 2, endTimestamp: 3 })], nextPageToken: 'p2' };
      if (calls === 1) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(first));
      else res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"page not found","statusCode":404,"error":"Not Found"}');
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await expect(api(url).validatorPeriods('mainnet', NODE)).rejects.toThrow('HTTP 404: page not found');
    expect(calls).toBe(2);
  });

  it('keeps the path of a dataUrl behind a proxy prefix', async () => {
    const paths: string[] = [];
    server = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"validators":[]}');
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/glacier/`;
    await api(url).validatorPeriods('fuji', NODE);
    expect(paths[0]).toBe(`/glacier/v1/networks/fuji/validators/${NODE}?pageSize=100&sortOrder=desc`);
  });
});

describe('PrimaryNetwork.validatorList (bulk)', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    server = undefined;
  });

  it('keeps only exact NodeID matches: the service matches nodeIds as substrings', async () => {
    const urls: string[] = [];
    const longer = `${NODE}x`;
    server = createServer((req, res) => {
      urls.push(req.url ?? '');
      const body = { validators: [NODE, longer, 'Node'].map((nodeId, i) => activeValidator({ nodeId, txHash: `t${i}`, startTimestamp: 1, endTimestamp: 2 })) };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const listed = await api(url).validatorList('mainnet', { nodeIds: [NODE], validationStatus: 'active', subnetId: '11111111111111111111111111111111LpoYY' });
    expect(listed.periods.map((v) => v.txHash)).toEqual(['t0']);
    const asked = new URL(urls[0] as string, url).searchParams;
    expect(Object.fromEntries(asked)).toEqual({
      pageSize: '100',
      nodeIds: NODE,
      validationStatus: 'active',
      subnetId: '11111111111111111111111111111111LpoYY',
      // The documented default minimum uptime (90) would hide a node with poor uptime.
      minUptimePerformance: '0',
    });
  });

  it('reads each item on its own: a broken one is named with its node, or without one, and the others are kept', async () => {
    const [other, fine, unnamed, lookalike] = ['NodeID-B', 'NodeID-C', 'NodeID-D', `${NODE}x`];
    const item = (nodeId: string, i: number) => activeValidator({ nodeId, txHash: `t${i}`, startTimestamp: 1, endTimestamp: 2 });
    server = createServer((_req, res) => {
      const body = {
        validators: [
          { ...item(NODE, 0), startTimestamp: 'yesterday' },
          item(fine, 1),
          { ...item(unnamed, 2), nodeId: 42 },
          { ...item(lookalike, 3), endTimestamp: null },
          'not an object',
          item(other, 4),
        ],
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const reported: string[] = [];
    const http = api(`http://127.0.0.1:${(server.address() as AddressInfo).port}`).http;
    const data = new PrimaryNetwork(http, { pageSize: 100, maxPages: 10, onBrokenItem: (endpoint, nodeId, reason) => reported.push(`${endpoint} ${nodeId ?? '-'}: ${reason}`) });
    const listed = await data.validatorList('mainnet', { nodeIds: [NODE, fine, other], validationStatus: 'active', subnetId: '11111111111111111111111111111111LpoYY' });
    expect(listed.periods.map((v) => v.nodeId)).toEqual([fine, other]);
    expect(listed.broken).toEqual([
      { nodeId: NODE, reason: `data API /v1/networks/mainnet/validators: unexpected item validators[0] of ${NODE}: startTimestamp: Invalid input: expected number, received string` },
      { nodeId: undefined, reason: 'data API /v1/networks/mainnet/validators: unexpected item validators[2]: nodeId: Invalid input: expected string, received number' },
      { nodeId: undefined, reason: 'data API /v1/networks/mainnet/validators: unexpected item validators[4]: item: Invalid input: expected object, received string' },
    ]);
    // The lookalike's item is another node's: not reported.
    expect(reported).toHaveLength(3);
    expect(reported[0]).toMatch(/^\/v1\/networks\/\{network\}\/validators NodeID-7X/);
  });
});
