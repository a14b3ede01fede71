import type { Validator } from '../../api/schemas.js';
import { avaxText, navax } from '../../base/amount.js';
import { isoSeconds } from '../format.js';
import { isFailed } from '../lookup.js';
import { NextStates } from '../next-states.js';
import type { AlertDraft, GaugeSample, News, RuleKind } from '../types.js';
import { byNodeIds } from '../spread.js';
import { currentPeriod, observeValidators, samePeriod, subnetText, toPeriod, validatorLookups, type Observation, type Period } from '../validators.js';
import { spec, state, type Spec, type State } from './schema.js';
import { record } from '../../base/record.js';

export const validatorStatus: RuleKind<Spec, Observation, State> = {
  kind: 'validator-status',
  keyDetails: ['Validation reward', 'Delegation reward'],
  labelNames: ['node', 'network', 'status', 'previous_status', 'reward'],
  spec,
  selects: ['nodeIds'],
  state,
  spread: byNodeIds(),
  entityOrder: (s) => s.nodeIds,
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

  observe: (s, ctx) => observeValidators(s, ctx, { sameIsUnchanged: true }),

  evaluate(previous, observation, now, s) {
    const alerts: AlertDraft[] = [];
    const failed = record<string>();
    // Nothing changed (most polls): the states it had, as they were; no new object per node.
    const states = new NextStates(previous);
    // By index: the observation is in the order of nodeIds.
    for (let i = 0; i < s.nodeIds.length; i++) {
      const node = s.nodeIds[i] as string;
      const seen = observation[i];
      // Observed against this very `previous`: the node had a state, and it stands as it was
      // (most nodes, most polls: not even looked up again).
      if (seen === 'unchanged') {
        states.keep(node);
        continue;
      }
      const before = previous.get(node);
      if (seen === undefined) throw new Error(`no observation for ${node}`);
      if (isFailed(seen)) {
        // Its lookup failed: the state it had stands (none, before its baseline).
        if (before) states.keep(node);
        failed[node] = seen.failed;
        continue;
      }
      if (seen === 'not-found' || seen.length === 0) {
        if (before?.missing === true) states.keep(node);
        else {
          states.set(node, { period: before?.period ?? null, missing: true });
          alerts.push(notListed(node, s, before?.period ?? null));
        }
        continue;
      }

      const chosen = currentPeriod(seen);
      if (before !== undefined && before.missing === false && samePeriod(before.period, chosen)) {
        states.keep(node);
        continue;
      }
      const current = toPeriod(chosen);
      states.set(node, { period: current, missing: false });
      // The first observation is the baseline; a node first seen unlisted reports its listing.
      if (before === undefined) continue;
      const change = describeChange(before.period, current);
      if (change) alerts.push(withRewards(transition(node, s, before.period, current, change, { node, network: s.network }, now), chosen));
    }
    // Onto done(), not spread: its `states` is made only if read.
    return Object.assign(states.done(), { alerts, failed });
  },

  samples(s, states) {
    const out: GaugeSample[] = [];
    for (const [node, st] of states) {
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
    news: newsOf(after.status, change),
    subject: node,
    summary: `${node} validation ${from} → ${after.status}${what}`,
    labels: { ...labels, status: after.status, previous_status: from },
    details,
  };
}

/**
 * Validating (again) is good news; an ending is news to see, not a page; removal is bad. A
 * status the service adds is neutral until we know what it means.
 */
function newsOf(status: string, change: Change): News {
  if (status === 'removed') return 'bad';
  if (status === 'active') return 'good';
  if (status === 'pending') return change === 'status' ? 'neutral' : 'good';
  return 'neutral';
}

/**
 * A completed period says what it paid. Rewards are all or nothing: a validation reward of 0
 * means the validation earned nothing, most likely for uptime under the reward threshold.
 */
function withRewards(alert: AlertDraft, v: Validator): AlertDraft {
  const r = v.rewards;
  if (v.validationStatus !== 'completed' || !r) return alert;
  const details = { ...alert.details };
  if (r.validationRewardAmount !== undefined) details['Validation reward'] = avaxText(r.validationRewardAmount);
  if (r.delegationRewardAmount !== undefined) details['Delegation reward'] = avaxText(r.delegationRewardAmount);
  if (r.rewardTxHash !== undefined) details['Reward tx'] = r.rewardTxHash;
  if (r.validationRewardAmount === undefined || navax(r.validationRewardAmount) !== 0n) return { ...alert, details };
  details['Likely cause'] = 'uptime under the reward threshold (80%, 90% after Helicon) as the other validators saw it';
  return {
    ...alert,
    severity: 'critical',
    news: 'bad',
    summary: `${v.nodeId} validation ended without a reward (${alert.labels['previous_status'] ?? 'active'} → completed): its uptime was likely under the reward threshold`,
    labels: { ...alert.labels, reward: 'none' },
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
    news: 'bad',
    subject: node,
    summary,
    labels: { node, network: s.network, status: 'not_listed' },
    details: { Node: node, Network: s.network, 'Last seen status': last?.status ?? 'never seen' },
  };
}

