import fc from 'fast-check';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpNodeApi, type NodeApiError } from '../../src/api/node-api.js';
import { healthReply, rpcEnvelope } from '../../src/api/node-schemas.js';
import { isBootstrappedReply, nodeIdReply, nodeUptime, nodeVersionReply, upgradesReply, uptimeReply } from '../../src/rules/node-health/read.js';
import { stakerItem } from '../../src/rules/pchain.js';
import { scenarioSchema } from '../../src/sim/scenario.js';
import { SimClock } from '../../src/sim/clock.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { World } from '../../src/sim/world.js';
import {
  APIArgs,
  APIReply,
  AutoRenewedValidator,
  NetworkHealthDetails,
  AVALANCHEGO,
  GetStakingAssetIDResponse,
  PermissionlessValidator,
  UpgradeConfig,
  conformance,
  GetNodeIDReply,
  GetNodeVersionReply,
  goString,
  goTime,
  goValue,
  IsBootstrappedResponse,
  PeersReply,
  Result,
  rpcResponse,
  UptimeResponse,
  type GenOptions,
  type GoType,
} from './node-go.js';
import { systemClock } from '../../src/base/clock.js';

// The node simulator and the node API parser held to AvalancheGo's own source (its reply
// structs, transcribed in node-go.ts from the commit below), not to hand-written client
// types. `npm test` runs a short seeded budget; AVAWATCH_CONTRACT_NODE_RUNS (and _SEED) run more.

const RUNS = Number(process.env['AVAWATCH_CONTRACT_NODE_RUNS'] ?? 150);
const SEED = process.env['AVAWATCH_CONTRACT_NODE_SEED'] === undefined ? 20_260_822 : Number(process.env['AVAWATCH_CONTRACT_NODE_SEED']);
const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const OTHER = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const PRIMARY = '11111111111111111111111111111111LpoYY';
const L1_SUBNET = '2hMMhMFfXKmLY1Dv9DZZ6yr9uEvh4TjfEsj3TtBKUhpMPTBGsB';
const L1_CHAIN = '2tsLsNQUZfZnqDD9WBhTyj2XyMcmSGJHWTo7qFrVqzaiWvWbjN';
const SUBNET_EVM = 'srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy';
/** An L1 with a VM ID of its own (not Subnet-EVM's). */
const OWN_VM = 'juFxSrbCM4wszxddKepj1GWwmrn9YgN1g4n3VUWPpRo9JjERA';
const OWN_VM_CHAIN = 'GAB1Y7VB4x4ZcLoTvfWeuoqTAxWz1ePy6ksRqWFBDhP3cmL4n';

/** The metric families avawatch's alerts read, with their type and label names (docs/node-api-source.md). */
const METRICS: Record<string, { type: 'gauge' | 'counter'; labels: string[] }> = {
  avalanche_resource_tracker_disk_available_percentage: { type: 'gauge', labels: [] },
  avalanche_resource_tracker_disk_available_space: { type: 'gauge', labels: [] },
  avalanche_health_checks_failing: { type: 'gauge', labels: ['check', 'tag'] },
  avalanche_network_peers: { type: 'gauge', labels: [] },
  avalanche_network_node_uptime_rewarding_stake: { type: 'gauge', labels: [] },
  avalanche_network_node_uptime_weighted_average: { type: 'gauge', labels: [] },
  avalanche_stake_percent_connected: { type: 'gauge', labels: ['chain'] },
  avalanche_snowman_blks_processing: { type: 'gauge', labels: ['chain'] },
  avalanche_snowman_blks_accepted_count: { type: 'counter', labels: ['chain'] },
  avalanche_snowman_blks_rejected_count: { type: 'counter', labels: ['chain'] },
  avalanche_snowman_polls_successful: { type: 'counter', labels: ['chain'] },
  avalanche_snowman_polls_failed: { type: 'counter', labels: ['chain'] },
  avalanche_benchlist_benched_num: { type: 'gauge', labels: ['chain'] },
  avalanche_benchlist_benched_weight: { type: 'gauge', labels: ['chain'] },
  avalanche_upgrade_time_until: { type: 'gauge', labels: [] },
  avalanche_stake_num_validators: { type: 'gauge', labels: ['chain'] },
  avalanche_evm_eth_chain_block_bad_count: { type: 'counter', labels: ['chain'] },
};
/** The C-Chain's series after Helicon (transitionvm "transition", SAE "sae", "cchain"; v1.15.0-fuji), present only then. */
const SAE_METRICS: Record<string, { type: 'gauge' | 'counter'; labels: string[] }> = Object.fromEntries([
  ...['last_executed_height', 'last_settled_height', 'execution_queue_blocks', 'execution_queue_gas_limit', 'last_executed_gas_time_seconds', 'gas_time_wall_time_gap_seconds', 'gas_target', 'in_memory_blocks'].map((n) => [`avalanche_evm_transition_sae_${n}`, { type: 'gauge', labels: ['chain'] }]),
  ...['executed_gas_charged_total', 'executed_gas_limit_total', 'accepted_gas_limit_total'].map((n) => [`avalanche_evm_transition_sae_${n}`, { type: 'counter', labels: ['chain'] }]),
  ['avalanche_evm_transition_cchain_min_block_delay_seconds', { type: 'gauge', labels: ['chain'] }],
]);

