import { formatDuration } from '../../base/duration.js';
import type { Condition, GaugeSample, Resolution, RuleKind } from '../types.js';
import { byNodeIds } from '../spread.js';
import { isFailed } from '../lookup.js';
import { isoSeconds } from '../format.js';
import { NextStates } from '../next-states.js';
import { readStakers, stakerNews, type StakersFailed, type StakersRead } from '../pchain.js';
import { currentPeriod, inOrder, observeValidators, samePeriod, subnetText, toPeriod, validatorLookups, type Observation as Listed, type Period } from '../validators.js';
import { largestThreshold, spec, state, thresholdsFor, thresholdText, type Renew, type Spec, type State } from './schema.js';
import { PRIMARY_NETWORK } from '../fields.js';
import { record } from '../../base/record.js';

export interface Observation {
  /** The service's view of each node, in the order of nodeIds. */
  service: Listed;
  /** The P-Chain API's word on auto-renewed validators (primary network only); undefined: none known. */
  pchain?: StakersRead | StakersFailed;
}

export const validationEnd: RuleKind<Spec, Observation, State> = {
  kind: 'validation-end',
  keyDetails: ['Period ends', 'Cycle ends'],
  labelNames: ['node', 'network', 'threshold'],
  spec,
  selects: ['nodeIds', 'nodeApis'],
  state,
  spread: byNodeIds(['nodeApis']),
  entityOrder: (s) => s.nodeIds,
  gauges: [
    {
      name: 'avawatch_validation_end_timestamp_seconds',
      help: 'End of the current validation period of a node that a validation-end rule watches.',
      labelNames: ['rule', 'network', 'node_id'],
    },
  ],

  async observe(s, ctx) {
    // An auto-renewed validator (ACP-236) is a primary-network one: the P-Chain API is asked only then.
    const sources = s.subnetId === PRIMARY_NETWORK ? { pChainApi: s.pChainApi, nodeApis: s.nodeApis } : {};
    const [service, pchain] = await Promise.all([observeValidators(s, ctx, { sameIsUnchanged: true }), readStakers(s.network, s.nodeIds, sources, ctx.node, ctx.signal)]);
    return pchain ? { service, pchain } : { service };
  },

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
      const seen = observation.service[i];
      const before = beforeOf(node);
      const last = before?.period ?? null;
      let p: Period | null;
      let changed = false;
      // A failed lookup keeps what held: its alert neither resolves nor changes.
      if (isFailed(seen)) {
        failed[node] = seen.failed;
        p = last;
      } else {
        // A node that drops out of the list keeps its last period: never read as "ended".
        const chosen = seen === undefined || seen === 'not-found' || seen === 'unchanged' || seen.length === 0 ? undefined : currentPeriod(seen);
        if (before !== undefined && (chosen === undefined || samePeriod(last, chosen))) p = last;
        else {
          p = chosen === undefined ? last : toPeriod(chosen);
          changed = true;
        }
      }
      const renew = renewOf(node, before?.renew, observation.pchain, nowS);
      if (renew !== before?.renew) changed = true;
      if (!changed) {
        if (before) states.keep(node);
      } else states.set(node, renew ? { period: p, renew } : { period: p });
      const c = p ? ending(node, p, renew, nowS, s) : undefined;
      if (c) conditions.push(c);
    }
    const resolvedAs = (node: string): Resolution | undefined => {
      const st = states.get(node);
      if (!st?.period) return undefined;
      const r = st.renew;
      if (r && r.txId === st.period.txHash && r.nextPeriod > 0) return renews(node, r, s);
      return renewed(node, previous.get(node)?.period ?? null, st.period, s);
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

  describe: (s) => `${s.network}${subnetText(s)}, ${s.nodeIds.length} node(s), warn ${s.warnBefore.map(thresholdText).join('/')} before the end${s.pChainApi !== undefined || s.nodeApis !== undefined ? ' (not at an auto-renewed validator\'s renewing boundary: read from the P-Chain API)' : ''}`,
  cost: (s) => {
    const lists = validatorLookups(s);
    const pchain = s.subnetId === PRIMARY_NETWORK && (s.pChainApi !== undefined || s.nodeApis !== undefined) ? 1 + Math.ceil(s.nodeIds.length / 100) : 0;
    return pchain > 0 ? { ...lists, nodeCalls: pchain } : lists;
  },
};

