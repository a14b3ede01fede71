import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { activeValidator } from '../../sim/samples.js';
import { startSim, type SimServer } from '../../sim/server.js';
import { systemClock } from '../../base/clock.js';
import { HttpClient } from '../http.js';
import { PrimaryNetwork } from './primary.js';

// The network baseline's sweep: the whole active set, complete or a failure, one item per node.

const agent = new Agent();
const node = (i: number): string => `NodeID-Sweep${String(i).padStart(5, '0')}`;

function api(baseUrl: string, pageSize = 100): PrimaryNetwork {
  const http = new HttpClient({ api: 'data', baseUrl, dispatcher: agent, headers: {}, timeoutMs: 2_000, maxResponseBytes: 5_000_000, retries: 0, backoffInitialMs: 1, backoffMaxMs: 1, maxRetryAfterMs: 1, clock: systemClock });
  // api.maxPages is 2 here: the sweep's own bound must win.
  return new PrimaryNetwork(http, { pageSize, maxPages: 2 });
}

function network(sim: SimServer, n: number): void {
  for (let i = 0; i < n; i++) {
    sim.world.setValidators('mainnet', node(i), [activeValidator({ nodeId: node(i), txHash: `tx${i}`, startTimestamp: 1_700_000_000 + i, endTimestamp: 1_900_000_000, uptimePerformance: i === 0 ? 12 : 99 })]);
  }
}

describe('PrimaryNetwork.activeSet', () => {
  let sim: SimServer | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    await sim?.close();
    server?.closeAllConnections();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    sim = server = undefined;
  });

  it('reads every page of the primary active set, past api.maxPages, the dipping validators included', async () => {
    sim = await startSim();
    sim.world.bulkDefaultMinUptime = 90;
    network(sim, 250);
    const set = await api(sim.url).activeSet('mainnet', { maxPages: 5 });
    expect(set.validators).toHaveLength(250);
    expect(set.validators.find((v) => v.nodeId === node(0))?.uptimePerformance).toBe(12);
    expect(sim.requests).toHaveLength(3);
    expect(sim.requests[0]).toMatch(/validationStatus=active/);
    expect(sim.requests[0]).toMatch(/subnetId=11111111111111111111111111111111LpoYY/);
    expect(sim.requests[0]).toMatch(/minUptimePerformance=0/);
  });

  it('fails past its own maxPages: a part of the set is never the set', async () => {
    sim = await startSim();
    network(sim, 250);
    await expect(api(sim.url).activeSet('mainnet', { maxPages: 2 })).rejects.toThrow(/more than 2 pages/);
  });

  it('fails when a page after the first fails: the pages read before it are never the set', async () => {
    sim = await startSim();
    network(sim, 250);
    sim.world.faults.push({ status: 503, pathIncludes: '/validators', pageToken: true });
    await expect(api(sim.url).activeSet('mainnet', { maxPages: 5 })).rejects.toThrow(/503/);
    expect(sim.requests).toHaveLength(2);
  });

  it('fails on a page token the service repeats, after a bounded number of pages', async () => {
    sim = await startSim();
    network(sim, 250);
    sim.world.settings.repeatPageToken = true;
    await expect(api(sim.url).activeSet('mainnet', { maxPages: 60 })).rejects.toThrow(/a second time/);
    expect(sim.requests.length).toBeLessThanOrEqual(3);
  });

  it('fails on more items than its pages hold: pages longer than asked are no sweep (found by the fuzzer, issue 40: 40,000 items blocked the daemon)', async () => {
    const items = Array.from({ length: 5 }, (_, i) => ({ nodeId: node(i) }));
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ validators: items })));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await expect(api(url, 2).activeSet('mainnet', { maxPages: 2 })).rejects.toThrow(/5 items, more than 2 page\(s\) of 2 hold/);
    expect((await api(url, 5).activeSet('mainnet', { maxPages: 1 })).validators).toHaveLength(5);
  });

  it('l1Validators: the first broken item fails the read, named, and no other is described (found by the fuzzer, issue 40: 40,000 described held the daemon a second)', async () => {
    const good = { validationId: 'v1', nodeId: node(1), subnetId: 'S', remainingBalance: 5, weight: 1 };
    const flood = Array.from({ length: 40_000 }, (_, i) => ({ nodeId: `NodeID-flood${i}` }));
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ validators: [good, ...flood] })));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await expect(api(url).l1Validators('mainnet', { subnetId: 'S' })).rejects.toThrow(/^data API \/v1\/networks\/mainnet\/l1Validators: unexpected response: validators\.1\.validationId: [^(]*$/);
  });

  it('keeps one item per node when pages move under the walk, and counts the unreadable items apart', async () => {
    const item = (i: number) => ({ nodeId: node(i), uptimePerformance: 99, validatorHealth: { reachabilityPercent: 100 }, newField: { any: 'thing' } });
    const pages: Record<string, unknown> = {
      first: { validators: [item(1), item(2)], nextPageToken: 'p2' },
      p2: { validators: [item(2), item(3), { nodeId: 42 }, { ...item(4), uptimePerformance: 'high' }] },
    };
    server = createServer((req, res) => {
      const token = new URL(req.url ?? '/', 'http://x').searchParams.get('pageToken') ?? 'first';
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(pages[token]));
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const set = await api(`http://127.0.0.1:${(server.address() as AddressInfo).port}`).activeSet('mainnet', { maxPages: 5 });
    expect(set.validators.map((v) => v.nodeId)).toEqual([node(1), node(2), node(3), node(4)]);
    // A figure in another shape is absent, never a lost validator.
    expect(set.validators[3]?.uptimePerformance).toBeUndefined();
    expect(set.repeated).toBe(1);
    expect(set.broken).toHaveLength(1);
    expect(set.broken[0]?.reason).toMatch(/unexpected item validators\[4\]/);
  });
});
