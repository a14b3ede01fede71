import type { Delegator } from '../../api/schemas.js';
import { apiCall } from '../../api/catalog.js';
import { chunk, FILTER_BATCH } from '../../api/data-api.js';
import { avaxText, navax, navaxToAvax } from '../../amount.js';
import { formatDuration, formatElapsed } from '../../config/duration.js';
import { attempt, isFailed, lookupEach } from '../lookup.js';
import type { AlertDraft, Condition, GaugeSample, RuleKind } from '../types.js';
import { isoSeconds } from '../format.js';
import { BASELINE_KEY, spec, state, type DelegationState, type Spec, type State } from './schema.js';
import { record } from '../../record.js';

export interface Observation {
  /** Every active delegation the filters match (all pages read of every list that answered). */
  active: Delegator[];
  /** Completed entries of tracked delegations that left the active list, by txHash. */
  completed: Record<string, Delegator>;
  /** Node ids and reward addresses whose list could not be read, with why: their delegations keep what held. */
  failed: Record<string, string>;
}

const RECENT_COMPLETED_PAGES = 3;
const LOOKUP_CONCURRENCY = 2;

export const delegationEnd: RuleKind<Spec, Observation, State> = {
  kind: 'delegation-end',
  spec: spec as unknown as RuleKind<Spec, Observation, State>['spec'],
  state,
  gauges: [
    { name: 'avawatch_delegations_active', help: 'Active delegations to a node that the rule watches.', labelNames: ['rule', 'network', 'node_id'] },
    { name: 'avawatch_delegated_stake_avax', help: 'AVAX delegated to a node in the watched delegations.', labelNames: ['rule', 'network', 'node_id'] },
  ],

  async observe(s, { data, signal, previous }) {
    // One list per batch of node ids or reward addresses: a batch is read whole or fails
    // whole, and then only the nodes and addresses it covers are unknown this time.
    const batches: Array<{ nodeIds?: string[]; rewardAddresses?: string[] }> = [...chunk(s.nodeIds ?? [], FILTER_BATCH).map((b) => ({ nodeIds: b })), ...chunk(s.rewardAddresses ?? [], FILTER_BATCH).map((b) => ({ rewardAddresses: b }))];
    const reads = await lookupEach(Object.keys(batches), LOOKUP_CONCURRENCY, signal, (i) =>
      data.delegators(s.network, { ...batches[Number(i)], delegationStatus: 'active' }, signal),
    );
    const failed: Record<string, string> = {};
    const active = new Map<string, Delegator>();
    for (const [i, read] of Object.entries(reads)) {
      const b = batches[Number(i)] as (typeof batches)[number];
      if (isFailed(read)) for (const key of [...(b.nodeIds ?? []), ...(b.rewardAddresses ?? [])]) failed[key] = read.failed;
      else for (const d of read) active.set(d.txHash, d);
    }
    const left = Object.entries(previous as Record<string, State>).filter(
      (e): e is [string, DelegationState] => e[0] !== BASELINE_KEY && 'nodeId' in e[1] && !active.has(e[0]) && readWhole(e[1], s, failed),
    );
    const completed = record<Delegator>();
    if (left.length > 0) {
      // The rewards of the ones that ended: newest completed delegations of those nodes.
      const nodes = [...new Set(left.map(([, st]) => st.nodeId))];
      const recent = await attempt(signal, () => data.delegators(s.network, { nodeIds: nodes, delegationStatus: 'completed', pages: RECENT_COMPLETED_PAGES }, signal));
      if (isFailed(recent)) for (const node of nodes) failed[node] = recent.failed;
      else for (const d of recent) if (left.some(([tx]) => tx === d.txHash)) completed[d.txHash] = d;
    }
    return { active: [...active.values()], completed, failed };
  },

  evaluate(previous, observation, now, s) {
    const nowS = Math.floor(now.getTime() / 1000);
    const baseline = previous[BASELINE_KEY] === undefined;
    const states = record<State>([[BASELINE_KEY, { baseline: true }]]);
    const alerts: AlertDraft[] = [];
    const conditions: Condition[] = [];
    for (const d of observation.active) {
      const st: DelegationState = { nodeId: d.nodeId, amount: d.amountDelegated, startTimestamp: d.startTimestamp, endTimestamp: d.endTimestamp, rewardAddresses: d.rewardAddresses };
      states[d.txHash] = st;
      if (!baseline && !previous[d.txHash] && s.notifyNew) alerts.push(newDelegation(d.txHash, st, s));
      const c = ending(d.txHash, st, nowS, s);
      if (c) conditions.push(c);
    }
    // Left the active list of a complete read: ended once the service lists it completed,
    // or its end time has passed. One whose lists failed keeps what held; so does one that
    // left before its end without being listed completed (a status the service added later,
    // such as a pause): never announced as ended early.
    // One the rule no longer watches (its node or address left the config) is dropped without a word.
    for (const [tx, st] of Object.entries(previous)) {
      if (tx === BASELINE_KEY || !('nodeId' in st) || states[tx] || !inScope(st, s)) continue;
      if (!readWhole(st, s, observation.failed) || (!ended(st, now) && !observation.completed[tx])) {
        states[tx] = st;
        const c = ending(tx, st, nowS, s);
        if (c) conditions.push(c);
        continue;
      }
      alerts.push(endedAlert(tx, st, observation.completed[tx], s));
    }
    return { states, alerts, conditions, failed: observation.failed };
  },

  samples(s, states) {
    const byNode = new Map<string, { count: number; amount: bigint }>();
    for (const st of Object.values(states)) {
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
    const batches = (ids: readonly string[] | undefined, key: string) =>
      chunk(ids ?? [], FILTER_BATCH).map((b) => apiCall('GET', path, { [key]: b.join(','), delegationStatus: 'active' }));
    return { calls: [...batches(s.nodeIds, 'nodeIds'), ...batches(s.rewardAddresses, 'rewardAddresses')], more: 'one more call per 100 delegations, and up to 3 when one ends' };
  },
};

function inScope(st: DelegationState, s: Spec): boolean {
  return (s.nodeIds?.includes(st.nodeId) ?? false) || watchedAddresses(st, s).length > 0;
}

function watchedAddresses(st: DelegationState, s: Spec): string[] {
  return st.rewardAddresses.map((a) => a.replace(/^[PX]-/, '')).filter((a) => s.rewardAddresses?.includes(a) ?? false);
}

/**
 * Whether a list that covers this delegation was read whole this time: only then does its
 * absence mean it left the active set. Its node's list, or one of its reward addresses'.
 */
function readWhole(st: DelegationState, s: Spec, failed: Record<string, string>): boolean {
  const byNode = (s.nodeIds?.includes(st.nodeId) ?? false) && !Object.hasOwn(failed, st.nodeId);
  return byNode || watchedAddresses(st, s).some((a) => !Object.hasOwn(failed, a));
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

function ended(st: DelegationState, now: Date): boolean {
  return st.endTimestamp * 1000 <= now.getTime();
}

function endedAlert(tx: string, st: DelegationState, done: Delegator | undefined, s: Spec): AlertDraft {
  const { grossReward, netReward } = done ?? {};
  const reward: Record<string, string> =
    grossReward !== undefined && netReward !== undefined ? { 'Gross reward': avaxText(grossReward), 'Net reward': avaxText(netReward) } : { Reward: 'not listed yet' };
  const rewardText = reward['Gross reward'] ? `, reward ${reward['Gross reward']} gross, ${reward['Net reward']} net` : '';
  return {
    status: 'event',
    subject: tx,
    summary: `Delegation of ${avaxText(st.amount)} to ${st.nodeId} ended${rewardText}`,
    labels: labelsOf(tx, st, s),
    details: { ...facts(tx, st), ...reward },
  };
}

function newDelegation(tx: string, st: DelegationState, s: Spec): AlertDraft {
  return {
    status: 'event',
    severity: 'info',
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
    tier: formatDuration(tier),
    summary: `Delegation of ${avaxText(st.amount)} to ${st.nodeId} ends in ${formatElapsed(left * 1000)} (${isoSeconds(st.endTimestamp)})`,
    resolvedSummary: `Delegation ${tx} to ${st.nodeId} is no longer ending soon (ended or extended)`,
    labels: { ...labelsOf(tx, st, s), threshold: formatDuration(tier) },
    details: facts(tx, st),
  };
}
