import type { Validator } from '../../api/schemas.js';
import { apiCall } from '../../api/catalog.js';
import { isFailed, lookupEach, type Outcome } from '../lookup.js';
import type { AlertDraft, Cost, Evaluation, GaugeSample, ObserveContext, RuleKind } from '../types.js';
import { PRIMARY_NETWORK, spec, state, type Period, type Spec, type State } from './schema.js';

/** NodeID → every period the service lists for it, `not-found` (404), or why its lookup failed. */
export type Observation = Record<string, Outcome<Validator[] | 'not-found'>>;

const LOOKUP_CONCURRENCY = 4;

export const validatorStatus: RuleKind<Spec, Observation, State> = {
  kind: 'validator-status',
  spec,
  state,
  gauges: [
    {
      name: 'avawatch_validator_status',
      help: 'Status of the current validation period of a watched node (1 for the status shown).',
      labelNames: ['rule', 'network', 'node_id', 'status'],
    },
    {
      name: 'avawatch_validator_start_timestamp_seconds',
      help: 'Start of the current validation period of a watched node.',
      labelNames: ['rule', 'network', 'node_id'],
    },
    {
      name: 'avawatch_validator_end_timestamp_seconds',
      help: 'End of the current validation period of a watched node.',
      labelNames: ['rule', 'network', 'node_id'],
    },
    {
      name: 'avawatch_validator_listed',
      help: '1 when the service lists the watched node, 0 when it answers with no validation period.',
      labelNames: ['rule', 'network', 'node_id'],
    },
  ],

  observe: (s, ctx) => observeValidators(s, ctx),

  evaluate(previous, observation, now, s) {
    const result: Evaluation<State> = { states: {}, alerts: [], failed: {} };
    for (const node of s.nodeIds) {
      const before = previous[node];
      const seen = observation[node];
      if (seen === undefined) throw new Error(`no observation for ${node}`);
      if (isFailed(seen)) {
        keepFailed(result, node, before, seen.failed);
        continue;
      }
      const labels = { node, network: s.network };

      if (seen === 'not-found' || seen.length === 0) {
        result.states[node] = { period: before?.period ?? null, missing: true };
        if (!before?.missing) result.alerts.push(notListed(node, s, before?.period ?? null));
        continue;
      }

      const current = toPeriod(currentPeriod(seen));
      result.states[node] = { period: current, missing: false };
      // The first observation is the baseline; a node first seen unlisted reports its listing.
      if (before === undefined) continue;
      const change = describeChange(before.period, current);
      if (change) result.alerts.push(transition(node, s, before.period, current, change, labels, now));
    }
    return result;
  },

  samples(s, states) {
    const out: GaugeSample[] = [];
    for (const [node, st] of Object.entries(states)) {
      const base = { network: s.network, node_id: node };
      out.push({ metric: 'avawatch_validator_listed', labels: base, value: st.missing ? 0 : 1 });
      if (!st.period) continue;
      out.push({ metric: 'avawatch_validator_status', labels: { ...base, status: st.period.status }, value: 1 });
      out.push({ metric: 'avawatch_validator_start_timestamp_seconds', labels: base, value: st.period.startTimestamp });
      out.push({ metric: 'avawatch_validator_end_timestamp_seconds', labels: base, value: st.period.endTimestamp });
    }
    return out;
  },

  describe(s) {
    return `${s.network}${subnetText(s)}, ${s.nodeIds.length} node${s.nodeIds.length === 1 ? '' : 's'}`;
  },

  cost: (s) => validatorLookups(s),
};

/** One lookup per node (shared with validation-end rules watching the same nodes). */
export function validatorLookups(s: { network: string; nodeIds: string[] }): Cost {
  return { calls: s.nodeIds.map((id) => apiCall('GET', `/v1/networks/${s.network}/validators/${id}`)) };
}

/**
 * Every listed node's validation periods on the rule's subnet (the primary network unless
 * it names one): one call per node; a node whose lookup fails fails alone.
 */
export async function observeValidators(s: Pick<Spec, 'network' | 'nodeIds' | 'subnetId'>, { data, signal }: ObserveContext): Promise<Observation> {
  const results = await lookupEach(s.nodeIds, LOOKUP_CONCURRENCY, signal, async (id) => {
    const periods = await data.validatorPeriods(s.network, id, signal);
    return periods === 'not-found' ? periods : periods.filter((p) => p.subnetId === s.subnetId);
  });
  return Object.fromEntries(results);
}

/** Said only when a rule reads another subnet than the primary network. */
export function subnetText(s: Pick<Spec, 'subnetId'>): string {
  return s.subnetId === PRIMARY_NETWORK ? '' : ` subnet ${s.subnetId}`;
}

/** A failed entity keeps the state it had (none, before its baseline) and is named in `failed`. */
export function keepFailed<S>(result: Evaluation<S>, entity: string, before: S | undefined, why: string): void {
  if (before !== undefined) result.states[entity] = before;
  (result.failed ??= {})[entity] = why;
}

/** The active period if there is one, else the one that started last. */
export function currentPeriod(periods: readonly Validator[]): Validator {
  const byStart = [...periods].sort((a, b) => b.startTimestamp - a.startTimestamp);
  const active = byStart.find((p) => p.validationStatus === 'active');
  const chosen = active ?? byStart[0];
  if (!chosen) throw new Error('currentPeriod needs at least one period');
  return chosen;
}

export function toPeriod(v: Validator): Period {
  return { txHash: v.txHash, status: v.validationStatus, startTimestamp: v.startTimestamp, endTimestamp: v.endTimestamp };
}

type Change = 'status' | 'new-period' | 'listed';

function describeChange(before: Period | null, after: Period): Change | undefined {
  if (before === null) return 'listed';
  if (before.txHash !== after.txHash) return 'new-period';
  return before.status === after.status ? undefined : 'status';
}

function transition(
  node: string,
  s: Spec,
  before: Period | null,
  after: Period,
  change: Change,
  labels: Record<string, string>,
  now: Date,
): AlertDraft {
  const from = before?.status ?? 'not listed';
  const what = change === 'new-period' ? ' (new validation period)' : '';
  const details: Record<string, string> = {
    Node: node,
    Network: s.network,
    Change: `${from} → ${after.status}${what}`,
    'Period start': isoSeconds(after.startTimestamp),
    [after.endTimestamp * 1000 <= now.getTime() ? 'Period ended' : 'Period ends']: isoSeconds(after.endTimestamp),
    'Staking tx': after.txHash,
  };
  if (change === 'new-period' && before) details['Previous period ended'] = isoSeconds(before.endTimestamp);
  return {
    status: 'event',
    subject: node,
    summary: `${node} validation ${from} → ${after.status}${what}`,
    labels: { ...labels, status: after.status, previous_status: from },
    details,
  };
}

function notListed(node: string, s: Spec, last: Period | null): AlertDraft {
  const summary = last
    ? `${node} is no longer listed by the service on ${s.network} (last seen ${last.status})`
    : `${node} is not known to the service on ${s.network}: check the NodeID and network`;
  return {
    status: 'event',
    severity: 'warning',
    subject: node,
    summary,
    labels: { node, network: s.network, status: 'not_listed' },
    details: { Node: node, Network: s.network, 'Last seen status': last?.status ?? 'never seen' },
  };
}

/** An ISO time for a timestamp the service sent; one outside Date's range is shown as it came. */
export function isoSeconds(seconds: number): string {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? `${seconds} (not a valid time)` : date.toISOString().replace('.000Z', 'Z');
}
