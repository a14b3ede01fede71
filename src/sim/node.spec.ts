import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HttpNodeApi, type NodeApiError } from '../api/node-api.js';
import { SimClock } from './clock.js';
import { SAMPLE_BLS_PUBLIC_KEY } from './node.js';
import { scenarioSchema } from './scenario.js';
import { startSim, type SimServer } from './server.js';
import { World } from './world.js';
import { systemClock } from '../base/clock.js';
import { currentEpoch, proposedHeight, proposervmPath } from '../rules/proposervm.js';

// The node simulator through its HTTP routes, read by the real client.

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const OTHER = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const START = Date.parse('2026-01-01T00:00:00Z');
let sim: SimServer | undefined;

afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function simWith(world: Record<string, unknown>, events: unknown[] = []): Promise<{ sim: SimServer; base: string }> {
  sim = await startSim({ world: new World(new SimClock(START, 0)), scenario: scenarioSchema.parse({ start: '2026-01-01T00:00:00Z', speed: 0, world, events }) });
  return { sim, base: `${sim.url}/node/${NODE}` };
}

const client = new HttpNodeApi({ timeoutMs: 2_000, clock: systemClock });
const signal = () => new AbortController().signal;

// The info calls through the client's rpc, each read with a schema of only what is asserted
// here: a kind's reader stays in its folder (node-health/read.ts reads these answers from the
// simulator in test/integration/node-view.test.ts).
const info = <T>(base: string, method: string, schema: z.ZodType<T>, params: Record<string, unknown> = {}) => client.rpc(base, '/ext/info', method, params, schema, signal());
const nodeIdOf = z.object({ nodeID: z.string(), nodePOP: z.object({ publicKey: z.string() }).nullable() });
const versionOf = z.object({ version: z.string() }).transform((r) => r.version);
const bootstrappedOf = z.object({ isBootstrapped: z.boolean() }).transform((r) => r.isBootstrapped);
const uptimeOf = z.object({ rewardingStakePercentage: z.coerce.number(), weightedAveragePercentage: z.coerce.number() });
const peersOf = z.object({ numPeers: z.coerce.number() }).transform((r) => r.numPeers);

