import { z } from 'zod';
import { parseSeries } from './node-metrics.js';
import type { NodeInput, NodeWorld } from './node.js';

// The scenario keys of the simulated nodes' APIs (docs/simulator.md, "The node's APIs"):
// `nodes:` declares them, `node:` changes one (declaring it if new).

const percent = z.number().min(0).max(100);
const nodeId = z.string().regex(/^NodeID-[1-9A-HJ-NP-Za-km-z]+$/, 'expected NodeID-…');
const metricName = z.string().regex(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/, 'expected a metric name such as avalanche_snowman_blks_processing');
const series = z.string().refine((s) => parseSeries(s) !== undefined, { message: 'expected a series such as avalanche_network_peers or name{label="value"}' });

const cb58 = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{20,60}$/, 'expected a CB58 ID');
const l1Chain = z.strictObject({
  subnetId: cb58.optional(),
  vmId: cb58.optional(),
  vmVersion: z.string().min(1).optional(),
  /** The plugin's RPCChainVM protocol; another than the node's: refused at the handshake. */
  protocol: z.number().int().min(0).nullable().optional(),
  /** true: its tip freezes (no block, epoch fixed, health green); false: it produces blocks again. */
  frozen: z.boolean().optional(),
});

const state = {
  network: z.enum(['mainnet', 'fuji']).optional(),
  /** info.upgrades fields over the network's, e.g. {heliconTime: 9999-12-01T00:00:00Z}. */
  upgrades: z.record(z.string().regex(/^[a-zA-Z0-9]+Time$/, 'expected an upgrade time field such as heliconTime'), z.string()).optional(),
  down: z.boolean().optional(),
  /** Another NodeID (a restart with another staking key); null: its own again. */
  reportsNodeId: nodeId.nullable().optional(),
  /** null: no nodePOP. */
  blsPublicKey: z.string().regex(/^0x[0-9a-fA-F]{96}$/, 'expected 0x and 96 hex digits').nullable().optional(),
  version: z.string().min(1).optional(),
  /** The node's RPCChainVM protocol; null: its release's (compatibility.json). */
  rpcProtocolVersion: z.number().int().min(0).nullable().optional(),
  /** false: --api-health-enabled=false; false: --api-info-enabled=false. */
  healthApi: z.boolean().optional(),
  infoApi: z.boolean().optional(),
  /** The C-Chain's VM: coreth; after Helicon `switched` (SAE, Coreth's counter frozen) or `restarted` (SAE alone). */
  cChain: z.enum(['coreth', 'switched', 'restarted']).optional(),
  /** Blockchain ID → an L1 chain the node validates ({subnetId, vmId, vmVersion, protocol}); null: no longer. */
  l1Chains: z.record(cb58, l1Chain.nullable()).optional(),
  bootstrapped: z.record(z.string(), z.boolean()).optional(),
  /** check → error text; null passes again. */
  failing: z.record(z.string(), z.string().nullable()).optional(),
  rewardingStake: percent.optional(),
  weightedAverage: percent.optional(),
  validator: z.boolean().optional(),
  peers: z.number().int().min(0).optional(),
  diskAvailablePercent: percent.optional(),
  metrics: z.record(series, z.number().nullable()).optional(),
  /** Metric name → the name it is exported under (as an AvalancheGo upgrade renames one); null: its own again. */
  renamed: z.record(metricName, metricName.nullable()).optional(),
};

export function nodeKeys() {
  return {
    nodes: z.array(z.strictObject({ nodeId, ...state })).optional(),
    node: z
      .strictObject({ nodeId, ...state })
      .refine((n) => Object.keys(n).length > 1, { message: `nothing to change: give one of ${Object.keys(state).join(', ')}` })
      .optional(),
  };
}

type Keys = ReturnType<typeof nodeKeys>;
export type NodeChange = { [K in keyof Keys]?: z.output<Keys[K]> };

export function applyNodeChange(nodes: NodeWorld, change: NodeChange): void {
  for (const n of change.nodes ?? []) nodes.set(n satisfies NodeInput);
  if (change.node) nodes.set(change.node);
}
