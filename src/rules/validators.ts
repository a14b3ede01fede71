import { z } from 'zod';
import { apiCall, type ApiCall } from '../api/catalog.js';
import { filterBatches, VALIDATOR_BATCH } from '../api/data/filters.js';
import { validatorListQuery, type ValidatorListQuery } from '../api/data/primary.js';
import type { Validator } from '../api/schemas.js';
import { PRIMARY_NETWORK, type Network } from './fields.js';
import { isFailed, lookupEach, type Failed, type Outcome } from './lookup.js';
import type { Cost, ObserveContext, RuleMemo } from './types.js';

// What the kinds that read validators (validator-status, validation-end) share: the active
// periods of their nodes in bulk (one call per 100 nodes, the same calls for every rule that
// watches the same nodes), and a node's own lookup only when the list cannot tell: the
// period it had is no longer listed, or it has never been seen.
//
// Only `active` is listed: since Durango (ACP-41, "Remove Pending Stakers") a staker starts
// when its transaction is accepted, so the P-chain has no pending set and the service's
// `pending` list can only be empty (docs/rules.md, "How validators are read"). A pending
// period the service still shows comes from the node's own lookup.

/**
 * What was seen of each of the rule's nodes, in the order of its nodeIds (`[i]` is
 * `nodeIds[i]`'s). An array, not a Map by NodeID: at 100k nodes, building such a Map and
 * reading it again was a fifth of the cycle.
 */
export type Observation = Seen[];
/**
 * A node's periods on the rule's subnet (from the lists, or all of them from its own lookup),
 * `not-found` (its own lookup answered 404), `unchanged` (listed nowhere, as when last seen:
 * nothing to ask; or, for a kind that keeps only the period, listed with the very one it had),
 * or why it could not be read.
 */
export type Seen = Outcome<Validator[] | 'not-found' | 'unchanged'>;

const LOOKUP_CONCURRENCY = 4;
/** A node with no listed period (shared: never changed). */
const NONE: Validator[] = [];
const LISTED: ReadonlyArray<ValidatorListQuery['validationStatus']> = ['active'];

/** The validation period avawatch last saw as a node's current one. */
export const period = z.object({
  txHash: z.string(),
  status: z.string(),
  startTimestamp: z.number(),
  endTimestamp: z.number(),
});
export type Period = z.output<typeof period>;

/** What both kinds keep per node: the last current period (and whether the node was unlisted). */
interface Tracked {
  period: Period | null;
  missing?: boolean;
}

interface Spec {
  network: Network;
  nodeIds: readonly string[];
  subnetId: string;
}

/** The bulk lists, shared with every rule that watches the same nodes; confirmations are extra. */
export function validatorLookups(s: Spec): Cost {
  return { calls: validatorListCalls(s, LISTED), more: 'one lookup (20 CU) per node whose period leaves the list, and per node not listed at the first poll' };
}

/** The list calls of these statuses, 100 nodes a call: the same request whichever rule makes it, so it is made once. */
export function validatorListCalls(s: Spec, statuses: ReadonlyArray<ValidatorListQuery['validationStatus']>): ApiCall[] {
  const path = `/v1/networks/${s.network}/validators`;
  return filterBatches(s.nodeIds, VALIDATOR_BATCH).flatMap((nodeIds) => statuses.map((validationStatus) => apiCall('GET', path, validatorListQuery({ nodeIds, validationStatus, subnetId: s.subnetId }))));
}

/** The nodes as the lists ask them: sorted batches of 100, and where each node is in nodeIds. */
export interface Batches {
  lists: string[][];
  /** Per batch, each of its nodes' index in nodeIds (a small Map each: looked up batch by batch). */
  places: Array<ReadonlyMap<string, number>>;
}

/**
 * The batches of these nodes: sorting and sizing 100k NodeIDs is work, made once per rule
 * (its memo) rather than each poll.
 */
