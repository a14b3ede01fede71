import { describe, expect, it } from 'vitest';
import { NodeApiError, type HealthReport, type NodeApi } from '../../api/node-api.js';
import { testNodeId } from '../../../test/helpers/node-ids.js';
import { validator } from '../../api/schemas.js';
import { activeValidator } from '../../sim/samples.js';
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
    expect(await observe(api(off, async () => Promise.reject(new NodeApiError('deadline passed', 'unreachable'))))).toMatchObject({ peers: { unknown: 'the health API is off and /ext/metrics: deadline passed' } });
    expect(await observe(api(off, async () => Promise.reject('odd' as unknown as Error)))).toMatchObject({ peers: { unknown: 'the health API is off and /ext/metrics: odd' } });
  });
});

describe('node-health observe: many nodes, and shutdown', () => {
  const IDS = Array.from({ length: 6 }, (_, i) => testNodeId(i));

  it('every node is read, at most four at once', async () => {
    let inFlight = 0;
    let most = 0;
    const read: string[] = [];
    const node = api(async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setImmediate(r));
      inFlight--;
      return healthy;
    });
    const wrapped: NodeApi = { ...node, health: (base, signal) => (read.push(base), node.health(base, signal)) };
    const s = specSchema.parse({ urls: Object.fromEntries(IDS.map((id, i) => [id, `http://10.0.0.${i}:9650`])), outside: false, chains: ['P'] });
    const o = await nodeHealth.observe(s, { node: wrapped, signal: new AbortController().signal, now: new Date(0), previous: new Map() } as never);
    expect(Object.keys(o.nodes).sort()).toEqual([...IDS].sort());
    expect(read.sort()).toEqual(IDS.map((_, i) => `http://10.0.0.${i}:9650`).sort());
    expect(most).toBe(4);
  });

  it('a call ended by shutdown ends the observation: never a node "unreachable"', async () => {
    const controller = new AbortController();
    const node = api(async () => {
      controller.abort(new Error('shutting down'));
      throw new NodeApiError('aborted', 'unreachable');
    });
    const s = specSchema.parse({ urls: { [IDS[0] as string]: BASE }, outside: false, chains: ['P'] });
    await expect(nodeHealth.observe(s, { node, signal: controller.signal, now: new Date(0), previous: new Map() } as never)).rejects.toThrow('shutting down');
  });
});

describe("node-health observe: the service's view of its nodes", () => {
  const OTHER = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
  const listed = validator.parse(activeValidator({ nodeId: NODE, txHash: 'tx1', startTimestamp: 1_750_000_000, endTimestamp: 1_760_000_000 }));

  /** Observes with a data service whose bulk list answers, or rejects with `fail`; returns the nodes each list call asked and the service's view. */
  async function withService(over: Record<string, unknown>, fail?: unknown) {
    const asked: string[][] = [];
    const data = {
      primary: {
        validatorList: (_network: string, q: { nodeIds: string[] }) => {
          asked.push(q.nodeIds);
          return fail === undefined ? Promise.resolve({ periods: [listed], broken: [] }) : Promise.reject(fail);
        },
      },
    };
    const s = specSchema.parse({ urls: { [NODE]: BASE }, chains: ['P'], ...over });
    const o = await nodeHealth.observe(s, { node: api(async () => healthy), data, signal: new AbortController().signal, now: new Date(1_755_000_000_000), previous: new Map() } as never);
    return { asked, service: o.service };
  }

  it("reads the service's list for the rule's nodes, or for nodeIds (the validator rules' very request); outside: false reads none", async () => {
    const mine = await withService({});
    expect(mine.asked).toEqual([[NODE]]);
    expect(mine.service).toEqual(new Map([[NODE, [listed]]]));
    expect((await withService({ nodeIds: [NODE, OTHER] })).asked).toEqual([[NODE, OTHER]]);
    const none = await withService({ outside: false });
    expect([none.asked, none.service]).toEqual([[], undefined]);
  });

  it('a service that does not answer is the service blind, with why: the nodes are still read', async () => {
    expect((await withService({}, new Error('HTTP 503'))).service).toEqual({ failed: 'HTTP 503' });
    expect((await withService({}, 'odd')).service).toEqual({ failed: 'odd' });
  });
});
