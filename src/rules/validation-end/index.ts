import { formatDuration, formatElapsed } from '../../base/duration.js';
import type { Condition, GaugeSample, Resolution, RuleKind } from '../types.js';
import { isFailed } from '../lookup.js';
import { isoSeconds } from '../format.js';
import { NextStates } from '../next-states.js';
import { currentPeriod, inOrder, observeValidators, samePeriod, subnetText, toPeriod, validatorLookups, type Observation, type Period } from '../validators.js';
import { spec, state, type Spec, type State } from './schema.js';
import { record } from '../../base/record.js';

export const validationEnd: RuleKind<Spec, Observation, State> = {
  kind: 'validation-end',
  labelNames: ['node', 'network', 'threshold'],
  spec,
  selects: ['nodeIds'],
  state,
  entityOrder: (s) => s.nodeIds,
  gauges: [
    {
      name: 'avawatch_validation_end_timestamp_seconds',
      help: 'End of the current validation period of a node that a validation-end rule watches.',
      labelNames: ['rule', 'network', 'node_id'],
    },
  ],

  observe: (s, ctx) => observeValidators(s, ctx, { sameIsUnchanged: true }),

  evaluate(previous, observation, now, s) {
    const conditions: Condition[] = [];
    const failed = record<string>();
    // Nothing changed (most polls): the states it had, as they were; no new object per node.
    const states = new NextStates(previous);
    const nowS = Math.floor(now.getTime() / 1000);
    const beforeOf = inOrder(previous);
    // By index: the observation is in the order of nodeIds.
    for (let i = 0; i < s.nodeIds.length; i++) {
      const node = s.nodeIds[i] as string;
      const seen = observation[i];
      const before = beforeOf(node);
      const last = before?.period ?? null;
      let p: Period | null;
      // A failed lookup keeps what held: its alert neither resolves nor changes.
      if (isFailed(seen)) {
        if (before) states.keep(node);
        failed[node] = seen.failed;
        p = last;
      } else {
        // A node that drops out of the list keeps its last period: never read as "ended".
        const chosen = seen === undefined || seen === 'not-found' || seen === 'unchanged' || seen.length === 0 ? undefined : currentPeriod(seen);
        if (before !== undefined && (chosen === undefined || samePeriod(last, chosen))) {
          p = last;
          states.keep(node);
        } else {
          p = chosen === undefined ? last : toPeriod(chosen);
          states.set(node, { period: p });
        }
      }
      const c = p ? ending(node, p, nowS, s) : undefined;
      if (c) conditions.push(c);
    }
    const resolvedAs = (node: string): Resolution | undefined => {
      const now = states.get(node)?.period;
      return now ? renewed(node, previous.get(node)?.period ?? null, now, s) : undefined;
    };
    // Onto done(), not spread: its `states` is made only if read.
    return Object.assign(states.done(), { alerts: [], conditions, failed, resolvedAs });
  },

  samples(s, states) {
    const out: GaugeSample[] = [];
    for (const [node, st] of states) {
      if (st.period) {
        out.push({ metric: 'avawatch_validation_end_timestamp_seconds', labels: { network: s.network, node_id: node }, value: st.period.endTimestamp });
      }
    }
    return out;
  },

  describe: (s) => `${s.network}${subnetText(s)}, ${s.nodeIds.length} node(s), warn ${s.warnBefore.map(formatDuration).join('/')} before the end`,
  cost: (s) => validatorLookups(s),
};

/** What ended the warning: the period the node is in now (a new one, the next registered, or this one extended). */
function renewed(node: string, was: Period | null, p: Period, s: Spec): Resolution {
  const when = isoSeconds(p.endTimestamp);
  const details = { Node: node, Network: s.network, 'Period ends': when, Status: p.status, 'Staking tx': p.txHash };
  if (p.status === 'pending') return { summary: `${node} has its next validation period registered (pending, ends ${when}): the end warning is resolved`, details };
  if (was?.txHash === p.txHash) return { summary: `${node} validation now ends ${when}: the end warning is resolved`, details };
  return { summary: `${node} has a new validation period: the end warning is resolved`, details };
}

/** Firing from the largest threshold until a new period starts; the tier is the smallest threshold crossed. */
function ending(node: string, p: Period, nowS: number, s: Spec): Condition | undefined {
  if (p.status === 'pending') return undefined; // the next period is already registered
  const left = p.endTimestamp - nowS;
  const largest = s.warnBefore[0] ?? 0;
  if (left * 1000 > largest) return undefined;
  const crossed = s.warnBefore.filter((t) => left * 1000 <= t).at(-1) ?? largest;
  const tier = left <= 0 ? 'ended' : formatDuration(crossed);
  const when = isoSeconds(p.endTimestamp);
  const summary =
    left <= 0
      ? `${node} validation ended ${formatElapsed(-left * 1000)} ago (${when}) and no new period has started`
      : `${node} validation ends in ${formatElapsed(left * 1000)} (${when})`;
  return {
    key: node,
    subject: node,
    tier,
    summary,
    resolvedSummary: `${node} has a new validation period: the end warning is resolved`,
    labels: { node, network: s.network, threshold: tier },
    details: { Node: node, Network: s.network, 'Period ends': when, Status: p.status, Threshold: tier, 'Staking tx': p.txHash },
  };
}