export function batchesOf(nodeIds: readonly string[], memo: RuleMemo | undefined): Batches {
  const make = (): Batches => {
    const place = new Map(nodeIds.map((id, i) => [id, i]));
    const lists = filterBatches(nodeIds, VALIDATOR_BATCH);
    // Every id of a batch is one of nodeIds.
    return { lists, places: lists.map((list) => new Map(list.map((id) => [id, place.get(id) as number]))) };
  };
  return memo ? memo.of(nodeIds, make) : make();
}

/**
 * The batches of `asked` (a superset of nodeIds) that hold one of nodeIds, placed in nodeIds:
 * a rule that judges some nodes asks the very lists another rule asks for all of them.
 */
function batchesWithin(asked: readonly string[], nodeIds: readonly string[], memo: RuleMemo | undefined): Batches {
  const make = (): Batches => {
    const place = new Map(nodeIds.map((id, i) => [id, i]));
    const lists = filterBatches([...asked, ...nodeIds], VALIDATOR_BATCH).filter((list) => list.some((id) => place.has(id)));
    return { lists, places: lists.map((list) => new Map(list.flatMap((id) => (place.has(id) ? [[id, place.get(id) as number]] : [])))) };
  };
  return memo ? memo.of(asked, make) : make();
}

/**
 * Every listed node's periods on the rule's subnet. A node is confirmed by its own lookup
 * before anything is concluded from its absence: the lists may leave out a node the
 * service still validates (a default filter), so absence alone is never a change.
 * A bulk call that fails fails only the nodes it covers; an item that breaks the contract
 * fails only its node (its other periods may not be all there is). An item that names no
 * node is left out: the nodes not listed take the path of any absent node above.
 */
export async function observeValidators(
  s: Spec,
  { data, signal, previous, now, memo }: ObserveContext,
  /**
   * A node listed with the very period it had (its four fields, and listed last time too) is
   * `unchanged`: for kinds that keep nothing else of it (validator-status, validation-end).
   * Most polls of 100k nodes are all such nodes, and this way none is read twice.
   */
  o: { sameIsUnchanged?: boolean; askedWith?: readonly string[] } = {},
): Promise<Observation> {
  const nowS = Math.floor(now.getTime() / 1000);
  const { lists: batches, places } = o.askedWith ? batchesWithin(o.askedWith, s.nodeIds, memo) : batchesOf(s.nodeIds, memo);
  // Each node's periods, in the order of nodeIds (the batches are sorted): its one period as it
  // is (most nodes have one: no array made for each), or why it could not be read.
  const listedAt = new Array<Validator | Validator[] | Failed | undefined>(s.nodeIds.length);
  const reads = await lookupEach(Object.keys(batches), LOOKUP_CONCURRENCY, signal, async (i) => {
    const nodeIds = batches[Number(i)] as string[];
    const place = places[Number(i)] as ReadonlyMap<string, number>;
    let broken: Map<string, string> | undefined;
    // One status after the other (if ever more than one): at most one parsed page per batch is alive at once.
    for (const validationStatus of LISTED) {
      const list = await data.primary.validatorList(s.network, { nodeIds, validationStatus, subnetId: s.subnetId }, signal);
      for (const v of list.periods) {
        const k = place.get(v.nodeId);
        if (k === undefined || v.subnetId !== s.subnetId) continue;
        const mine = listedAt[k] as Validator | Validator[] | undefined;
        if (mine === undefined) listedAt[k] = v;
        else if (Array.isArray(mine)) mine.push(v);
        else listedAt[k] = [mine, v];
      }
      for (const b of list.broken) if (b.nodeId !== undefined && !(broken ??= new Map()).has(b.nodeId)) broken.set(b.nodeId, b.reason);
    }
    return broken;
  });
  for (const [i, read] of Object.entries(reads)) {
    const place = places[Number(i)] as ReadonlyMap<string, number>;
    if (isFailed(read)) for (const k of place.values()) listedAt[k] = read;
    else if (read) {
      for (const [node, why] of read) {
        const k = place.get(node);
        if (k !== undefined) listedAt[k] = { failed: why };
      }
    }
  }
  // Each node judged in the order of nodeIds, the order `previous` holds them in.
  const lastOf = inOrder(previous);
  const out: Observation = new Array<Seen>(s.nodeIds.length);
  // The nodes to ask alone, and their places in nodeIds.
  const confirm: string[] = [];
  const confirmAt: number[] = [];
  for (let k = 0; k < out.length; k++) {
    const listed = listedAt[k];
    if (isFailed(listed)) {
      out[k] = listed;
      continue;
    }
    const node = s.nodeIds[k] as string;
    const last = lastOf(node) as Tracked | undefined;
    if (o.sameIsUnchanged && listed !== undefined && !Array.isArray(listed) && last?.period && last.missing !== true && samePeriod(last.period, listed)) {
      out[k] = 'unchanged';
      continue;
    }
    const periods = steady(listed === undefined ? NONE : Array.isArray(listed) ? listed : [listed], last, nowS);
    if (needsOwnLookup(last, periods, nowS)) {
      confirm.push(node);
      confirmAt.push(k);
    } else out[k] = periods.length > 0 ? periods : 'unchanged';
  }
  if (confirm.length > 0) {
    const own = await lookupEach(confirm, LOOKUP_CONCURRENCY, signal, (id) => data.primary.validatorPeriods(s.network, id, signal), { partOfMore: true });
    for (const [j, node] of confirm.entries()) {
      const seen = own[node] as Outcome<Validator[] | 'not-found'>;
      out[confirmAt[j] as number] = Array.isArray(seen) ? steady(seen.filter((p) => p.subnetId === s.subnetId), previous.get(node) as Tracked | undefined, nowS) : seen;
    }
  }
  return out;
}

