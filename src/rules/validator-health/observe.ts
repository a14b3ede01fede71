import { PRIMARY_NETWORK } from '../fields.js';
import { attempt, type Failed } from '../lookup.js';
import { nodeUptime } from '../node-uptime.js';
import { readStakers, type StakersFailed, type StakersRead } from '../pchain.js';
import type { ObserveContext } from '../types.js';
import { observeValidators, type Observation as Listed } from '../validators.js';
import type { Spec } from './schema.js';

// Three reads side by side, each failing on its own: the service's bulk lists (shared with the
// other validator kinds), each declared node's own info.uptime (free), and the P-Chain API's
// current validators (free; it tells an auto-renewed validator and its cycle).

export interface Observation {
  /** The service's view of each node, in the order of nodeIds. */
  service: Listed;
  /** Percent of time up as the node's peers see it (info.uptime weightedAveragePercentage), by NodeID, or why it could not be read. */
  own?: Record<string, number | Failed>;
  /** The P-Chain API's current validators among the nodes; undefined: no P-Chain API is known. */
  pchain?: StakersRead | StakersFailed;
}

const OWN_CONCURRENCY = 4;

export async function observe(s: Spec, ctx: ObserveContext): Promise<Observation> {
  const [service, own, pchain] = await Promise.all([
    observeValidators({ ...s, subnetId: PRIMARY_NETWORK }, ctx),
    readOwn(s, ctx),
    readStakers(s.network, s.nodeIds, { pChainApi: s.pChainApi, nodeApis: s.nodeApis }, ctx.node, ctx.signal),
  ]);
  return { service, ...(own ? { own } : {}), ...(pchain ? { pchain } : {}) };
}

/** Each declared node's own uptime; a node that does not answer fails only itself. */
async function readOwn(s: Spec, ctx: ObserveContext): Promise<Record<string, number | Failed> | undefined> {
  const apis = Object.entries(s.nodeApis ?? {});
  if (apis.length === 0 || !ctx.node) return undefined;
  const api = ctx.node;
  const out: Record<string, number | Failed> = {};
  let next = 0;
  async function worker(): Promise<void> {
    while (next < apis.length) {
      const [node, base] = apis[next++] as [string, string];
      const read = await attempt(ctx.signal, () => nodeUptime(api, base, ctx.signal));
      out[node] = 'failed' in read ? read : read.weightedAveragePercentage;
    }
  }
  await Promise.all(Array.from({ length: Math.min(OWN_CONCURRENCY, apis.length) }, worker));
  return out;
}