let sim: SimServer | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function nodeSim(node: Record<string, unknown> = {}): Promise<string> {
  sim = await startSim({ world: new World(new SimClock(Date.parse('2026-08-22T00:00:00Z'), 0)), scenario: { speed: 0, world: { nodes: [{ nodeId: NODE, ...node }] }, events: [] } as never });
  return `${sim.url}/node/${NODE}`;
}

async function get(url: string): Promise<{ status: number; contentType: string; text: string }> {
  const res = await request(url);
  return { status: res.statusCode, contentType: String(res.headers['content-type']), text: await res.body.text() };
}

async function call(base: string, method: string, params: Record<string, unknown> = {}): Promise<{ status: number; text: string; json: unknown }> {
  const res = await request(`${base}/ext/info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const text = await res.body.text();
  return { status: res.statusCode, text, json: JSON.parse(text) as unknown };
}

/** A simulator answer as Go writes it: the struct's fields and encodings, and a body ending in a newline. */
function expectGo(text: string, type: GoType): unknown {
  expect(text.endsWith('}\n'), 'Go encoder ends the body with a newline').toBe(true);
  const value = JSON.parse(text) as unknown;
  expect(conformance(value, type)).toEqual([]);
  return value;
}

/** Prometheus text exposition: known families have their type and label names. */
function expectExposition(text: string, absent: string[] = []): Map<string, number> {
  const samples = new Map<string, number>();
  const types = new Map<string, string>();
  for (const line of text.trimEnd().split('\n')) {
    const type = /^# TYPE (\S+) (gauge|counter|untyped|histogram|summary)$/.exec(line);
    if (type) {
      expect(types.has(type[1] as string), `${type[1]} has one TYPE line`).toBe(false);
      types.set(type[1] as string, type[2] as string);
      continue;
    }
    if (line.startsWith('# HELP ')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*")(,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*")*\})? (\S+)$/.exec(line);
    expect(m, `a sample line: ${line}`).not.toBeNull();
    const name = m?.[1] as string;
    const labels = [...(m?.[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g)].map((l) => l[1]);
    const known = METRICS[name] ?? SAE_METRICS[name];
    if (known) {
      expect(types.get(name), name).toBe(known.type);
      expect(labels.sort(), line).toEqual([...known.labels].sort());
    }
    samples.set(`${name}${m?.[2] ?? ''}`, m?.[5] === '+Inf' ? Infinity : Number(m?.[5]));
  }
  for (const name of Object.keys(METRICS)) expect(types.has(name), `the exposition has ${name}`).toBe(!absent.includes(name));
  return samples;
}

const client = new HttpNodeApi({ timeoutMs: 2_000, clock: systemClock });
const signal = () => new AbortController().signal;

describe(`the node simulator answers as ${AVALANCHEGO.version} (avalanchego@${AVALANCHEGO.commit.slice(0, 12)}, gorilla/rpc ${AVALANCHEGO.gorillaRpc}) does`, () => {
  it('/ext/health: 200 with a healthy APIReply; a disk filling: 503 with the same struct, diskspace failing in Go words, counted per 30 s check run', async () => {
    const base = await nodeSim();
    const healthy = await get(`${base}/ext/health`);
    expect([healthy.status, healthy.contentType]).toEqual([200, 'application/json']);
    expect((expectGo(healthy.text, APIReply) as { healthy: boolean }).healthy).toBe(true);
    sim!.world.nodes.set({ nodeId: NODE, diskAvailablePercent: 8 });
    const diskspace = async () => {
      const sick = await get(`${base}/ext/health`);
      expect(sick.status).toBe(503);
      const reply = expectGo(sick.text, APIReply) as { healthy: boolean; checks: Record<string, Record<string, unknown>> };
      expect(reply.healthy).toBe(false);
      return reply.checks['diskspace'];
    };
    const failing = { error: 'remaining available disk space percentage (8%) is below warning threshold available space percentage (10%)', message: { availableDiskBytes: expect.any(Number), availableDiskPercentage: 8 } };
    // api/health/worker.go: a run every 30 s counts; reading the answer twice counts nothing.
    await diskspace();
    expect(await diskspace()).toMatchObject({ ...failing, contiguousFailures: 1, timeOfFirstFailure: '2026-08-22T00:00:00Z', timestamp: '2026-08-22T00:00:00Z' });
    sim!.world.clock.advance(29_000);
    expect(await diskspace()).toMatchObject({ contiguousFailures: 1 });
    sim!.world.clock.advance(1_000);
    expect(await diskspace()).toMatchObject({ contiguousFailures: 2, timeOfFirstFailure: '2026-08-22T00:00:00Z', timestamp: '2026-08-22T00:00:30Z' });
    sim!.world.clock.advance(61_000);
    expect(await diskspace()).toMatchObject({ contiguousFailures: 4, timestamp: '2026-08-22T00:01:30Z' });
    const samples = expectExposition((await get(`${base}/ext/metrics`)).text);
    expect(samples.get('avalanche_resource_tracker_disk_available_percentage')).toBe(8);
    // One failing check, however many runs and reads: the gauge counts checks (an application check counts on every tag).
    expect(['all', 'application', PRIMARY].map((tag) => samples.get(`avalanche_health_checks_failing{check="health",tag="${tag}"}`))).toEqual([1, 1, 1]);
  });

  it('health.health, health.readiness, health.liveness (APIArgs {tags}) and GET /ext/health/{health,readiness,liveness}?tag=: the workers\' APIReply, filtered by tag', async () => {
    const base = await nodeSim({ l1Chains: { [L1_CHAIN]: { subnetId: L1_SUBNET } }, failing: { C: 'chain C is stuck' } });
    const rpc = async (method: string, params: unknown) => {
      const res = await request(`${base}/ext/health`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
      expect(res.statusCode).toBe(200);
      return (expectGo(await res.body.text(), rpcResponse(APIReply)) as { result: { checks: Record<string, unknown>; healthy: boolean } }).result;
    };
    expect(conformance({ tags: [L1_SUBNET] }, APIArgs)).toEqual([]);
    const all = await rpc('health.health', {});
    expect(Object.keys(all.checks)).toEqual(['C', L1_CHAIN, 'P', 'X', 'bls', 'bootstrapped', 'database', 'diskspace', 'futureupgrade', 'network', 'router'].sort());
    expect(all.healthy).toBe(false);
    // worker.Results: the checks with a tag asked, and the application checks always.
    const l1 = await rpc('health.health', { tags: [L1_SUBNET] });
    expect([Object.keys(l1.checks), l1.healthy]).toEqual([[L1_CHAIN, 'bls', 'bootstrapped', 'database', 'diskspace', 'futureupgrade', 'network', 'router'].sort(), true]);
    const primary = await get(`${base}/ext/health/health?tag=${PRIMARY}`);
    expect(primary.status).toBe(503);
    expect(Object.keys((expectGo(primary.text, APIReply) as { checks: object }).checks)).toEqual(['C', 'P', 'X', 'bls', 'bootstrapped', 'database', 'diskspace', 'futureupgrade', 'network', 'router']);
    expect(await rpc('health.readiness', { tags: null })).toMatchObject({ checks: { bootstrapped: { message: [] } }, healthy: true });
    expect(await rpc('health.liveness', {})).toEqual({ checks: {}, healthy: true });
    const liveness = await get(`${base}/ext/health/liveness`);
    expect([liveness.status, liveness.text]).toEqual([200, '{"checks":{},"healthy":true}\n']);
    const unknown = await request(`${base}/ext/health`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'health.ready', params: {} }) });
    expect(await unknown.body.text()).toBe('{"jsonrpc":"2.0","error":{"code":-32000,"message":"rpc: can\'t find method \\"health.Ready\\"","data":null},"id":2}\n');
    // The failing gauges: a chain's check counts on `all` and its subnet's tag, not on `application`.
    const samples = expectExposition((await get(`${base}/ext/metrics`)).text);
    expect(['all', 'application', PRIMARY, L1_SUBNET].map((tag) => samples.get(`avalanche_health_checks_failing{check="health",tag="${tag}"}`))).toEqual([1, 0, 1, 0]);
    expect(samples.get('avalanche_health_checks_failing{check="readiness",tag="all"}')).toBe(0);
  });

  it('the network check\'s message: connectedPeers and the other keys network.go sets, the peer count without info.peers', async () => {
    const base = await nodeSim({ peers: 5_000 });
    const checks = (expectGo((await get(`${base}/ext/health`)).text, APIReply) as { checks: Record<string, { message: unknown }> }).checks;
    expect(conformance(checks['network']?.message, NetworkHealthDetails)).toEqual([]);
    expect(checks['network']?.message).toMatchObject({ connectedPeers: 5_000, sendFailRate: 0, 'primary network validator health': { primaryNetworkValidator: true } });
    sim!.world.nodes.set({ nodeId: NODE, peers: 0 });
    const sick = (expectGo((await get(`${base}/ext/health`)).text, APIReply) as { checks: Record<string, { message: unknown; error?: string }> }).checks['network'];
    expect(sick?.error).toBe('network layer is unhealthy reason: not connected to a minimum of 1 peer(s) only 0');
    expect(conformance(sick?.message, NetworkHealthDetails)).toEqual([]);
    expect(sick?.message).toMatchObject({ connectedPeers: 0 });
  });

  it('a chain that stops being bootstrapped: info.isBootstrapped false, the bootstrapped check failing, readiness 503 until it first passes', async () => {
    const base = await nodeSim({ bootstrapped: { C: false } });
    const answer = await call(base, 'info.isBootstrapped', { chain: 'C' });
    expect(answer.status).toBe(200);
    expect((expectGo(answer.text, rpcResponse(IsBootstrappedResponse)) as { result: unknown }).result).toEqual({ isBootstrapped: false });
    const health = await get(`${base}/ext/health`);
    expect(health.status).toBe(503);
    expect((expectGo(health.text, APIReply) as { checks: Record<string, unknown> }).checks['bootstrapped']).toMatchObject({ error: 'subnets not bootstrapped', message: ['11111111111111111111111111111111LpoYY'] });
    const readiness = await get(`${base}/ext/health/readiness`);
    expect(readiness.status).toBe(503);
    expectGo(readiness.text, APIReply);
    const unknown = await call(base, 'info.isBootstrapped', { chain: 'Q' });
    expect(expectGo(unknown.text, rpcResponse(IsBootstrappedResponse))).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: "there is no chain with alias/ID 'Q'", data: null }, id: 1 });
    // Readiness is a monotonic check (RegisterMonotonicCheck): once passed it passes for good, while health's `bootstrapped` follows the chains.
    sim!.world.nodes.set({ nodeId: NODE, bootstrapped: { C: true } });
    expect((await get(`${base}/ext/health/readiness`)).status).toBe(200);
    sim!.world.nodes.set({ nodeId: NODE, bootstrapped: { C: false } });
    expect([(await get(`${base}/ext/health/readiness`)).status, (await get(`${base}/ext/health`)).status]).toEqual([200, 503]);
  });

  it('another NodeID: info.getNodeID and the node-id header name it, with a HexNC nodePOP', async () => {
    const base = await nodeSim({ reportsNodeId: OTHER });
    const answer = await call(base, 'info.getNodeID');
    const value = expectGo(answer.text, rpcResponse(GetNodeIDReply)) as { result: { nodeID: string } };
    expect(value.result.nodeID).toBe(OTHER);
    expect((await request(`${base}/ext/health`).then(async (r) => (await r.body.dump(), r.headers['node-id'])))).toBe(OTHER);
    sim!.world.nodes.set({ nodeId: NODE, blsPublicKey: null });
    expect((expectGo((await call(base, 'info.getNodeID')).text, rpcResponse(GetNodeIDReply)) as { result: unknown }).result).toEqual({ nodeID: OTHER, nodePOP: null });
  });

  it('an old version: info.getNodeVersion', async () => {
    const base = await nodeSim({ version: 'avalanchego/1.11.3' });
    const value = expectGo((await call(base, 'info.getNodeVersion')).text, rpcResponse(GetNodeVersionReply)) as { result: { version: string } };
    expect(value.result.version).toBe('avalanchego/1.11.3');
  });

  it('low rewarding stake: info.uptime with json.Float64 strings; not a validator: the Go error, and the uptime gauges 0', async () => {
    const base = await nodeSim({ rewardingStake: 61.23456, weightedAverage: 79.5 });
    const value = expectGo((await call(base, 'info.uptime')).text, rpcResponse(UptimeResponse)) as { result: unknown };
    expect(value.result).toEqual({ rewardingStakePercentage: '61.2346', weightedAveragePercentage: '79.5000' });
    expect(expectExposition((await get(`${base}/ext/metrics`)).text).get('avalanche_network_node_uptime_rewarding_stake')).toBe(61.23456);
    sim!.world.nodes.set({ nodeId: NODE, validator: false });
    expect(expectGo((await call(base, 'info.uptime')).text, rpcResponse(UptimeResponse))).toMatchObject({ error: { code: -32000, message: "couldn't get node uptime: node is not a validator", data: null } });
    // network.go sets NodeUptime's zero result when the node validates nothing.
    const samples = expectExposition((await get(`${base}/ext/metrics`)).text);
    expect([samples.get('avalanche_network_node_uptime_rewarding_stake'), samples.get('avalanche_network_node_uptime_weighted_average')]).toEqual([0, 0]);
  });

  it('info.peers: numPeers a json.Uint64 and peer.Info entries; an unknown method as gorilla/rpc answers it', async () => {
    const base = await nodeSim({ peers: 42 });
    const value = expectGo((await call(base, 'info.peers')).text, rpcResponse(PeersReply)) as { result: { numPeers: string } };
    expect(value.result.numPeers).toBe('42');
    const unknown = await call(base, 'info.acpz');
    expect(unknown.status).toBe(200);
    expect(unknown.json).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'rpc: can\'t find method "info.Acpz"', data: null }, id: 1 });
  });

  it('/ext/metrics: the source\'s metric names, types and labels', async () => {
    const base = await nodeSim({ peers: 7 });
    const samples = expectExposition((await get(`${base}/ext/metrics`)).text);
    expect(samples.get('avalanche_network_peers')).toBe(7);
    expect(samples.get('avalanche_health_checks_failing{check="health",tag="all"}')).toBe(0);
  });

  it('info.getNodeVersion: a 1.15.0 node speaks RPCChainVM protocol 46 and lists its L1 plugin in vmVersions; a 1.14.2 node 45 (compatibility.json)', async () => {
    const base = await nodeSim({ version: 'avalanchego/1.15.0', l1Chains: { [L1_CHAIN]: { subnetId: L1_SUBNET, vmVersion: 'v0.8.1' } } });
    const value = expectGo((await call(base, 'info.getNodeVersion')).text, rpcResponse(GetNodeVersionReply)) as { result: Record<string, unknown> };
    expect(value.result).toMatchObject({ version: 'avalanchego/1.15.0', rpcProtocolVersion: '46', vmVersions: { avm: 'v1.15.0', evm: 'v1.15.0', platform: 'v1.15.0', [SUBNET_EVM]: 'v0.8.1' } });
    expect(expectGo((await call(base, 'info.isBootstrapped', { chain: L1_CHAIN })).text, rpcResponse(IsBootstrappedResponse))).toMatchObject({ result: { isBootstrapped: true } });
    sim!.world.nodes.set({ nodeId: NODE, version: 'avalanchego/1.14.2' });
    expect(((expectGo((await call(base, 'info.getNodeVersion')).text, rpcResponse(GetNodeVersionReply)) as { result: Record<string, unknown> }).result)['rpcProtocolVersion']).toBe('45');
  });

  it('a plugin of another protocol refused at the handshake: its VM missing from vmVersions, its chain\'s check failing in chains/manager.go words, no such chain for info nor metrics', async () => {
    const base = await nodeSim({ version: 'avalanchego/1.15.0', l1Chains: { [L1_CHAIN]: { subnetId: L1_SUBNET, vmVersion: 'v0.7.4', protocol: 45 } } });
    const value = expectGo((await call(base, 'info.getNodeVersion')).text, rpcResponse(GetNodeVersionReply)) as { result: { vmVersions: Record<string, string> } };
    expect(value.result.vmVersions).toEqual({ avm: 'v1.15.0', evm: 'v1.15.0', platform: 'v1.15.0' });
    const health = await get(`${base}/ext/health`);
    expect(health.status).toBe(503);
    const check = (expectGo(health.text, APIReply) as { checks: Record<string, Record<string, unknown>> }).checks[L1_CHAIN];
    expect(check?.['error']).toBe(
      `failed to create chain on subnet ${L1_SUBNET}: error while creating vm: handshake failed: RPCChainVM protocol version mismatch between AvalancheGo and Virtual Machine plugin. AvalancheGo version avalanchego/1.15.0 implements RPCChainVM protocol version 46. The VM located at /home/avalanche/.avalanchego/plugins/${SUBNET_EVM} implements RPCChainVM protocol version 45. Please make sure that there is an exact match of the protocol versions. This can be achieved by updating your VM or running an older/newer version of AvalancheGo. Please be advised that some virtual machines may not yet support the latest RPCChainVM protocol version`,
    );
    expect(check?.['message']).toBeUndefined();
    expect((expectGo((await call(base, 'info.isBootstrapped', { chain: L1_CHAIN })).text, rpcResponse(IsBootstrappedResponse)) as { error: { message: string } }).error.message).toBe(`there is no chain with alias/ID '${L1_CHAIN}'`);
    const samples = expectExposition((await get(`${base}/ext/metrics`)).text);
    expect([...samples.keys()].filter((k) => k.includes(L1_CHAIN))).toEqual([]);
    expect(samples.get(`avalanche_health_checks_failing{check="health",tag="${L1_SUBNET}"}`)).toBe(1);
    // The plugin updated (the node restarted): it runs.
    sim!.world.nodes.set({ nodeId: NODE, l1Chains: { [L1_CHAIN]: { protocol: 46, vmVersion: 'v0.8.1' } } });
    expect((await get(`${base}/ext/health`)).status).toBe(200);
  });

  it('/ext/metrics: per chain the polls, benched, validators; Coreth\'s bad-block counter; an L1 chain under its plugin\'s VM namespace (chains/manager.go constants.VMName, vm_server.go)', async () => {
    const base = await nodeSim({ l1Chains: { [L1_CHAIN]: { subnetId: L1_SUBNET }, [OWN_VM_CHAIN]: { vmId: OWN_VM } } });
    sim!.world.clock.advance(60_000);
    const samples = expectExposition((await get(`${base}/ext/metrics`)).text);
    for (const chain of ['P', 'X', 'C', L1_CHAIN]) {
      for (const name of ['avalanche_stake_num_validators', 'avalanche_snowman_polls_successful', 'avalanche_snowman_polls_failed', 'avalanche_snowman_blks_processing', 'avalanche_benchlist_benched_num']) {
        expect(samples.has(`${name}{chain="${chain}"}`), `${name}{chain="${chain}"}`).toBe(true);
      }
    }
    expect(samples.get('avalanche_snowman_polls_successful{chain="C"}')).toBeGreaterThan(0);
    expect(samples.get('avalanche_evm_eth_chain_block_bad_count{chain="C"}')).toBe(0);
    // Subnet-EVM's usual VM ID is the node's built-in SubnetEVMID, named subnetevm; another VM is named by its ID.
    expect(samples.get(`avalanche_subnetevm_vm_eth_chain_block_bad_count{chain="${L1_CHAIN}"}`)).toBe(0);
    expect(samples.get(`avalanche_${OWN_VM}_vm_eth_chain_block_bad_count{chain="${OWN_VM_CHAIN}"}`)).toBe(0);
    expect(samples.get('avalanche_resource_tracker_disk_available_space')).toBeGreaterThan(0);
    expect([...samples.keys()].some((k) => k.startsWith('avalanche_evm_transition_'))).toBe(false);
  });

  it('/ext/metrics after Helicon: SAE\'s series as the transition VM composes them (avalanche_evm_transition_sae_*{chain="C"}); Coreth\'s counter frozen, then gone after a restart', async () => {
    const base = await nodeSim({ version: 'avalanchego/1.15.0', network: 'fuji', cChain: 'switched', metrics: { 'avalanche_evm_eth_chain_block_bad_count{chain="C"}': 2 } });
    sim!.world.clock.advance(120_000);
    const samples = expectExposition((await get(`${base}/ext/metrics`)).text);
    for (const name of Object.keys(SAE_METRICS)) expect(samples.has(`${name}{chain="C"}`), name).toBe(true);
    expect(samples.get('avalanche_evm_transition_sae_last_executed_height{chain="C"}')).toBeGreaterThanOrEqual(samples.get('avalanche_evm_transition_sae_last_settled_height{chain="C"}') ?? Infinity);
    expect(samples.get('avalanche_evm_transition_sae_gas_time_wall_time_gap_seconds{chain="C"}')).toBeLessThanOrEqual(0);
    expect(samples.get('avalanche_evm_eth_chain_block_bad_count{chain="C"}')).toBe(2);
    sim!.world.nodes.set({ nodeId: NODE, cChain: 'restarted', metrics: { 'avalanche_evm_eth_chain_block_bad_count{chain="C"}': null } });
    const after = expectExposition((await get(`${base}/ext/metrics`)).text, ['avalanche_evm_eth_chain_block_bad_count']);
    expect(after.has('avalanche_evm_transition_sae_execution_queue_blocks{chain="C"}')).toBe(true);
  });

  it('--api-health-enabled=false: /ext/health answers gorilla/mux\'s 404, info answers, the disk gauges stay 0, no upgrade gauge; the chains\' checks still count', async () => {
    const base = await nodeSim({ healthApi: false, diskAvailablePercent: 5, failing: { C: 'chain C is stuck' } });
    for (const [method, path] of [['GET', ''], ['GET', '/readiness'], ['POST', '']] as const) {
      const res = await request(`${base}/ext/health${path}`, { method, ...(method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"health.health","params":{}}' } : {}) });
      expect([res.statusCode, res.headers['content-type'], res.headers['node-id'], await res.body.text()]).toEqual([404, 'text/plain; charset=utf-8', NODE, '404 page not found\n']);
    }
    const offErr = (await client.health(base, signal()).catch((e: unknown) => e)) as NodeApiError;
    expect(offErr.kind).toBe('off');
    expectGo((await call(base, 'info.getNodeVersion')).text, rpcResponse(GetNodeVersionReply));
    const samples = expectExposition((await get(`${base}/ext/metrics`)).text, ['avalanche_upgrade_time_until']);
    expect([samples.get('avalanche_resource_tracker_disk_available_percentage'), samples.get('avalanche_resource_tracker_disk_available_space')]).toEqual([0, 0]);
    // chains/manager.go registers its checks whatever the flag: C's failure is counted, the disk (no diskspace check) is not.
    expect(['all', 'application', PRIMARY].map((tag) => samples.get(`avalanche_health_checks_failing{check="health",tag="${tag}"}`))).toEqual([1, 0, 1]);
  });

  it('--api-info-enabled=false: /ext/info answers 404, health and metrics answer', async () => {
    const base = await nodeSim({ infoApi: false });
    const res = await request(`${base}/ext/info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"info.getNodeVersion","params":{}}' });
    expect([res.statusCode, await res.body.text()]).toEqual([404, '404 page not found\n']);
    expect((await get(`${base}/ext/health`)).status).toBe(200);
    expectExposition((await get(`${base}/ext/metrics`)).text);
  });

  it('info.upgrades on a Fuji node of the v1.15.0-fuji tag: Helicon 2026-07-28 15:00 (upgrade/upgrade.go)', async () => {
    const base = await nodeSim({ network: 'fuji', version: 'avalanchego/1.15.0' });
    const value = expectGo((await call(base, 'info.upgrades')).text, rpcResponse(UpgradeConfig)) as { result: Record<string, unknown> };
    expect(value.result).toMatchObject({ graniteTime: '2025-10-29T15:00:00Z', heliconTime: '2026-07-28T15:00:00Z' });
  });

  it('info.upgrades: upgrade.Config of the node\'s network (v1.15.0: Helicon on both), flat, times RFC 3339, the epoch in nanoseconds', async () => {
    const base = await nodeSim();
    const value = expectGo((await call(base, 'info.upgrades')).text, rpcResponse(UpgradeConfig)) as { result: Record<string, unknown> };
    expect(value.result).toMatchObject({ durangoTime: '2024-03-06T16:00:00Z', graniteTime: '2025-11-19T16:00:00Z', heliconTime: '2026-09-22T15:00:00Z', graniteEpochDuration: 300_000_000_000 });
  });

  it('/ext/bc/P: getCurrentValidators as service.go writes (PermissionlessValidator; the AutoRenewedConfig inline, only for one that renews); getStakingAssetID', async () => {
    const start = '2026-08-22T00:00:00Z';
    sim = await startSim({
      world: new World(new SimClock(Date.parse(start), 0)),
      scenario: scenarioSchema.parse({
        start,
        speed: 0,
        world: {
          validations: [
            { nodeId: NODE, txHash: '2wAutoRenewTx2wAutoRenewTx2wAutoRenewTx2wAutoRe', start: '-1d', end: '+13d', status: 'active', autoRenew: { nextPeriod: '14d', compoundShare: '25%' } },
            { nodeId: OTHER, txHash: '2wPermissionessTx2wPermissionessTx2wPermissione', start: '-30d', end: '+300d', status: 'active' },
          ],
          nodes: [{ nodeId: NODE }],
        },
      }),
    });
    const pchain = async (method: string, params: Record<string, unknown>) => {
      const res = await request(`${sim?.url}/node/${NODE}/ext/bc/P`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
      return res.body.text();
    };
    for (const nodeIDs of [[NODE, OTHER], [NODE], [OTHER]]) {
      const text = await pchain('platform.getCurrentValidators', { nodeIDs });
      const items = (JSON.parse(text) as { result: { validators: Array<Record<string, unknown>> } }).result.validators;
      expect(items.map((v) => v['nodeID'])).toEqual(nodeIDs);
      for (const v of items) expect(conformance(v, v['nodeID'] === NODE ? AutoRenewedValidator : PermissionlessValidator)).toEqual([]);
      expect(text.endsWith('}\n')).toBe(true);
    }
    expectGo(await pchain('platform.getStakingAssetID', { subnetID: '11111111111111111111111111111111LpoYY' }), rpcResponse(GetStakingAssetIDResponse));
  });

  it('node down: the connection ends with no answer, read as unreachable', async () => {
    const base = await nodeSim({ down: true });
    for (const read of [() => client.health(base, signal()), () => nodeUptime(client, base, signal()), () => client.metricsText(`${base}/ext/metrics`, signal())]) {
      const err = (await read().catch((e: unknown) => e)) as NodeApiError;
      expect(err.kind).toBe('unreachable');
    }
  });
});

