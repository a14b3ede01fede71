import { describe, expect, it } from 'vitest';
import { NodeApiError, type HealthReport, type NodeApi } from '../../api/node-api.js';
import { nodeHealth } from './index.js';
import { spec as specSchema } from './schema.js';

// What observe makes of each way a node's health call can end, with a fake of our own NodeApi
// (the real client against a loopback node: loopback.spec.ts).

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const BASE = 'http://10.0.0.5:9650';
const healthy: HealthReport = { healthy: true, checks: [] };

function api(health: () => Promise<HealthReport>, metrics: () => Promise<string> = async () => ''): NodeApi {
  return {
    health,
    metricsText: metrics,
    rpc: async () => {
      throw new NodeApiError('not served here', 'rpc');
    },
  };
}

async function observe(node: NodeApi | undefined) {
  const s = specSchema.parse({ urls: { [NODE]: BASE }, outside: false, chains: ['P'] });
  const o = await nodeHealth.observe(s, { node, signal: new AbortController().signal, now: new Date(0), previous: new Map() } as never);
  return o.nodes[NODE];
}

const off = async () => {
  throw new NodeApiError('HTTP 404', 'off');
};

describe('node-health observe: how a health call ends', () => {
  it('no node API client: said, not a silent rule', async () => {
    await expect(observe(undefined)).rejects.toThrow('node-health needs the node API client');
  });

  it('no answer is the node unreachable, with why; an answer that cannot be read fails the lookup', async () => {
    expect(await observe(api(async () => Promise.reject(new NodeApiError('ECONNREFUSED', 'unreachable'))))).toEqual({ unreachable: 'ECONNREFUSED' });
    expect(await observe(api(async () => Promise.reject(new Error('socket hang up'))))).toEqual({ unreachable: 'socket hang up' });
    expect(await observe(api(async () => Promise.reject('odd' as unknown as Error)))).toEqual({ unreachable: 'odd' });
    expect(await observe(api(async () => Promise.reject(new NodeApiError('not JSON', 'invalid'))))).toEqual({ failed: '/ext/health: not JSON' });
  });

  it('the peer count: the health answer\'s; none there is unknown, with why', async () => {
    expect(await observe(api(async () => ({ ...healthy, connectedPeers: 12 })))).toMatchObject({ health: { ...healthy, connectedPeers: 12 }, peers: { ok: 12 } });
    expect(await observe(api(async () => healthy))).toMatchObject({ peers: { unknown: "/ext/health's network check gives no connectedPeers (not run yet?)" } });
  });

  it('health API off: the peers from /ext/metrics, or why not', async () => {
    expect(await observe(api(off, async () => 'avalanche_network_peers 33\n'))).toMatchObject({ health: 'off', peers: { ok: 33 } });
    expect(await observe(api(off, async () => 'other_gauge 1\n'))).toMatchObject({ health: 'off', peers: { unknown: 'the health API is off and /ext/metrics has no avalanche_network_peers' } });
    expect(await observe(api(off, off))).toMatchObject({ peers: { unknown: 'the health API is off and /ext/metrics is switched off too' } });
    expect(await observe(api(off, async () => Promise.reject(new Error('timeout'))))).toMatchObject({ peers: { unknown: 'the health API is off and /ext/metrics: timeout' } });
    expect(await observe(api(off, async () => Promise.reject('odd' as unknown as Error)))).toMatchObject({ peers: { unknown: 'the health API is off and /ext/metrics: odd' } });
  });
});
