import type { Delegator } from '../../api/schemas.js';
import { apiCall } from '../../api/catalog.js';
import { filterBatches } from '../../api/data/filters.js';
import { avaxText, navax, navaxToAvax } from '../../base/amount.js';
import { formatDuration } from '../../base/duration.js';
import { attempt, isFailed, lookupEach } from '../lookup.js';
import type { AlertDraft, Condition, GaugeSample, Resolution, RuleKind } from '../types.js';
import { spread } from './spread.js';
import { isoSeconds } from '../format.js';
import { BASELINE_KEY, spec, state, WINDOW_PREFIX, type DelegationState, type Spec, type State, type WindowState } from './schema.js';
import { minDelegationS } from '../network.js';
import { listedActive, validatorListCalls, type Period } from '../validators.js';
import { PRIMARY_NETWORK } from '../fields.js';
import type { Failed } from '../lookup.js';
import { record } from '../../base/record.js';

export interface Observation {
  /** Each watched node's active validation, for its delegation window (undefined: not asked). */
  validations?: Map<string, Period | Failed>;
  /** Active delegations read this time: all of them for a baseline, else the newest ones. */
  active: Delegator[];
  /** Completed entries of tracked delegations past their end, by txHash. */
  completed: Record<string, Delegator>;
  /** Node ids and reward addresses whose list could not be read, with why: their delegations keep what held. */
  failed: Record<string, string>;
  /** Node ids and reward addresses whose list was read, whole or up to what was known. */
  read: string[];
}

/** Completed pages read for delegations past their end, newest first: they are near the top. */
const COMPLETED_PAGES = 3;
const LOOKUP_CONCURRENCY = 2;

interface Batch {
  nodeIds?: string[];
  rewardAddresses?: string[];
}

