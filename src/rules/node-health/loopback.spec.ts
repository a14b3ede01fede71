import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { json, nodeServer } from '../../../test/helpers/node-server.js';
import { HttpNodeApi } from '../../api/node-api.js';
import { systemClock } from '../../base/clock.js';
import type { Condition } from '../types.js';
import { activation } from '../network.js';
import { nodeHealth } from './index.js';
import { spec as specSchema } from './schema.js';

// node-health end to end through the real node API client, against a loopback server answering
// as AvalancheGo 1.14.2 does: a node with thousands of peers, and each API switched off
// (`--api-health-enabled=false`, `--api-info-enabled=false`: gorilla/mux's 404 for a route it
// does not have, api/server/router.go). What the rule asks is counted.

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const { serve, seen } = nodeServer();
/** Mainnet's Helicon as 1.15.0 schedules it (src/rules/network.ts). */
const HELICON = new Date(activation('mainnet', 'helicon').at * 1000).toISOString();

interface Node {
  peers: number;
  health?: boolean;
  info?: boolean;
  metrics?: boolean;
}

/** info.peers as the node writes it: every peer, ~350 bytes each (never to be asked for a count). */
function peerList(n: number): unknown {
  const peer = (i: number) => ({
    ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:9651`,
    nodeID: NODE,
    version: 'avalanchego/1.14.2',
    upgradeTime: 1_763_568_000,
    lastSent: '2026-11-28T00:00:00Z',
    lastReceived: '2026-11-28T00:00:00Z',
    observedUptime: '100',
    trackedSubnets: [],
    supportedACPs: [23, 24, 25, 30, 31, 41, 62, 77, 103, 118, 125, 131, 151, 176, 181, 194, 204, 209, 224, 226],
    objectedACPs: [],
    benched: [],
  });
  return { numPeers: String(n), peers: Array.from({ length: n }, (_, i) => peer(i)) };
}

function notFound(res: ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff', 'node-id': NODE });
  res.end('404 page not found\n');
}

/** One AvalancheGo node: /ext/health, /ext/info and /ext/metrics, each served or switched off. */
function avalanchego(node: Node) {
  return (req: IncomingMessage, res: ServerResponse, body: string) => {
    const path = req.url ?? '';
    if (path === '/ext/health' && node.health !== false) {
      const network = { message: { connectedPeers: node.peers, sendFailRate: 0, timeSinceLastMsgReceived: '310ms', timeSinceLastMsgSent: '290ms' }, timestamp: '2026-11-28T00:00:00Z', duration: 2_000 };
      const diskspace = { message: { availableDiskBytes: 500_000_000_000, availableDiskPercentage: 40 }, timestamp: '2026-11-28T00:00:00Z', duration: 1_000 };
      return json(res, 200, { checks: { network, diskspace, C: { message: { engine: {} }, timestamp: '2026-11-28T00:00:00Z', duration: 1 } }, healthy: true });
    }
    if (path === '/ext/info' && node.info !== false && req.method === 'POST') {
      const call = JSON.parse(body) as { method: string; id: number };
      const results: Record<string, unknown> = {
        'info.getNodeID': { nodeID: NODE, nodePOP: null },
        'info.getNodeVersion': { version: 'avalanchego/1.14.2', databaseVersion: 'v1.4.5', rpcProtocolVersion: '45', gitCommit: 'x', vmVersions: {} },
        'info.isBootstrapped': { isBootstrapped: true },
        'info.uptime': { rewardingStakePercentage: '100.0000', weightedAveragePercentage: '99.0000' },
        'info.upgrades': { durangoTime: '2024-03-06T16:00:00Z', etnaTime: '2024-12-16T17:00:00Z', fortunaTime: '2025-04-08T15:00:00Z', graniteTime: '2025-11-19T16:00:00Z', heliconTime: HELICON },
      };
      return json(res, 200, { jsonrpc: '2.0', result: call.method === 'info.peers' ? peerList(node.peers) : results[call.method], id: call.id });
    }
    if (path === '/ext/metrics' && node.metrics !== false) {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      // With health off no diskspace check runs: the disk gauges stay 0 (never read as a full disk here).
      return res.end(`# TYPE avalanche_network_peers gauge\navalanche_network_peers ${node.peers}\navalanche_resource_tracker_disk_available_percentage 0\n`);
    }
    notFound(res);
  };
}

