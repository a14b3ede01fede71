import { NodeApiError, type HealthReport, type NodeApi } from '../../api/node-api.js';
import { linkedSignal } from '../../base/abort.js';
import type { Failed } from '../lookup.js';
import { nodeUpgrades } from '../node-upgrades.js';
import type { ObserveContext } from '../types.js';
import { settle, type Read } from '../node-calls.js';
import { readTables, type Table } from './compatibility.js';
import { nodeVersionInfo, type NodeVersionInfo } from './read.js';
import type { Spec } from './schema.js';

// Each node's /ext/health (the declared chains' checks), info.getNodeVersion and info.upgrades:
// three calls, no compute units; node-health polling at the same tick shares the info calls
// (NodeApi.rpc answers identical calls in flight once). A node whose API does not answer is a
// failed lookup here: node-health says it is silent.


export interface NodeReading {
  /** `off`: /ext/health answers 404 (switched off): no chain's check can be read. */
  health: HealthReport | 'off';
  version: Read<NodeVersionInfo>;
  upgrades: Read<Record<string, number>>;
}

export interface Observation {
  nodes: Record<string, NodeReading | Failed>;
  /** The operator's `compatibility:` files that parsed, in order. */
  tables: Table[];
  /** Those that did not: file → why. */
  tableErrors: Record<string, string>;
}

const NODE_CONCURRENCY = 4;

export async function observeNodes(s: Spec, ctx: ObserveContext): Promise<Observation> {
  const api = ctx.node;
  if (!api) throw new Error('node-upgrade needs the node API client');
  const ids = Object.keys(s.urls);
  const nodes: Observation['nodes'] = {};
  let next = 0;
  async function worker(node: NodeApi): Promise<void> {
    while (next < ids.length) {
      const id = ids[next++] as string;
      const own = linkedSignal(ctx.signal);
      try {
        nodes[id] = await readNode(node, s.urls[id] as string, own.signal);
      } finally {
        own.dispose();
      }
    }
  }
  const [{ tables, errors }] = await Promise.all([readTables(s.compatibility), Promise.all(Array.from({ length: Math.min(NODE_CONCURRENCY, ids.length) }, () => worker(api)))]);
  return { nodes, tables, tableErrors: errors };
}

async function readNode(api: NodeApi, base: string, signal: AbortSignal): Promise<NodeReading | Failed> {
  let health: HealthReport | 'off';
  try {
    health = await api.health(base, signal);
  } catch (err) {
    signal.throwIfAborted();
    if (err instanceof NodeApiError && err.kind === 'off') health = 'off';
    else return { failed: `/ext/health: ${err instanceof Error ? err.message : String(err)}` };
  }
  const read = <T>(call: () => Promise<T>): Promise<Read<T>> => settle(call, signal);
  const [version, upgrades] = await Promise.all([read(() => nodeVersionInfo(api, base, signal)), read(() => nodeUpgrades(api, base, signal))]);
  return { health, version, upgrades };
}