export const delegationEnd: RuleKind<Spec, Observation, State> = {
  kind: 'delegation-end',
  keyDetails: ['Net reward', 'Amount', 'End'],
  labelNames: ['delegation', 'node', 'network', 'reward', 'threshold', 'check', 'change'],
  spec: spec as unknown as RuleKind<Spec, Observation, State>['spec'],
  selects: ['nodeIds'],
  state,
  spread,
  gauges: [
    { name: 'avawatch_delegations_active', help: 'Active delegations to a node that the rule watches.', labelNames: ['rule', 'network', 'node_id'] },
    { name: 'avawatch_delegated_stake_avax', help: 'AVAX delegated to a node in the watched delegations.', labelNames: ['rule', 'network', 'node_id'] },
  ],

  async observe(s, { data, signal, previous, now, memo }) {
    const windows = s.nodeIds && s.delegationWindow ? listedActive(s.network, s.nodeIds, { data, signal, memo }) : undefined;
    const prev = previous as ReadonlyMap<string, State>;
    const known = baselined(prev, s);
    const tracked = new Set([...prev.keys()].filter((k) => k !== BASELINE_KEY));
    // A batch of ids or addresses is read whole (or fails whole: then only the ids and
    // addresses it covers are unknown this time). Once all of them are baselined, only the
    // newest active delegations are read: pages newest first, on while a page is all new.
    const batches = filterBatchesOf(s);
    const reads = await lookupEach(Object.keys(batches), LOOKUP_CONCURRENCY, signal, (i) => {
      const b = batches[Number(i)] as Batch;
      const whole = entitiesOf(b).some((e) => !known.has(e));
      const enough = whole ? undefined : (page: readonly Delegator[]) => page.some((d) => tracked.has(d.txHash));
      return data.primary.delegators(s.network, { ...b, delegationStatus: 'active', ...(enough ? { enough } : {}) }, signal);
    });
    const failed: Record<string, string> = record();
    const read: string[] = [];
    const active = new Map<string, Delegator>();
    for (const [i, result] of Object.entries(reads)) {
      const entities = entitiesOf(batches[Number(i)] as Batch);
      if (isFailed(result)) for (const e of entities) failed[e] = result.failed;
      else {
        read.push(...entities);
        for (const d of result) active.set(d.txHash, d);
      }
    }
    // Ended only when the service lists it completed: ask for the ones past their end.
    const nowS = Math.floor(now.getTime() / 1000);
    const due = [...prev].filter(
      (e): e is [string, DelegationState] => e[0] !== BASELINE_KEY && 'nodeId' in e[1] && !active.has(e[0]) && e[1].endTimestamp <= nowS && inScope(e[1], s),
    );
    const completed = record<Delegator>();
    for (const nodeIds of filterBatches([...new Set(due.map(([, st]) => st.nodeId))], Number.POSITIVE_INFINITY)) {
      const wanted = new Map(due.filter(([, st]) => nodeIds.includes(st.nodeId)));
      const oldest = Math.min(...[...wanted.values()].map((st) => st.startTimestamp));
      const seen = new Set<string>();
      const listed = await attempt(signal, () =>
        data.primary.delegators(
          s.network,
          {
            nodeIds,
            delegationStatus: 'completed',
            pages: COMPLETED_PAGES,
            // Newest start first: once past the oldest start asked for, none asked for follows.
            enough: (page) => {
              for (const d of page) if (wanted.has(d.txHash)) seen.add(d.txHash);
              return seen.size === wanted.size || page.some((d) => d.startTimestamp < oldest);
            },
          },
          signal,
        ),
      );
      if (isFailed(listed)) for (const node of nodeIds) failed[node] = listed.failed;
      else for (const d of listed) if (wanted.has(d.txHash)) completed[d.txHash] = d;
    }
    const validations = await windows;
    return { active: [...active.values()], completed, failed, read, ...(validations ? { validations } : {}) };
  },

  evaluate(previous, observation, now, s) {
    const nowS = Math.floor(now.getTime() / 1000);
    const known = baselined(previous, s);
    const watching = new Set(watched(s));
    const entities = new Set([...known, ...observation.read].filter((e) => watching.has(e)));
    const states = new Map<string, State>([[BASELINE_KEY, { baseline: true, entities: [...entities].sort() }]]);
    const alerts: AlertDraft[] = [];
    const conditions: Condition[] = [];
    const endedNow = new Map<string, Resolution>();
    for (const d of observation.active) {
      const st: DelegationState = { nodeId: d.nodeId, amount: d.amountDelegated, startTimestamp: d.startTimestamp, endTimestamp: d.endTimestamp, rewardAddresses: d.rewardAddresses };
      states.set(d.txHash, st);
      // New to a node or address read before: existing ones are the baseline of a new one.
      if (!previous.get(d.txHash) && s.notifyNew && coveredBy(st, s).some((e) => known.has(e))) alerts.push(newDelegation(d.txHash, st, s));
      const c = ending(d.txHash, st, nowS, s);
      if (c) conditions.push(c);
    }
    // Ended only once the service lists it completed; until then it keeps what held (a list
    // that failed, one read only up to what was known, a status the service added later such
    // as a pause, a reward transaction not issued yet). One the rule no longer watches (its
    // node or address left the config) is dropped without a word.
    for (const [tx, st] of previous) {
      if (tx === BASELINE_KEY || !('nodeId' in st) || states.has(tx) || !inScope(st, s)) continue;
      const done = observation.completed[tx];
      if (done) {
        const ended = endedAlert(tx, st, done, s);
        alerts.push(ended);
        endedNow.set(tx, { summary: ended.summary, details: ended.details });
        continue;
      }
      states.set(tx, st);
      const c = ending(tx, st, nowS, s);
      if (c) conditions.push(c);
    }
    for (const node of s.delegationWindow ? (s.nodeIds ?? []) : []) {
      const was = previous.get(WINDOW_PREFIX + node);
      const w = windowOf(node, was && 'validator' in was ? was : undefined, observation.validations?.get(node), nowS, s);
      if (!w) continue;
      states.set(WINDOW_PREFIX + node, w.state);
      if (w.event) alerts.push(w.event);
    }
    const resolvedAs = (tx: string): Resolution | undefined => {
      const st = states.get(tx);
      return endedNow.get(tx) ?? (st && 'nodeId' in st ? notEnding(tx, st, nowS) : undefined);
    };
    return { states, alerts, conditions, failed: observation.failed, resolvedAs };
  },

  samples(s, states) {
    const byNode = new Map<string, { count: number; amount: bigint }>();
    for (const st of states.values()) {
      if (!('nodeId' in st)) continue;
      const n = byNode.get(st.nodeId) ?? { count: 0, amount: 0n };
      byNode.set(st.nodeId, { count: n.count + 1, amount: n.amount + (navax(st.amount) ?? 0n) });
    }
    const out: GaugeSample[] = [];
    for (const [node, n] of byNode) {
      const labels = { network: s.network, node_id: node };
      out.push({ metric: 'avawatch_delegations_active', labels, value: n.count });
      out.push({ metric: 'avawatch_delegated_stake_avax', labels, value: navaxToAvax(n.amount) });
    }
    return out;
  },

  describe: (s) =>
    [s.network, s.nodeIds ? `${s.nodeIds.length} node(s)` : '', s.rewardAddresses ? `${s.rewardAddresses.length} reward address(es)` : '', s.warnBefore ? `warn ${s.warnBefore.map(formatDuration).join('/')}` : '', s.notifyNew ? 'new ones too' : '']
      .filter(Boolean)
      .join(', '),
  cost(s) {
    const path = `/v1/networks/${s.network}/delegators`;
    const calls = filterBatchesOf(s).map((b) =>
      apiCall('GET', path, { nodeIds: b.nodeIds?.join(','), rewardAddresses: b.rewardAddresses?.join(','), delegationStatus: 'active', sortOrder: 'desc' }),
    );
    // The window reads the validator kinds' very lists: shared with them, counted once by `check`.
    const windows = s.nodeIds && s.delegationWindow ? validatorListCalls({ network: s.network, nodeIds: s.nodeIds, subnetId: PRIMARY_NETWORK }, ['active']) : [];
    return { calls: [...calls, ...windows], more: 'the first read lists every page; one more page while a page holds only new delegations, and up to 3 when delegations end' };
  },
};

