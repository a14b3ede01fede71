import { describe, expect, it } from 'vitest';
import { testNodeId } from '../../../test/helpers/node-ids.js';
import { NodeApiError, type NodeApi } from '../../api/node-api.js';
import { validator } from '../../api/schemas.js';
import { activeValidator } from '../../sim/samples.js';
import { observe } from './observe.js';
import { spec as specSchema } from './schema.js';

const NODES = Array.from({ length: 6 }, (_, i) => testNodeId(`observe/${i}`));
const now = new Date('2026-11-01T00:00:00Z');
const period = { nodeId: NODES[0] as string, txHash: 'tx1', startTimestamp: 1_750_000_000, endTimestamp: 1_790_000_000 };
const base = (i: number) => `http://10.0.0.${i + 1}:9650`;

/** The service lists NODES[0] active; every other node is unknown to it. */
const data = { validatorList: async (_: string, q: { validationStatus: string }) => ({ periods: q.validationStatus === 'active' ? [validator.parse(activeValidator(period))] : [], broken: [] }) };

/** The watched nodes' own APIs: info.uptime answers `98.5 + i` (node 1 is down); no node serves the P-Chain API calls. */
function nodes() {
  let inFlight = 0;
  const api: NodeApi & { most: number } = {
    most: 0,
    health: async () => {
      throw new Error('not read by validator-health');
    },
    metricsText: async () => '',
    rpc: async (url, _path, method, _params, schema) => {
      const i = NODES.findIndex((_, j) => base(j) === url);
      if (method !== 'info.uptime') throw new NodeApiError(`${url}: ${method} is not served here`, 'rpc');
      inFlight++;
      api.most = Math.max(api.most, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      if (i === 1) throw new NodeApiError(`${url}: ECONNREFUSED`, 'unreachable');
      return schema.parse({ rewardingStakePercentage: '100', weightedAveragePercentage: String(98.5 + i / 10) });
    },
  };
  return api;
}

const ctx = (node?: NodeApi) => ({ data: { primary: data }, node, signal: new AbortController().signal, previous: new Map(), now }) as never;

describe('validator-health observe', () => {
  it("reads each declared node's own uptime (its peers' view), at most 4 at once; a node down fails only itself", async () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: NODES, nodeApis: Object.fromEntries(NODES.map((n, i) => [n, base(i)])) });
    const api = nodes();
    const o = await observe(s, ctx(api));
    expect(o.own).toEqual({
      [NODES[0] as string]: 98.5,
      [NODES[1] as string]: { failed: `${base(1)}: ECONNREFUSED` },
      [NODES[2] as string]: 98.7,
      [NODES[3] as string]: 98.8,
      [NODES[4] as string]: 98.9,
      [NODES[5] as string]: 99,
    });
    expect(api.most).toBe(4);
    // The service's lists, in the order of nodeIds: the first node listed, the others not found.
    expect(o.service).toHaveLength(6);
    expect(o.service[0]).toEqual([expect.objectContaining({ nodeId: NODES[0], validationStatus: 'active' })]);
    // The nodes serve no P-Chain API: said as a failed read, not as validators gone.
    expect(o.pchain).toMatchObject({ failed: expect.stringMatching(/^P-Chain API: /) });
  });

  it('two nodes: both read at once; no node API declared, or no client: no own view and no P-Chain read', async () => {
    const two = specSchema.parse({ network: 'mainnet', nodeIds: NODES.slice(0, 3), nodeApis: { [NODES[0] as string]: base(0), [NODES[2] as string]: base(2) } });
    const api = nodes();
    expect((await observe(two, ctx(api))).own).toEqual({ [NODES[0] as string]: 98.5, [NODES[2] as string]: 98.7 });
    expect(api.most).toBe(2);
    const none = specSchema.parse({ network: 'mainnet', nodeIds: NODES.slice(0, 1) });
    expect(Object.keys(await observe(none, ctx(nodes())))).toEqual(['service']);
    // Declared, but the engine gave no node client: the P-Chain read says so; no own view.
    const o = await observe(two, ctx());
    expect(o.own).toBeUndefined();
    expect(o.pchain).toEqual({ failed: 'the node API client is not available' });
  });
});
