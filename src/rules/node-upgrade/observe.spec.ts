import { describe, expect, it } from 'vitest';
import { testNodeId } from '../../../test/helpers/node-ids.js';
import { NodeApiError, type HealthReport, type NodeApi } from '../../api/node-api.js';
import { nodeUpgrade } from './index.js';
import { spec as specSchema } from './schema.js';

// What observe makes of each way a node's calls end, with a fake of our own NodeApi (the real
// client against a loopback node: index.spec.ts).

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const healthy: HealthReport = { healthy: true, checks: [] };
const replies: Record<string, unknown> = {
  'info.getNodeVersion': { version: 'avalanchego/1.15.0', rpcProtocolVersion: '46', vmVersions: {} },
  'info.upgrades': { heliconTime: '2026-09-22T15:00:00Z' },
};

function api(health: (base: string) => Promise<HealthReport>, rpc?: (method: string) => Promise<unknown>): NodeApi {
  return {
    health,
    metricsText: () => Promise.reject(new Error('not read by node-upgrade')),
    rpc: async (_base, _path, method, _params, schema) => schema.parse(rpc ? await rpc(method) : replies[method]),
  };
}

async function observe(node: NodeApi | undefined, urls: Record<string, string> = { [NODE]: 'http://10.0.0.5:9650' }, signal = new AbortController().signal) {
  const s = specSchema.parse({ urls });
  return nodeUpgrade.observe(s, { node, signal, now: new Date(0), previous: new Map() } as never);
}

describe('node-upgrade observe', () => {
  it('no node API client: said, not a silent rule', async () => {
    await expect(observe(undefined)).rejects.toThrow('node-upgrade needs the node API client');
  });

  it('reads the health checks and both info calls; an info call that fails is its figure unread, not the node failed', async () => {
    const o = await observe(api(async () => healthy));
    expect(o).toEqual({
      nodes: { [NODE]: { health: healthy, version: { ok: { version: 'avalanchego/1.15.0', rpcProtocolVersion: '46', vmVersions: {} } }, upgrades: { ok: expect.objectContaining({ helicon: 1_790_089_200 }) } } },
      tables: [],
      tableErrors: {},
    });
    const refused = await observe(api(async () => healthy, async (m) => (m === 'info.upgrades' ? Promise.reject(new NodeApiError('HTTP 404', 'off')) : replies[m])));
    expect(refused.nodes[NODE]).toMatchObject({ version: { ok: expect.anything() }, upgrades: { error: { kind: 'off' } } });
  });

  it("a health API switched off is 'off' (the info calls still tell); any other failure fails the node, with why", async () => {
    expect((await observe(api(async () => Promise.reject(new NodeApiError('HTTP 404', 'off'))))).nodes[NODE]).toMatchObject({ health: 'off', version: { ok: expect.anything() } });
    expect((await observe(api(async () => Promise.reject(new NodeApiError('ECONNREFUSED', 'unreachable'))))).nodes[NODE]).toEqual({ failed: '/ext/health: ECONNREFUSED' });
    expect((await observe(api(async () => Promise.reject('odd' as unknown as Error)))).nodes[NODE]).toEqual({ failed: '/ext/health: odd' });
  });

  it('every node is read, at most four at once', async () => {
    const ids = Array.from({ length: 6 }, (_, i) => testNodeId(i));
    let inFlight = 0;
    let most = 0;
    const node = api(async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setImmediate(r));
      inFlight--;
      return healthy;
    });
    const o = await observe(node, Object.fromEntries(ids.map((id, i) => [id, `http://10.0.0.${i}:9650`])));
    expect(Object.keys(o.nodes).sort()).toEqual([...ids].sort());
    expect(most).toBe(4);
  });

  it('a call ended by shutdown ends the observation: never a node failed', async () => {
    const controller = new AbortController();
    const node = api(async () => {
      controller.abort(new Error('shutting down'));
      throw new NodeApiError('aborted', 'unreachable');
    });
    await expect(observe(node, undefined, controller.signal)).rejects.toThrow('shutting down');
  });
});