/** As many ids (or addresses) per call as fit in the URL. */
function filterBatchesOf(s: Spec): Batch[] {
  return [
    ...filterBatches(s.nodeIds ?? [], Number.POSITIVE_INFINITY).map((nodeIds) => ({ nodeIds })),
    ...filterBatches(s.rewardAddresses ?? [], Number.POSITIVE_INFINITY).map((rewardAddresses) => ({ rewardAddresses })),
  ];
}

function entitiesOf(b: Batch): string[] {
  return [...(b.nodeIds ?? []), ...(b.rewardAddresses ?? [])];
}

/** Every node id and reward address the rule watches. */
function watched(s: Spec): string[] {
  return [...(s.nodeIds ?? []), ...(s.rewardAddresses ?? [])];
}

/**
 * The node ids and addresses whose delegations are tracked whole. A state written before
 * that was recorded (a bare marker) covered every one the rule watched.
 */
function baselined(previous: ReadonlyMap<string, State>, s: Spec): Set<string> {
  const marker = previous.get(BASELINE_KEY);
  if (!marker || !('baseline' in marker)) return new Set();
  return new Set(marker.entities ?? watched(s));
}

/** The watched node id and reward addresses a delegation is listed under. */
function coveredBy(st: DelegationState, s: Spec): string[] {
  return [...(s.nodeIds?.includes(st.nodeId) ? [st.nodeId] : []), ...watchedAddresses(st, s)];
}

function inScope(st: DelegationState, s: Spec): boolean {
  return coveredBy(st, s).length > 0;
}

function watchedAddresses(st: DelegationState, s: Spec): string[] {
  return st.rewardAddresses.map((a) => a.replace(/^[PX]-/, '')).filter((a) => s.rewardAddresses?.includes(a) ?? false);
}

function labelsOf(tx: string, st: DelegationState, s: Spec): Record<string, string> {
  return { delegation: tx, node: st.nodeId, network: s.network };
}

function facts(tx: string, st: DelegationState): Record<string, string> {
  return {
    Delegation: tx,
    Node: st.nodeId,
    Amount: avaxText(st.amount),
    Start: isoSeconds(st.startTimestamp),
    End: isoSeconds(st.endTimestamp),
    'Reward addresses': st.rewardAddresses.join(', '),
  };
}

function endedAlert(tx: string, st: DelegationState, done: Delegator, s: Spec): AlertDraft {
  const { grossReward, netReward } = done;
  const reward: Record<string, string> =
    grossReward !== undefined && netReward !== undefined ? { 'Gross reward': avaxText(grossReward), 'Net reward': avaxText(netReward) } : { Reward: 'not listed' };
  // Rewards are all or nothing: a net reward of 0 most likely means the node's uptime was under the threshold.
  if (netReward !== undefined && navax(netReward) === 0n) {
    return {
      status: 'event',
      severity: 'critical',
      news: 'bad',
      subject: tx,
      summary: `Delegation of ${avaxText(st.amount)} to ${st.nodeId} ended without a reward: the node's uptime was likely under the reward threshold`,
      labels: { ...labelsOf(tx, st, s), reward: 'none' },
      details: { ...facts(tx, st), ...reward, 'Likely cause': "the validator's uptime under the reward threshold (80%, 90% after Helicon)" },
    };
  }
  const rewardText = reward['Gross reward'] ? `, reward ${reward['Gross reward']} gross, ${reward['Net reward']} net` : '';
  return {
    status: 'event',
    news: 'neutral',
    subject: tx,
    summary: `Delegation of ${avaxText(st.amount)} to ${st.nodeId} ended${rewardText}`,
    labels: labelsOf(tx, st, s),
    details: { ...facts(tx, st), ...reward },
  };
}