/**
 * The node's auto-renew cycle as the P-Chain API says it now, or as it last did when the read
 * failed; the very object it had when nothing changed. A validator the API lists not (or not as
 * auto-renewed) has none.
 */
function renewOf(node: string, was: Renew | undefined, read: Observation['pchain'], nowS: number): Renew | undefined {
  if (read === undefined) return undefined;
  const news = stakerNews(read, node, was, nowS);
  if (news.kind === 'unread' || news.kind === 'stale' || news.kind === 'gone-early') return was;
  if (news.kind !== 'listed' || !news.staker.autoRenew) return undefined;
  const v = news.staker;
  const nextPeriod = news.staker.autoRenew.nextPeriod;
  if (was && was.txId === v.txId && was.start === v.start && was.end === v.end && was.nextPeriod === nextPeriod) return was;
  return { txId: v.txId, start: v.start, end: v.end, nextPeriod };
}

/** An auto-renewed validator that renews at its boundary: that is no end. */
function renews(node: string, r: Renew, s: Spec): Resolution {
  const when = isoSeconds(r.end);
  return {
    summary: `${node} renews at its cycle boundary, ${when} (auto-renewed; its next cycle lasts ${formatDuration(r.nextPeriod * 1000)}): the end warning is resolved`,
    details: { Node: node, Network: s.network, 'Cycle ends': when, 'Next period': formatDuration(r.nextPeriod * 1000), 'Staking tx': r.txId },
  };
}

/** What ended the warning: the period the node is in now (a new one, the next registered, or this one extended). */
function renewed(node: string, was: Period | null, p: Period, s: Spec): Resolution {
  const when = isoSeconds(p.endTimestamp);
  const details = { Node: node, Network: s.network, 'Period ends': when, Status: p.status, 'Staking tx': p.txHash };
  if (p.status === 'pending') return { summary: `${node} has its next validation period registered (pending, ends ${when}): the end warning is resolved`, details };
  if (was?.txHash === p.txHash) return { summary: `${node} validation now ends ${when}: the end warning is resolved`, details };
  return { summary: `${node} has a new validation period: the end warning is resolved`, details };
}

/**
 * Firing from the largest threshold until a new period starts; the tier is the smallest
 * threshold crossed. Thresholds given as shares are of this period's length (an auto-renewed
 * validator's cycle), so a 48-hour validation is warned near its end, not at its start. An
 * auto-renewed validator that renews at its boundary is not ending; one whose nextPeriod is 0
 * exits there, and is warned as any other.
 */
function ending(node: string, p: Period, renew: Renew | undefined, nowS: number, s: Spec): Condition | undefined {
  if (p.status === 'pending') return undefined; // the next period is already registered
  const cycle = renew && renew.txId === p.txHash ? renew : undefined;
  if (cycle && cycle.nextPeriod > 0) return undefined;
  const start = cycle?.start ?? p.startTimestamp;
  const end = cycle?.end ?? p.endTimestamp;
  const left = end - nowS;
  if (left * 1000 > largestThreshold(s.warnBefore, end - start)) return undefined;
  const thresholds = thresholdsFor(s.warnBefore, end - start);
  const crossed = thresholds.filter((t) => left * 1000 <= t.ms).at(-1) ?? thresholds[0];
  const tier = left <= 0 ? 'ended' : formatDuration(crossed?.ms ?? 0);
  const when = isoSeconds(end);
  const what = cycle ? 'auto-renewed validation exits at its cycle boundary' : 'validation ends';
  // Times as they are, not "ago"/"in" from the evaluation: a message delivered later stays
  // true (the page and the terminal count from now when they show it).
  const summary = left <= 0 ? `${node} validation ended ${when} and no new period has started` : `${node} ${what} within ${tier}, at ${when}`;
  const written: Record<string, string> = crossed?.text && crossed.text !== tier ? { 'Threshold set': crossed.text } : {};
  return {
    key: node,
    subject: node,
    tier,
    summary,
    resolvedSummary: `${node} has a new validation period: the end warning is resolved`,
    labels: { node, network: s.network, threshold: tier },
    details: { Node: node, Network: s.network, 'Period ends': when, Status: p.status, Threshold: tier, ...written, ...(cycle ? { 'Next period': '0 (it exits)' } : {}), 'Staking tx': p.txHash },
  };
}