/**
 * Each node's state in `previous`, asked in the order of nodeIds: read off `previous` as it is
 * walked while it holds them in that order (as the engine keeps them: RuleKind.entityOrder),
 * looked up by NodeID otherwise. At 100k nodes the walk took about a third of the lookups.
 */
export function inOrder<S>(previous: ReadonlyMap<string, S>): (node: string) => S | undefined {
  const entries = previous.entries();
  let at = entries.next();
  return (node) => {
    if (at.done || at.value[0] !== node) return previous.get(node);
    const state = at.value[1];
    at = entries.next();
    return state;
  };
}

/**
 * Never seen and not listed (completed, removed, pending or unknown: only its own lookup
 * says); or its last period was live and is listed no more (ended, or only left out of the
 * list). A node last seen finished (or not known) that is still unlisted has nothing new to
 * say: its next validation starts active (ACP-41), so the list shows it. A period last seen
 * pending is in no list: it is asked again only once its start has passed (it can become
 * active no sooner, and then the list shows it; if not, its own lookup says what it is).
 */
function needsOwnLookup(last: Tracked | undefined, listed: readonly Validator[], nowS: number): boolean {
  if (last === undefined) return listed.length === 0;
  const p = last.period;
  if (p === null || last.missing === true || p.status === 'completed' || p.status === 'removed') return false;
  for (const v of listed) if (v.txHash === p.txHash) return false;
  return p.status !== 'pending' || p.startTimestamp <= nowS;
}

/** A percent in 0..100, else undefined: a figure out of range is no reading (the last one stands). */
export function percentOrNone(n: number | undefined): number | undefined {
  return n !== undefined && Number.isFinite(n) && n >= 0 && n <= 100 ? n : undefined;
}

/** No validation starts before 2020 (the networks' genesis). */
export const EARLIEST_S = 1_577_836_800;
/** Nor ends two years past now: a stake lasts a year at most (an auto-renewed one, a cycle). */
const AHEAD_S = 2 * 365 * 86_400;

/**
 * The periods with any time that cannot be one (before 2020, two years ahead, not a number)
 * replaced by what the same period (its txHash, listed once) said last: an odd answer for
 * one poll (1e13, milliseconds of the wrong thing, 1e308) neither ends nor moves a
 * validation. A period never seen before is taken as listed: it is all there is.
 */
