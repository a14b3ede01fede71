import type { ApiCall } from '../../api/catalog.js';
import type { Network } from '../../api/data/reader.js';
import type { Validator } from '../../api/schemas.js';
import { PRIMARY_NETWORK } from '../fields.js';
import { isFailed, lookupEach, type Outcome } from '../lookup.js';
import type { ObserveContext } from '../types.js';
import { batchesOf, EARLIEST_S, validatorListCalls } from '../validators.js';
import { MAX_AHEAD_S } from './times.js';

// Whether each node validates now: a node that does not proposes no block, so its silence is
// no news. Read from the primary network's active list, the very call validator-status,
// validation-end and validator-health make (shared within api.dedupeWindow). The list may
// leave out a node the service still validates, so a node that leaves it (or was never
// listed) is confirmed by its own lookup before it counts as not validating.

/**
 * When the node's active period started (unix s; 0 when its start is no time), null when it
 * has none, or why it could not be read (then it is taken as validating, as before).
 */
export type Validating = Map<string, Outcome<number | null>>;

const LOOKUP_CONCURRENCY = 2;

interface Spec {
  network: string;
  nodeIds: readonly string[];
}

export function activeListCalls(s: Spec): ApiCall[] {
  return validatorListCalls({ network: s.network as Network, nodeIds: s.nodeIds, subnetId: PRIMARY_NETWORK }, ['active']);
}

/**
 * A failed list fails only the nodes it covers, a broken item only its node; neither fails
 * the rule, whose blocks are read apart. `lastStart` is what the state says of a node.
 */
export async function observeValidating(s: Spec, { data, signal, now, memo }: Pick<ObserveContext, 'data' | 'signal' | 'now' | 'memo'>, lastStart: (node: string) => number | null | undefined): Promise<Validating> {
  const nowS = Math.floor(now.getTime() / 1000);
  const network = s.network as Network;
  const batches = batchesOf(s.nodeIds, memo).lists;
  const lists = await lookupEach(Object.keys(batches), LOOKUP_CONCURRENCY, signal, (i) =>
    data.primary.validatorList(network, { nodeIds: batches[Number(i)] as string[], validationStatus: 'active', subnetId: PRIMARY_NETWORK }, signal), { partOfMore: true });
  const out: Validating = new Map();
  const confirm: string[] = [];
  for (const [i, list] of Object.entries(lists)) {
    const nodeIds = batches[Number(i)] as string[];
    if (isFailed(list)) {
      for (const node of nodeIds) out.set(node, list);
      continue;
    }
    const broken = new Map<string, string>();
    for (const b of list.broken) if (b.nodeId !== undefined && !broken.has(b.nodeId)) broken.set(b.nodeId, b.reason);
    const listed = new Map<string, Validator[]>();
    for (const v of list.periods) {
      const mine = listed.get(v.nodeId);
      if (mine === undefined) listed.set(v.nodeId, [v]);
      else mine.push(v);
    }
    for (const node of nodeIds) {
      const start = startOf(listed.get(node) ?? [], nowS);
      const why = broken.get(node);
      if (why !== undefined) out.set(node, { failed: why });
      else if (start !== null) out.set(node, start);
      // Unlisted and last seen not validating: nothing new to ask.
      else if (lastStart(node) === null) out.set(node, null);
      else confirm.push(node);
    }
  }
  if (confirm.length > 0) {
    const own = await lookupEach(confirm, LOOKUP_CONCURRENCY, signal, (node) => data.primary.validatorPeriods(network, node, signal), { partOfMore: true });
    for (const [node, seen] of Object.entries(own)) out.set(node, isFailed(seen) ? seen : seen === 'not-found' ? null : startOf(seen, nowS));
  }
  return out;
}

/** The start of the latest active primary-network period, 0 when it is no time; null when none is active. */
function startOf(periods: readonly Validator[], nowS: number): number | null {
  const active = periods.filter((v) => v.validationStatus === 'active' && v.subnetId === PRIMARY_NETWORK);
  if (active.length === 0) return null;
  const starts = active.map((v) => v.startTimestamp).filter((t) => Number.isFinite(t) && t >= EARLIEST_S && t <= nowS + MAX_AHEAD_S);
  // An odd start (1e13, 1e308) must not hold a silent node quiet: counted from its last block.
  return starts.length === active.length ? Math.max(...starts) : 0;
}
