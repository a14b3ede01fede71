import { describe, expect, it } from 'vitest';
import { failure, json, nodeServer, rpc } from '../../../test/helpers/node-server.js';
import { HttpNodeApi } from '../../api/node-api.js';
import { systemClock } from '../../base/clock.js';
import { gaugeValue, isBootstrapped, isBootstrappedReply, metricsUrlOf, nodeIdentity, nodeIdReply, nodeUptime, nodeVersion, nodeVersionReply, peersOfMetrics } from './read.js';

// The kind's info calls through the real node API client, against a loopback server answering
// as AvalancheGo does (the transport itself: src/api/node-api.spec.ts).

const { serve, seen } = nodeServer();
const signal = () => new AbortController().signal;
// Loopback: a generous deadline, as a busy machine's first call also loads undici (the timeout is not what is tested).
const api = () => new HttpNodeApi({ timeoutMs: 15_000, clock: systemClock });

describe('node-health reads the info calls', () => {
  it('calls the info methods at /ext/info and reads the strings-encoded numbers', async () => {
    const results: Record<string, unknown> = {
      'info.getNodeID': { nodeID: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', nodePOP: { publicKey: `0x${'AB'.repeat(48)}`, proofOfPossession: '0x00' } },
      'info.getNodeVersion': { version: 'avalanchego/1.14.2', databaseVersion: 'v1.4.5', rpcProtocolVersion: '45', gitCommit: 'x', vmVersions: {} },
      'info.isBootstrapped': { isBootstrapped: false },
      'info.uptime': { rewardingStakePercentage: '79.9876', weightedAveragePercentage: 98.5 },
    };
    const base = await serve((_req, res, body) => {
      const call = JSON.parse(body) as { method: string; id: number };
      json(res, 200, { jsonrpc: '2.0', result: results[call.method], id: call.id });
    });
    const a = api();
    expect(await nodeIdentity(a, base, signal())).toEqual({ nodeId: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', blsPublicKey: `0x${'ab'.repeat(48)}` });
    expect(await nodeVersion(a, base, signal())).toBe('avalanchego/1.14.2');
    expect(await isBootstrapped(a, base, 'C', signal())).toBe(false);
    expect(await nodeUptime(a, base, signal())).toEqual({ rewardingStakePercentage: 79.9876, weightedAveragePercentage: 98.5 });
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(Array(4).fill('POST /ext/info'));
    expect(JSON.parse(seen[2]?.body ?? '')).toMatchObject({ jsonrpc: '2.0', method: 'info.isBootstrapped', params: { chain: 'C' } });
  });

  it('reads a node without nodePOP, or with a key of another shape, as one that reports no key; a NodeID that is none is invalid', async () => {
    const id = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
    for (const nodePOP of [null, { publicKey: '0xabcdef' }, { publicKey: 7 }, 'n/a']) {
      const base = await serve(rpc({ nodeID: id, nodePOP }));
      expect(await nodeIdentity(api(), base, signal()), JSON.stringify(nodePOP)).toEqual({ nodeId: id });
      }
    const base = await serve(rpc({ nodeID: `NodeID-${'x'.repeat(5000)}` }));
    const err = await failure(nodeIdentity(api(), base, signal()));
    expect([err.kind, err.message.length < 200]).toEqual(['invalid', true]);
  });

  it('reads a percentage out of 0..100, or not a number, as invalid: no reading', async () => {
    let figure: unknown = '100.0001';
    const base = await serve((_req, res, body) => rpc({ rewardingStakePercentage: figure, weightedAveragePercentage: '50.0000' })(_req, res, body));
    for (const bad of ['100.0001', '-1.0000', 'NaN', '+Inf', 'abc', null]) {
      figure = bad;
      const err = await failure(nodeUptime(api(), base, signal()));
      expect(err.kind, String(bad)).toBe('invalid');
      expect(err.message).toMatch(/info\.uptime: an answer that does not parse \(rewardingStakePercentage: /);
    }
  });

  it('nodeUptime of a node that is not a validator: the Go error, as rpc', async () => {
    const base = await serve((_req, res, body) => json(res, 200, { jsonrpc: '2.0', error: { code: -32000, message: "couldn't get node uptime: node is not a validator", data: null }, id: (JSON.parse(body) as { id: unknown }).id }));
    const err = await failure(nodeUptime(api(), base, signal()));
    expect([err.kind, err.message]).toEqual(['rpc', `node ${new URL(base).host} info.uptime: the node answered an error (-32000): couldn't get node uptime: node is not a validator`]);
  });

  it('the peer gauge of /ext/metrics (health API off): read at <base>/ext/metrics, the unlabelled sample only', async () => {
    const text = '# HELP avalanche_network_peers Number of network peers\n# TYPE avalanche_network_peers gauge\navalanche_network_peers_tracked 9\navalanche_network_peers 5000\n';
    const base = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(text);
    });
    expect(await peersOfMetrics(api(), `${base}/prefix/`, signal())).toBe(5000);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(['GET /prefix/ext/metrics']);
    expect(metricsUrlOf('http://u:p@h:9650/x?y=1')).toBe('http://u:p@h:9650/x/ext/metrics?y=1');
    expect([gaugeValue('x_avalanche_network_peers 3\n', 'avalanche_network_peers'), gaugeValue('avalanche_network_peers{} 7', 'avalanche_network_peers'), gaugeValue('avalanche_network_peers -1\n', 'avalanche_network_peers'), gaugeValue('avalanche_network_peers NaN\n', 'avalanche_network_peers')]).toEqual([undefined, 7, undefined, undefined]);
  });
});

describe('node-health: the info replies as read', () => {
  const key = (hex: string) => nodeIdReply.parse({ nodeID: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', nodePOP: { publicKey: hex } }).blsPublicKey;

  it('a BLS key is 0x and exactly 96 hex digits, said in lower case; another shape is no key', () => {
    expect(key(`0x${'A'.repeat(96)}`)).toBe(`0x${'a'.repeat(96)}`);
    expect(key(`0x${'f'.repeat(95)}`)).toBeUndefined();
    expect(key(`0x${'f'.repeat(97)}`)).toBeUndefined();
    expect(key(`0x${'g'.repeat(96)}`)).toBeUndefined();
    expect(key(`x0${'f'.repeat(96)}`)).toBeUndefined();
    expect(key(` 0x${'f'.repeat(96)}`)).toBeUndefined();
  });

  it('a NodeID is NodeID- and 20 to 60 base58 characters', () => {
    const ok = (id: string) => nodeIdReply.safeParse({ nodeID: id }).success;
    expect([ok(`NodeID-${'2'.repeat(20)}`), ok(`NodeID-${'2'.repeat(60)}`)]).toEqual([true, true]);
    expect([ok(`NodeID-${'2'.repeat(19)}`), ok(`NodeID-${'2'.repeat(61)}`), ok(`NodeID-${'0'.repeat(30)}`), ok(`nodeid-${'2'.repeat(30)}`), ok(`xNodeID-${'2'.repeat(30)}`), ok(`NodeID-${'2'.repeat(30)} `)]).toEqual([false, false, false, false, false, false]);
    expect(nodeIdReply.parse({ nodeID: `NodeID-${'2'.repeat(30)}`, nodePOP: { publicKey: 7 } })).toEqual({ nodeId: `NodeID-${'2'.repeat(30)}` });
  });

  it('a version of at least one character; isBootstrapped a boolean', () => {
    expect(nodeVersionReply.parse({ version: 'avalanchego/1.14.2', gitCommit: 'x' })).toBe('avalanchego/1.14.2');
    expect(nodeVersionReply.safeParse({ version: '' }).success).toBe(false);
    expect(isBootstrappedReply.parse({ isBootstrapped: true })).toBe(true);
    expect(isBootstrappedReply.safeParse({ isBootstrapped: 'true' }).success).toBe(false);
  });

  it('the peer gauge: the first unlabelled sample at a line\'s start, a count only', () => {
    const peers = (text: string) => gaugeValue(text, 'avalanche_network_peers');
    expect(peers('avalanche_network_peers 12 1700000000000\n')).toBe(12);
    expect(peers('avalanche_network_peers\t13')).toBe(13);
    expect(peers('avalanche_network_peers  \t 15\n')).toBe(15);
    expect(peers('# TYPE avalanche_network_peers gauge\navalanche_network_peers{x="1"} 3\navalanche_network_peers 14\n')).toBe(14);
    expect(peers('avalanche_network_peers 1.5\n')).toBeUndefined();
    expect(peers('avalanche_network_peers 9007199254740993\n')).toBeUndefined();
    expect(peers('avalanche_network_peers 0\n')).toBe(0);
    expect(peers('avalanche_network_peers\n')).toBeUndefined();
    expect(peers('')).toBeUndefined();
    expect(metricsUrlOf('http://h:9650')).toBe('http://h:9650/ext/metrics');
    expect(metricsUrlOf('http://h:9650/p//')).toBe('http://h:9650/p/ext/metrics');
  });
});