/** One poll of the rule against the server: what it asked, and what it judged. */
async function poll(node: Node, over: Record<string, unknown> = {}) {
  const base = await serve(avalanchego(node));
  const s = specSchema.parse({ urls: { [NODE]: base }, outside: false, ...over });
  const api = new HttpNodeApi({ timeoutMs: 5_000, clock: systemClock });
  const observation = await nodeHealth.observe(s, { node: api, signal: new AbortController().signal, now: new Date(), previous: new Map() } as never);
  const r = nodeHealth.evaluate(new Map(), observation, new Date('2026-11-28T00:00:00Z'), s);
  const asked = seen.map((a) => (a.method === 'POST' ? (JSON.parse(a.body) as { method: string }).method : `${a.method} ${a.url}`));
  const conditions = r.conditions ?? [];
  const by = (check: string) => conditions.filter((c) => c.labels['check'] === check);
  return { asked, failed: r.failed, state: r.states.get(NODE), by, checks: conditions.map((c) => c.labels['check']) };
}

const notice = (c: Condition | undefined) => c && { severity: c.severity, news: c.news, summary: c.summary };

describe('node-health against a loopback AvalancheGo', () => {
  it('a node with 5,000 peers is judged from its health answer: not one info.peers request, nothing failing', async () => {
    const r = await poll({ peers: 5_000 });
    expect(r.asked.filter((a) => a === 'info.peers')).toEqual([]);
    expect(r.asked).toContain('GET /ext/health');
    expect([r.state?.peers, r.failed, r.checks]).toEqual([5_000, {}, []]);
    expect(nodeHealth.samples(specSchema.parse({ urls: { [NODE]: 'http://x' } }), new Map([[NODE, r.state ?? {}]]), new Date()).find((g) => g.metric === 'avawatch_node_peers')?.value).toBe(5_000);
  });

  it('minPeers fires on a health answer of few peers', async () => {
    const r = await poll({ peers: 3 }, { minPeers: 10 });
    expect(r.asked.filter((a) => a === 'info.peers')).toEqual([]);
    expect(r.by('peers').map((c) => c.summary)).toEqual([`${NODE} has 3 peers, under 10`]);
  });

  it('health API off (404): its info API read and judged, its peers from /ext/metrics; one info notice "health API disabled", never "cannot reach"', async () => {
    const r = await poll({ peers: 5_000, health: false });
    expect(r.state?.unreachableSince).toBeUndefined();
    expect(r.failed).toEqual({});
    expect(r.asked.filter((a) => a.startsWith('info.')).sort()).toEqual(['info.getNodeID', 'info.getNodeVersion', 'info.isBootstrapped', 'info.isBootstrapped', 'info.isBootstrapped', 'info.upgrades', 'info.uptime']);
    expect(r.asked.filter((a) => a.startsWith('GET'))).toEqual(['GET /ext/health', 'GET /ext/metrics']);
    expect([r.state?.version, r.state?.bootstrapped, r.state?.peers]).toEqual(['avalanchego/1.14.2', { P: true, X: true, C: true }, 5_000]);
    expect(r.checks).toEqual(['api-off']);
    expect(notice(r.by('api-off')[0])).toEqual({
      severity: 'info',
      news: 'neutral',
      summary: `${NODE}: health API disabled (switched off: /ext/health at ${r.by('api-off')[0]?.details['API']} answers 404, AvalancheGo's --api-health-enabled=false): its health checks go unchecked; the node is judged by its info API, its peers by /ext/metrics`,
    });
  });

  it('health and metrics off: the peer figure is unknown (no info.peers for it), nothing fails or fires on it', async () => {
    const r = await poll({ peers: 3, health: false, metrics: false });
    expect(r.asked.filter((a) => a === 'info.peers')).toEqual([]);
    expect([r.failed, r.checks, r.state?.peers]).toEqual([{}, ['api-off'], undefined]);
    expect(r.state?.rpcErrors?.['peers']?.error).toBe('the health API is off and /ext/metrics is switched off too');
  });

  it('info API off (404): judged by its health answer alone (few peers still fire); one info notice "info API disabled", never "cannot reach"', async () => {
    const r = await poll({ peers: 3, info: false }, { minPeers: 10 });
    expect(r.state?.unreachableSince).toBeUndefined();
    expect(r.failed).toEqual({});
    expect(r.checks.sort()).toEqual(['api-off', 'peers']);
    expect(notice(r.by('api-off')[0])).toMatchObject({ severity: 'info', news: 'neutral', summary: expect.stringContaining(`${NODE}: info API disabled (switched off: /ext/info at`) });
    expect(r.by('api-off')[0]?.summary).toContain('the node is judged by its health API');
  });
});