function newDelegation(tx: string, st: DelegationState, s: Spec): AlertDraft {
  return {
    status: 'event',
    news: 'good',
    subject: tx,
    summary: `New delegation of ${avaxText(st.amount)} to ${st.nodeId}, until ${isoSeconds(st.endTimestamp)}`,
    labels: labelsOf(tx, st, s),
    details: facts(tx, st),
  };
}

function ending(tx: string, st: DelegationState, nowS: number, s: Spec): Condition | undefined {
  if (!s.warnBefore) return undefined;
  const left = st.endTimestamp - nowS;
  const crossed = s.warnBefore.filter((t) => left * 1000 <= t);
  const tier = crossed.at(-1);
  if (tier === undefined || left <= 0) return undefined;
  return {
    key: tx,
    subject: tx,
    // The delegator's stake leaving is news to see, not a page.
    news: 'neutral',
    tier: formatDuration(tier),
    // Its end as a time, not "in 23h" from the evaluation: true whenever it is delivered.
    summary: `Delegation of ${avaxText(st.amount)} to ${st.nodeId} ends within ${formatDuration(tier)}, at ${isoSeconds(st.endTimestamp)}`,
    resolvedSummary: `Delegation ${tx} to ${st.nodeId} is no longer ending soon (ended or extended)`,
    labels: { ...labelsOf(tx, st, s), threshold: formatDuration(tier) },
    details: facts(tx, st),
  };
}

/** A delegation still tracked that no longer ends soon: past its end (its reward not listed yet), or extended. */
function notEnding(tx: string, st: DelegationState, nowS: number): Resolution {
  const end = isoSeconds(st.endTimestamp);
  const summary =
    st.endTimestamp <= nowS
      ? `Delegation of ${avaxText(st.amount)} to ${st.nodeId} reached its end (${end}); its reward is reported once the service lists it completed`
      : `Delegation ${tx} to ${st.nodeId} now ends ${end}: no longer ending soon`;
  return { summary, details: facts(tx, st) };
}

/**
 * A node's validation as listed now (kept as last listed when its read failed, or while it is
 * listed no more), and the news when it closes to new delegations or opens again: an event
 * each, never a state alert (it would remind every few hours of something nobody can change).
 * The first read is the baseline; a new validation that starts closed (48 hours) says so once.
 */
function windowOf(node: string, was: WindowState | undefined, seen: Period | Failed | undefined, nowS: number, s: Spec): { state: WindowState; event?: AlertDraft } | undefined {
  // Not listed (between validations), or not read: what was known stands, so a new validation is news.
  if (seen === undefined || isFailed(seen)) return was && { state: was };
  const minimum = minDelegationS(s.network);
  const left = seen.endTimestamp - nowS;
  const closed = left > 0 && left < minimum;
  const state: WindowState = { validator: node, txHash: seen.txHash, end: seen.endTimestamp, ...(closed ? { closed } : {}) };
  if (!was) return { state };
  const before = was.closed === true && was.txHash === seen.txHash;
  const base = { Node: node, Network: s.network, 'Validation ends': isoSeconds(seen.endTimestamp), 'Shortest delegation': formatDuration(minimum * 1000), 'Staking tx': seen.txHash };
  const event = (summary: string, change: string): AlertDraft => ({ status: 'event', severity: 'info', news: 'neutral', subject: node, summary, labels: { node, network: s.network, check: 'delegation-window', change }, details: base });
  if (closed && !before) {
    return { state, event: event(`${node} can no longer accept new delegations: its validation ends ${isoSeconds(seen.endTimestamp)}, before the ${formatDuration(minimum * 1000)} a delegation must last`, 'closed') };
  }
  if (!closed && left > 0 && was.closed === true) return { state, event: event(`${node} can accept delegations again: its validation (or cycle) now ends ${isoSeconds(seen.endTimestamp)}`, 'opened') };
  return { state };
}