export function steady(periods: Validator[], last: Tracked | undefined, nowS: number): Validator[] {
  const known = last?.period;
  if (!known) return periods;
  const plausible = (t: number) => Number.isFinite(t) && t >= EARLIEST_S && t <= nowS + AHEAD_S;
  // The same period must be one: a txHash listed twice says nothing about which it was.
  // Counted in a loop, and nothing copied when its times are plausible: this runs per node per poll.
  let same: Validator | undefined;
  let count = 0;
  for (const v of periods) {
    if (v.txHash !== known.txHash) continue;
    same = v;
    count++;
  }
  if (count !== 1 || same === undefined || (plausible(same.startTimestamp) && plausible(same.endTimestamp))) return periods;
  return periods.map((v) => {
    if (v.txHash !== known.txHash || (plausible(v.startTimestamp) && plausible(v.endTimestamp))) return v;
    return { ...v, startTimestamp: plausible(v.startTimestamp) ? v.startTimestamp : known.startTimestamp, endTimestamp: plausible(v.endTimestamp) ? v.endTimestamp : known.endTimestamp };
  });
}

/** Said only when a rule reads another subnet than the primary network. */
export function subnetText(s: { subnetId: string }): string {
  return s.subnetId === PRIMARY_NETWORK ? '' : ` subnet ${s.subnetId}`;
}

/** The active period if there is one, else the one that started last. */
export function currentPeriod(periods: readonly Validator[]): Validator {
  // Almost always one period (the list's): no copy to sort.
  if (periods.length === 1) return periods[0] as Validator;
  const byStart = [...periods].sort((a, b) => b.startTimestamp - a.startTimestamp);
  const active = byStart.find((p) => p.validationStatus === 'active');
  const chosen = active ?? byStart[0];
  if (!chosen) throw new Error('currentPeriod needs at least one period');
  return chosen;
}

/** Whether the period kept is this one as listed: the fields a Period holds, all equal. */
export function samePeriod(p: Period | null, v: Validator): boolean {
  return p !== null && p.txHash === v.txHash && p.status === v.validationStatus && p.startTimestamp === v.startTimestamp && p.endTimestamp === v.endTimestamp;
}

export function toPeriod(v: Validator): Period {
  return { txHash: v.txHash, status: v.validationStatus, startTimestamp: v.startTimestamp, endTimestamp: v.endTimestamp };
}

/**
 * Each node's active primary-network period as the bulk list gives it (the very calls of the
 * validator kinds, so shared with them): a node the list leaves out is not in the Map; the
 * nodes of a batch that failed, each with why. Nothing is confirmed by a node's own lookup:
 * for a figure that only matters while a validation is listed (delegation-end's window).
 */
export async function listedActive(network: Network, nodeIds: readonly string[], { data, signal, memo }: Pick<ObserveContext, 'data' | 'signal' | 'memo'>): Promise<Map<string, Period | Failed>> {
  const { lists } = batchesOf(nodeIds, memo);
  const out = new Map<string, Period | Failed>();
  const reads = await lookupEach(Object.keys(lists), LOOKUP_CONCURRENCY, signal, (i) => data.primary.validatorList(network, { nodeIds: lists[Number(i)] as string[], validationStatus: 'active', subnetId: PRIMARY_NETWORK }, signal), { partOfMore: true });
  for (const [i, read] of Object.entries(reads)) {
    const batch = lists[Number(i)] as string[];
    if (isFailed(read)) {
      for (const node of batch) out.set(node, read);
      continue;
    }
    const wanted = new Set(batch);
    for (const v of read.periods) if (wanted.has(v.nodeId) && v.subnetId === PRIMARY_NETWORK && v.validationStatus === 'active') out.set(v.nodeId, toPeriod(v));
    for (const b of read.broken) if (b.nodeId !== undefined && wanted.has(b.nodeId)) out.set(b.nodeId, { failed: b.reason });
  }
  return out;
}