// ---- generated answers: everything the Go source can write is accepted, with the right values.

/** A Go time.Time text's instant, read without Date.parse: the parser's answer is checked against it. */
function goInstant(text: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|([+-])(\d{2}):(\d{2}))$/.exec(text);
  if (!m) throw new Error(`not a Go time: ${text}`);
  const d = new Date(0);
  d.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  d.setUTCHours(Number(m[4]), Number(m[5]), Number(m[6]), Math.floor(Number(`0.${m[7] ?? '0'}`) * 1000 + 1e-7));
  const offset = m[8] === 'Z' ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
  return d.getTime() - offset * 60_000;
}

const options: fc.Arbitrary<GenOptions> = fc.record({ bare: fc.boolean(), extra: fc.boolean() });
const resultMap: GoType = { go: 'map', value: Result };

describe(`avawatch's node reply schemas (node-schemas.ts, node-health/read.ts) read every answer ${AVALANCHEGO.version}'s source can write`, () => {
  it('health.APIReply: any check names, message JSON, errors, int64 failures, times in any zone, unknown fields', () => {
    const reply = options.chain((o) =>
      fc.tuple(goValue(resultMap, o), o.extra ? fc.jsonValue({ maxDepth: 2 }) : fc.constant(undefined)).map(([checks, more]) => {
        const parsed = JSON.parse(checks) as Record<string, { error?: unknown }>;
        const healthy = Object.values(parsed).every((c) => c.error === undefined || c.error === null);
        return `{"checks":${checks},"healthy":${healthy}${more === undefined ? '' : `,"futureField":${JSON.stringify(more)}`}}\n`;
      }),
    );
    fc.assert(
      fc.property(reply, (text) => {
        const raw = JSON.parse(text) as { checks: Record<string, Record<string, unknown>>; healthy: boolean };
        const got = healthReply.parse(raw);
        expect(got.healthy).toBe(raw.healthy);
        const names = Object.keys(raw.checks).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        expect(got.checks.map((c) => c.name)).toEqual(names);
        for (const c of got.checks) {
          const r = raw.checks[c.name] as Record<string, unknown>;
          const error = typeof r['error'] === 'string' ? r['error'] : undefined;
          expect(c.error).toBe(error);
          expect(c.contiguousFailures).toBe(typeof r['contiguousFailures'] === 'number' ? Math.trunc(r['contiguousFailures']) : 0);
          const first = r['timeOfFirstFailure'];
          if (error === undefined || typeof first !== 'string') expect(c.timeOfFirstFailure).toBeUndefined();
          else expect(Math.abs(Date.parse(c.timeOfFirstFailure ?? '') - goInstant(first))).toBeLessThanOrEqual(1);
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('time.Time: RFC 3339 with nanoseconds and any offset reads as the same instant', () => {
    fc.assert(
      fc.property(goTime, (t) => {
        const c = healthReply.parse({ checks: { x: { error: 'e', contiguousFailures: 1, timeOfFirstFailure: t.text } }, healthy: false }).checks[0];
        expect(Date.parse(c?.timeOfFirstFailure ?? '')).toBe(t.ms);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  const rpc = <T>(type: GoType, schema: { parse: (v: unknown) => T }, check: (raw: Record<string, unknown>, got: T) => void) =>
    fc.assert(
      fc.property(
        options.chain((o) => goValue(rpcResponse(type), o).map((t) => ({ t, o }))),
        ({ t }) => {
          const envelope = rpcEnvelope.parse(JSON.parse(t));
          if (envelope.error) {
            expect(typeof envelope.error.message === 'string').toBe(true);
            return;
          }
          if (envelope.result === undefined) return; // neither result nor error: the client reads it as invalid
          check(envelope.result as Record<string, unknown>, schema.parse(envelope.result));
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );

  it('info.getNodeID, getNodeVersion, isBootstrapped, peers: every reply struct, numbers bare or quoted', () => {
    rpc(GetNodeIDReply, nodeIdReply, (raw, got) => {
      expect(got.nodeId).toBe(raw['nodeID']);
      const pop = raw['nodePOP'] as { publicKey: string } | null;
      expect(got.blsPublicKey).toBe(pop === null || pop.publicKey === '' ? undefined : pop.publicKey.toLowerCase());
    });
    rpc(GetNodeVersionReply, nodeVersionReply, (raw, got) => expect(got).toBe(raw['version']));
    rpc(IsBootstrappedResponse, isBootstrappedReply, (raw, got) => expect(got).toBe(raw['isBootstrapped']));
  });

  it('info.uptime: json.Float64 percentages read exactly; out of 0..100 or not finite is no reading', () => {
    rpc(UptimeResponse, uptimeReply, (raw, got) => {
      expect(got).toEqual({ rewardingStakePercentage: Number(raw['rewardingStakePercentage']), weightedAveragePercentage: Number(raw['weightedAveragePercentage']) });
    });
    const odd = fc.oneof(fc.constantFrom('"NaN"', '"+Inf"', '"-Inf"', '"100.0001"', '"-0.0001"', '""', 'null', '"1e999"'), fc.double({ min: 100.0001, max: 1e300 }).map((d) => `"${d.toFixed(4)}"`));
    fc.assert(
      fc.property(odd, (v) => {
        expect(uptimeReply.safeParse(JSON.parse(`{"rewardingStakePercentage":${v},"weightedAveragePercentage":"50.0000"}`)).success, v).toBe(false);
      }),
      { seed: SEED, numRuns: Math.min(RUNS, 100) },
    );
  });

  it('gorilla/rpc json2 errors: any code, any message, any data', () => {
    const error = fc.record({ code: fc.integer(), message: fc.string(), data: fc.jsonValue({ maxDepth: 2 }) });
    fc.assert(
      fc.property(error, fc.jsonValue({ maxDepth: 1 }), (e, id) => {
        const text = `{"jsonrpc":"2.0","error":{"code":${e.code},"message":${goString(e.message)},"data":${JSON.stringify(e.data)}},"id":${JSON.stringify(id)}}\n`;
        expect(rpcEnvelope.parse(JSON.parse(text)).error?.message).toBe(e.message);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it("platform.getCurrentValidators: every validator item the source can write (auto-renewed or not, numbers bare or quoted, later fields) is read, or failed alone, never thrown", () => {
    const item = options.chain((o) => fc.oneof(goValue(PermissionlessValidator, o), goValue(AutoRenewedValidator, o)));
    fc.assert(
      fc.property(item, (text) => {
        const raw = JSON.parse(text) as Record<string, unknown>;
        const got = stakerItem.safeParse(raw);
        const [start, end] = [Number(raw['startTime']), Number(raw['endTime'])];
        // A bare number past 2^53 (a proxy re-encoding a json.Uint64) lost its digits in JSON.parse: no reading.
        const weight = raw['weight'];
        const readable = Number.isSafeInteger(start) && Number.isSafeInteger(end) && end > start && (typeof weight === 'string' || Number.isSafeInteger(weight)) && String(raw['txID']).length <= 100 && /^NodeID-[1-9A-HJ-NP-Za-km-z]{20,60}$/.test(String(raw['nodeID']));
        const shares = Number(raw['autoCompoundRewardShares'] ?? 0);
        const renews = 'nextPeriod' in raw;
        const valid = readable && (!renews || (Number.isSafeInteger(Number(raw['nextPeriod'])) && shares <= 1_000_000));
        expect(got.success, text.slice(0, 200)).toBe(valid);
        if (!got.success) return;
        expect([got.data.nodeId, got.data.start, got.data.end, got.data.weight]).toEqual([raw['nodeID'], start, end, BigInt(String(raw['weight'])).toString()]);
        expect(got.data.autoRenew === undefined).toBe(!renews);
        if (got.data.autoRenew) expect([got.data.autoRenew.nextPeriod, got.data.autoRenew.compoundShares]).toEqual([Number(raw['nextPeriod']), shares]);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('info.upgrades: every upgrade.Config, each time read as its instant by name', () => {
    rpc(UpgradeConfig, upgradesReply, (raw, got) => {
      for (const [key, value] of Object.entries(raw)) {
        if (!key.endsWith('Time') || typeof value !== 'string') continue;
        expect(got[key.slice(0, -4)]).toBe(Math.floor(goInstant(value) / 1000));
      }
    });
  });
});