describe('the node simulator', () => {
  it('answers as a healthy 1.14 validator by default, apart from the data API', async () => {
    const { sim, base } = await simWith({ nodes: [{ nodeId: NODE }] });
    const report = await client.health(base, signal());
    expect(report.healthy).toBe(true);
    expect(report.checks.map((c) => c.name)).toEqual(['C', 'P', 'X', 'bls', 'bootstrapped', 'database', 'diskspace', 'futureupgrade', 'network', 'router']);
    expect(await info(base, 'info.getNodeID', nodeIdOf)).toEqual({ nodeID: NODE, nodePOP: { publicKey: SAMPLE_BLS_PUBLIC_KEY } });
    expect(await info(base, 'info.getNodeVersion', versionOf)).toBe('avalanchego/1.14.1');
    for (const chain of ['P', 'X', 'C', 'platform', '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5']) expect(await info(base, 'info.isBootstrapped', bootstrappedOf, { chain })).toBe(true);
    expect(await info(base, 'info.uptime', uptimeOf)).toEqual({ rewardingStakePercentage: 100, weightedAveragePercentage: 100 });
    expect(await info(base, 'info.peers', peersOf)).toBe(60);
    const metrics = await client.metricsText(`${base}/ext/metrics`, signal());
    expect(metrics).toContain('\navalanche_network_peers 60\n');
    expect(metrics).toContain('avalanche_health_checks_failing{check="health",tag="all"} 0\n');
    expect(sim.requests).toEqual([]);
    expect(sim.nodeRequests).toHaveLength(11);
    expect(sim.budget.spent).toEqual({ data: 0, metrics: 0 });
  });

  it('a disk filling: diskspace fails, counted per 30 s check run (not per request), from the time it started', async () => {
    const { sim, base } = await simWith({ nodes: [{ nodeId: NODE, diskAvailablePercent: 40 }] }, [{ at: '+10m', node: { nodeId: NODE, diskAvailablePercent: 7.5 } }]);
    expect((await client.health(base, signal())).healthy).toBe(true);
    sim.world.clock.advance(10 * 60_000);
    await client.health(base, signal());
    await client.health(base, signal());
    sim.world.clock.advance(30_000);
    const report = await client.health(base, signal());
    expect(report.healthy).toBe(false);
    expect(report.checks.filter((c) => c.error !== undefined)).toEqual([
      {
        name: 'diskspace',
        error: 'remaining available disk space percentage (7%) is below warning threshold available space percentage (10%)',
        contiguousFailures: 2,
        timeOfFirstFailure: '2026-01-01T00:10:00.000Z',
      },
    ]);
    expect(await client.metricsText(`${base}/ext/metrics`, signal())).toContain('\navalanche_resource_tracker_disk_available_percentage 7.5\n');
    sim.world.nodes.set({ nodeId: NODE, diskAvailablePercent: 2 });
    expect((await client.health(base, signal())).checks.find((c) => c.name === 'diskspace')?.error).toBe(
      'remaining available disk space percentage (2%) is below minimum required available space percentage (3%)',
    );
  });

  it('a chain that stops being bootstrapped, and a failing check set and cleared', async () => {
    const { sim, base } = await simWith({ nodes: [{ nodeId: NODE, failing: { router: 'too many outstanding requests' } }] });
    sim.world.nodes.set({ nodeId: NODE, bootstrapped: { C: false } });
    expect(await info(base, 'info.isBootstrapped', bootstrappedOf, { chain: 'C' })).toBe(false);
    expect(await info(base, 'info.isBootstrapped', bootstrappedOf, { chain: 'P' })).toBe(true);
    const failing = (await client.health(base, signal())).checks.filter((c) => c.error !== undefined).map((c) => [c.name, c.error]);
    expect(failing).toEqual([
      ['bootstrapped', 'subnets not bootstrapped'],
      ['router', 'too many outstanding requests'],
    ]);
    const err = (await info(base, 'info.isBootstrapped', bootstrappedOf, { chain: 'Q' }).catch((e: unknown) => e)) as NodeApiError;
    expect([err.kind, err.message]).toEqual(['rpc', `node ${new URL(sim.url).host} info.isBootstrapped: the node answered an error (-32000): there is no chain with alias/ID 'Q'`]);
    sim.world.nodes.set({ nodeId: NODE, bootstrapped: { C: true }, failing: { router: null } });
    expect((await client.health(base, signal())).healthy).toBe(true);
  });

  it('another NodeID, an old version, low rewarding stake, not a validator, no nodePOP', async () => {
    const { sim, base } = await simWith({ nodes: [{ nodeId: NODE, reportsNodeId: OTHER, version: 'avalanchego/1.13.0', rewardingStake: 62.5, weightedAverage: 81.25, blsPublicKey: null }] });
    expect(await info(base, 'info.getNodeID', nodeIdOf)).toEqual({ nodeID: OTHER, nodePOP: null });
    expect(await info(base, 'info.getNodeVersion', versionOf)).toBe('avalanchego/1.13.0');
    expect(await info(base, 'info.uptime', uptimeOf)).toEqual({ rewardingStakePercentage: 62.5, weightedAveragePercentage: 81.25 });
    const res = await request(`${base}/ext/health`);
    expect(res.headers['node-id']).toBe(OTHER);
    await res.body.dump();
    sim.world.nodes.set({ nodeId: NODE, validator: false });
    const err = (await info(base, 'info.uptime', uptimeOf).catch((e: unknown) => e)) as NodeApiError;
    expect([err.kind, err.message]).toMatchObject(['rpc', expect.stringContaining("couldn't get node uptime: node is not a validator")]);
  });

  it('the API down while the service still lists the node, and an unknown NodeID', async () => {
    const { sim, base } = await simWith({
      nodes: [{ nodeId: NODE, down: true }],
      validations: [{ nodeId: NODE, txHash: 'a1', start: '-10d', end: '+10d' }],
    });
    const err = (await client.health(base, signal()).catch((e: unknown) => e)) as NodeApiError;
    expect(err.kind).toBe('unreachable');
    expect(err.message).toMatch(/health: network error: connection closed \((UND_ERR_SOCKET|ECONNRESET)\)$/);
    const listed = await request(`${sim.url}/v1/networks/mainnet/validators/${NODE}`);
    expect(listed.statusCode).toBe(200);
    await listed.body.dump();
    const unknown = (await client.health(`${sim.url}/node/${OTHER}`, signal()).catch((e: unknown) => e)) as NodeApiError;
    // gorilla/mux's 404, as AvalancheGo answers a path it does not serve: read as the API switched off.
    expect([unknown.kind, unknown.message]).toEqual(['off', `node ${new URL(sim.url).host} health: HTTP 404: the node does not serve this API (switched off?)`]);
  });

  it('answers an unknown method as gorilla/rpc does, and a GET on info with 405', async () => {
    const { base } = await simWith({ nodes: [{ nodeId: NODE }] });
    const res = await request(`${base}/ext/info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'info.getTxFees', params: {} }) });
    expect(res.statusCode).toBe(200);
    expect(await res.body.text()).toBe('{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: can\'t find method \\"info.GetTxFees\\"","data":null},"id":7}\n');
    const get = await request(`${base}/ext/info`);
    expect(get.statusCode).toBe(405);
    await get.body.dump();
  });

  it('overrides and adds metric series, keeping each family together', async () => {
    const { base } = await simWith({
      nodes: [{ nodeId: NODE, peers: 12, metrics: { 'avalanche_health_checks_failing{tag="all",check="health"}': 3, 'avalanche_snowman_polls_failed{chain="C"}': 250, custom_metric: 1.5 } }],
    });
    const text = await client.metricsText(`${base}/ext/metrics`, signal());
    expect(text).toContain('avalanche_health_checks_failing{check="health",tag="all"} 3\n');
    expect(text).toContain('avalanche_snowman_polls_failed{chain="C"} 250\n');
    expect(text).toContain('# TYPE custom_metric untyped\ncustom_metric 1.5\n');
    expect(text).toContain('\navalanche_network_peers 12\n');
    const families = text.split('\n').filter((l) => l.startsWith('# TYPE')).map((l) => l.split(' ')[2]);
    expect(new Set(families).size).toBe(families.length);
  });

  it('scenario keys of 1.15 nodes: an L1 chain and its plugin, the C-Chain after Helicon, the health API off', async () => {
    const L1 = '2tsLsNQUZfZnqDD9WBhTyj2XyMcmSGJHWTo7qFrVqzaiWvWbjN';
    const { sim, base } = await simWith(
      { nodes: [{ nodeId: NODE, version: 'avalanchego/1.15.0', cChain: 'switched', l1Chains: { [L1]: { vmVersion: 'v0.7.4', protocol: 45 } } }] },
      [{ at: '+1m', node: { nodeId: NODE, healthApi: false, l1Chains: { [L1]: { protocol: null } } } }],
    );
    const failing = (await client.health(base, signal())).checks.filter((c) => c.error !== undefined).map((c) => c.name);
    expect(failing).toEqual([L1]);
    expect(await client.metricsText(`${base}/ext/metrics`, signal())).toContain('avalanche_evm_transition_sae_execution_queue_blocks{chain="C"} 0\n');
    sim.world.clock.advance(60_000);
    const off = (await client.health(base, signal()).catch((e: unknown) => e)) as NodeApiError;
    expect(off.kind).toBe('off');
    const versions = z.object({ vmVersions: z.record(z.string(), z.string()) }).transform((r) => r.vmVersions);
    expect(await info(base, 'info.getNodeVersion', versions)).toMatchObject({ srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy: 'v0.7.4' });
  });

  it("an L1's proposervm: a live tip seals an epoch every 5 min; a frozen one keeps its epoch while the P-Chain moves, the slot gauge climbs, health stays green", async () => {
    const L1 = '2tsLsNQUZfZnqDD9WBhTyj2XyMcmSGJHWTo7qFrVqzaiWvWbjN';
    const { sim, base } = await simWith({ nodes: [{ nodeId: NODE, l1Chains: { [L1]: {} } }] }, [{ at: '+10m', node: { nodeId: NODE, l1Chains: { [L1]: { frozen: true } } } }]);
    const unshared = new HttpNodeApi({ timeoutMs: 2_000, clock: systemClock, shareMs: 0 }); // each read sees the clock's step
    const slot = async () => Number(/avalanche_proposervm_block_building_slot\{chain="[^"]+"\} (\d+)/.exec(await unshared.metricsText(`${base}/ext/metrics`, signal()))?.[1]);
    const live = await currentEpoch(client, base, L1, signal());
    expect(live.startTime).toBe(START / 1000); // 2026-01-01T00:00Z is an epoch boundary counted from Granite
    expect(live.number).toBeGreaterThan(0);
    const p0 = await proposedHeight(client, base, signal());
    expect(await slot()).toBe(1);
    sim.world.clock.advance(6 * 60_000);
    expect((await currentEpoch(client, base, L1, signal())).number).toBe(live.number + 1);
    sim.world.clock.advance(4 * 60_000); // frozen at +10m
    const frozen = await currentEpoch(client, base, L1, signal());
    sim.world.clock.advance(60 * 60_000);
    expect(await currentEpoch(client, base, L1, signal())).toEqual(frozen);
    expect(await proposedHeight(client, base, signal())).toBe(p0 + (70 * 60) / 2); // a P-Chain block every 2 s, 70 min on
    expect(await slot()).toBe(12 * 60);
    expect((await client.health(base, signal())).healthy).toBe(true);
  });

  it("proposervm: another chain or a node before v1.14.0 answers 404 (off); an upper-case method gorilla's error", async () => {
    const L1 = '2tsLsNQUZfZnqDD9WBhTyj2XyMcmSGJHWTo7qFrVqzaiWvWbjN';
    const { sim, base } = await simWith({ nodes: [{ nodeId: NODE, l1Chains: { [L1]: {} } }, { nodeId: OTHER, version: 'avalanchego/1.13.5', l1Chains: { [L1]: {} } }] });
    expect(((await currentEpoch(client, base, 'C', signal()).catch((e: unknown) => e)) as NodeApiError).kind).toBe('off');
    expect(((await currentEpoch(client, `${sim.url}/node/${OTHER}`, L1, signal()).catch((e: unknown) => e)) as NodeApiError).kind).toBe('off');
    const err = (await client.rpc(base, proposervmPath(L1), 'proposervm.GetCurrentEpoch', {}, z.unknown(), signal()).catch((e: unknown) => e)) as NodeApiError;
    expect([err.kind, err.message]).toEqual(['rpc', expect.stringContaining('method must start with a non-uppercase letter')]);
  });

  it('refuses a bad node key with its path', () => {
    const result = scenarioSchema.safeParse({ world: { nodes: [{ nodeId: 'node-1', diskAvailablePercent: 140, metrics: { 'not a series': 1 } }] } });
    expect(result.success).toBe(false);
    const issues = result.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];
    expect(issues).toContain('world.nodes.0.nodeId: expected NodeID-…');
    expect(issues.some((i) => i.startsWith('world.nodes.0.diskAvailablePercent: '))).toBe(true);
    expect(issues.some((i) => i.startsWith('world.nodes.0.metrics.not a series: ') || i.startsWith('world.nodes.0.metrics: '))).toBe(true);
    const l1 = scenarioSchema.safeParse({ world: { nodes: [{ nodeId: NODE, cChain: 'sae', l1Chains: { 'not-an-id': {}, '2tsLsNQUZfZnqDD9WBhTyj2XyMcmSGJHWTo7qFrVqzaiWvWbjN': { protocol: 'forty-six' } } }] } });
    const l1Issues = l1.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];
    expect(l1Issues.some((i) => i.startsWith('world.nodes.0.cChain: '))).toBe(true);
    expect(l1Issues.some((i) => i.startsWith('world.nodes.0.l1Chains.not-an-id: '))).toBe(true);
    expect(l1Issues.some((i) => i.startsWith('world.nodes.0.l1Chains.2tsLsNQUZfZnqDD9WBhTyj2XyMcmSGJHWTo7qFrVqzaiWvWbjN.protocol: '))).toBe(true);
    expect(scenarioSchema.safeParse({ events: [{ at: '1m', node: { nodeId: NODE } }] }).error?.issues[0]?.message).toMatch(/^nothing to change: give one of network, upgrades, down, /);
  });
});
