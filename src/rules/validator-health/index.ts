import { avaxText, formatAvax, navax, navaxToAvax } from '../../amount.js';
import { formatDuration } from '../../config/duration.js';
import { record } from '../../record.js';
import { PRIMARY_NETWORK } from '../fields.js';
import { isoSeconds } from '../format.js';
import { isFailed, keepFailed } from '../lookup.js';
import type { Condition, Evaluation, GaugeSample, RuleKind } from '../types.js';
import { currentPeriod, observeValidators, validatorLookups, type Observation } from '../validators.js';
import { benchedChains, CHAINS, read } from './read.js';
import { spec, state, type Spec, type State } from './schema.js';
import { older, parseVersion, versionText } from './version.js';

const labelsOf = (node: string, s: Spec) => ({ network: s.network, node_id: node });

/**
 * The health of each watched node's active validation, as the service's own node sees it:
 * uptime against the reward threshold, benched chains, reachability, AvalancheGo version and
 * delegation capacity. It reads the same bulk lists as validator-status and validation-end.
 */
export const validatorHealth: RuleKind<Spec, Observation, State> = {
  kind: 'validator-health',
  spec,
  state,
  gauges: [
    { name: 'avawatch_validator_uptime_percent', help: "Uptime of a watched node's active validation, as the service's own node observed it (percent).", labelNames: ['rule', 'network', 'node_id'] },
    { name: 'avawatch_validator_benched_percent', help: "Requests of a chain on which the service's node benched the watched node (percent).", labelNames: ['rule', 'network', 'node_id', 'chain'] },
    { name: 'avawatch_validator_reachability_percent', help: "Reachability of a watched node from the service's node (percent).", labelNames: ['rule', 'network', 'node_id'] },
    { name: 'avawatch_validator_version_info', help: 'AvalancheGo version a watched node reports (1 for the version shown; "unknown" when it reports none).', labelNames: ['rule', 'network', 'node_id', 'version'] },
    { name: 'avawatch_validator_stake_avax', help: 'AVAX a watched node stakes itself in its active validation.', labelNames: ['rule', 'network', 'node_id'] },
    { name: 'avawatch_validator_delegated_avax', help: 'AVAX delegated to a watched node.', labelNames: ['rule', 'network', 'node_id'] },
    { name: 'avawatch_validator_delegation_capacity_avax', help: 'AVAX that can still be delegated to a watched node.', labelNames: ['rule', 'network', 'node_id'] },
    { name: 'avawatch_validator_potential_reward_avax', help: "Validation reward of a watched node's active validation if it ends with enough uptime (AVAX).", labelNames: ['rule', 'network', 'node_id'] },
  ],

  observe: (s, ctx) => observeValidators({ ...s, subnetId: PRIMARY_NETWORK }, ctx),

  evaluate(previous, observation, now, s) {
    const result: Evaluation<State> = { states: record(), alerts: [], conditions: [], failed: record() };
    const nowS = Math.floor(now.getTime() / 1000);
    for (const node of s.nodeIds) {
      const before = previous[node];
      const seen = observation[node];
      if (isFailed(seen)) {
        // Nothing known: what held holds (an alert neither resolves nor fires on a gap).
        keepFailed(result, node, before, seen.failed);
        // As of its last sample: time passing alone fires nothing.
        if (before) result.conditions?.push(...checks(node, before, before, before.at ?? nowS, s));
        continue;
      }
      let st: State;
      // A copy: `previous` is the engine's, never changed in place.
      if (seen === undefined || seen === 'unchanged') st = { ...(before ?? { period: null }) };
      else if (seen === 'not-found' || seen.length === 0) st = { period: before?.period ?? null, missing: true };
      else st = read(currentPeriod(seen), before, nowS, s);
      const conditions = checks(node, st, before, nowS, s);
      st.uptimeFiring = conditions.some((c) => c.labels['check'] === 'uptime') || undefined;
      result.states[node] = st;
      result.conditions?.push(...conditions);
    }
    return result;
  },

  samples(s, states) {
    const out: GaugeSample[] = [];
    for (const [node, st] of Object.entries(states)) {
      if (st.period?.status !== 'active') continue;
      const labels = labelsOf(node, s);
      const avax = (text: string | undefined) => (text === undefined ? undefined : navax(text));
      if (st.uptime !== undefined) out.push({ metric: 'avawatch_validator_uptime_percent', labels, value: st.uptime });
      for (const chain of CHAINS) {
        const v = st.benched?.[chain];
        if (v !== undefined) out.push({ metric: 'avawatch_validator_benched_percent', labels: { ...labels, chain }, value: v });
      }
      if (st.reachability !== undefined) out.push({ metric: 'avawatch_validator_reachability_percent', labels, value: st.reachability });
      out.push({ metric: 'avawatch_validator_version_info', labels: { ...labels, version: st.version ?? 'unknown' }, value: 1 });
      for (const [metric, text] of [
        ['avawatch_validator_stake_avax', st.staked],
        ['avawatch_validator_delegated_avax', st.delegated],
        ['avawatch_validator_delegation_capacity_avax', st.capacity],
        ['avawatch_validator_potential_reward_avax', st.potentialReward],
      ] as const) {
        const n = avax(text);
        if (n !== undefined) out.push({ metric, labels, value: navaxToAvax(n) });
      }
    }
    return out;
  },

  describe(s) {
    const parts = [`${s.network}, ${s.nodeIds.length} node${s.nodeIds.length === 1 ? '' : 's'}`];
    if (s.uptime !== false) parts.push(`uptime under ${s.uptime.warning}%/${s.uptime.critical}%`);
    if (s.benched) parts.push(`benched above ${s.benched.above}% for ${formatDuration(s.benched.for)}`);
    if (s.reachability) parts.push(`reachability under ${s.reachability.below}% for ${formatDuration(s.reachability.for)}`);
    if (s.minVersion) parts.push(`AvalancheGo ≥ ${s.minVersion}`);
    if (s.minDelegationCapacity !== undefined) parts.push(`delegation capacity ≥ ${formatAvax(s.minDelegationCapacity)} AVAX`);
    return parts.join(', ');
  },

  cost: (s) => validatorLookups({ ...s, subnetId: PRIMARY_NETWORK }),
};

/** What holds for one node now: a condition per check that is off. */
function checks(node: string, st: State, before: State | undefined, nowS: number, s: Spec): Condition[] {
  const p = st.period;
  if (!p || p.status !== 'active') return [];
  const out: Condition[] = [];
  const base = { Node: node, Network: s.network, 'Validation ends': isoSeconds(p.endTimestamp), 'Staking tx': p.txHash };
  const condition = (check: string, c: Omit<Condition, 'key' | 'subject' | 'labels'> & { labels?: Record<string, string> }): Condition => ({
    ...c,
    key: `${node}:${check}`,
    subject: node,
    labels: { node, network: s.network, check, ...c.labels },
    details: { ...base, ...c.details },
  });

  if (s.uptime !== false && st.uptime !== undefined) {
    const u = s.uptime;
    const wasFiring = before?.period?.txHash === p.txHash && before.uptimeFiring === true;
    if (st.uptime < u.warning || (wasFiring && st.uptime < u.warning + u.hysteresis)) {
      const reward = rewardThreshold(p.startTimestamp, s);
      const margin = st.uptime - reward.percent;
      const critical = st.uptime < u.critical;
      const above = margin >= 0 ? `${fmt(margin)} points above` : `${fmt(-margin)} points UNDER`;
      out.push(
        condition('uptime', {
          severity: critical ? 'critical' : 'warning',
          tier: critical ? 'critical' : 'warning',
          summary: `${node} uptime ${fmt(st.uptime)}% is under ${fmt(critical ? u.critical : u.warning)}%: ${above} the ${reward.percent}% this validation needs for its reward`,
          resolvedSummary: `${node} uptime is back above ${fmt(u.warning + u.hysteresis)}%`,
          labels: { threshold: critical ? 'critical' : 'warning' },
          details: {
            Uptime: `${fmt(st.uptime)}% (the service's own node's view; each validator votes on what it saw)`,
            'Reward threshold': `${reward.percent}% (${reward.why})`,
            Margin: `${margin >= 0 ? '+' : '−'}${fmt(Math.abs(margin))} points`,
            Levels: `warning under ${fmt(u.warning)}%, critical under ${fmt(u.critical)}%, resolved above ${fmt(u.warning + u.hysteresis)}%`,
          },
        }),
      );
    }
  }

  if (s.benched && st.benchedSince !== undefined && nowS - st.benchedSince >= s.benched.for / 1000) {
    const chains = benchedChains(st, s.benched.above);
    if (chains.length > 0) {
      const what = chains.map((c) => `${c}-chain ${fmt(st.benched?.[c] ?? 0)}%`).join(', ');
      out.push(
        condition('benched', {
          summary: `${node} is benched on the ${chains.join('/')}-chain (${what} of requests) for ${formatDuration((nowS - st.benchedSince) * 1000)}`,
          resolvedSummary: `${node} is no longer benched`,
          labels: { chains: chains.join(',') },
          details: { Benched: what, Since: isoSeconds(st.benchedSince), Level: `above ${fmt(s.benched.above)}% for ${formatDuration(s.benched.for)}` },
        }),
      );
    }
  }

  if (s.reachability && st.unreachableSince !== undefined && st.reachability !== undefined && st.reachability < s.reachability.below && nowS - st.unreachableSince >= s.reachability.for / 1000) {
    out.push(
      condition('reachability', {
        summary: `${node} is reachable ${fmt(st.reachability)}% of the time, under ${fmt(s.reachability.below)}%, for ${formatDuration((nowS - st.unreachableSince) * 1000)}`,
        resolvedSummary: `${node} is reachable again (at least ${fmt(s.reachability.below)}%)`,
        details: { Reachability: `${fmt(st.reachability)}%`, Since: isoSeconds(st.unreachableSince) },
      }),
    );
  }

  const version = parseVersion(st.version);
  const minimum = parseVersion(s.minVersion);
  if (version && minimum && older(version, minimum)) {
    out.push(
      condition('version', {
        summary: `${node} runs AvalancheGo ${versionText(version)}, older than the required ${versionText(minimum)}: upgrade it`,
        resolvedSummary: `${node} runs AvalancheGo ${versionText(minimum)} or newer now`,
        details: { Version: st.version ?? 'unknown', Required: `≥ ${versionText(minimum)}` },
      }),
    );
  }

  const capacity = st.capacity === undefined ? undefined : navax(st.capacity);
  if (s.minDelegationCapacity !== undefined && capacity !== undefined && capacity < s.minDelegationCapacity) {
    out.push(
      condition('delegation-capacity', {
        summary: `${node} can take ${avaxText(st.capacity as string)} more delegation, under ${formatAvax(s.minDelegationCapacity)} AVAX`,
        resolvedSummary: `${node} has ${formatAvax(s.minDelegationCapacity)} AVAX or more of delegation capacity again`,
        details: { 'Delegation capacity': avaxText(st.capacity as string), Minimum: `${formatAvax(s.minDelegationCapacity)} AVAX` },
      }),
    );
  }
  return out;
}

/** 80% for a validation that started before Helicon, 90% at or after it (ACP-267); both configurable. */
export function rewardThreshold(startS: number, s: Spec): { percent: number; why: string } {
  const r = s.rewardUptime;
  const helicon = r.heliconTime === undefined ? undefined : Date.parse(r.heliconTime) / 1000;
  if (helicon !== undefined && startS >= helicon) return { percent: r.heliconThreshold, why: `the validation started at or after Helicon, ${isoSeconds(helicon)}` };
  return { percent: r.threshold, why: helicon === undefined ? 'rewardUptime.heliconTime is not set' : `the validation started before Helicon, ${isoSeconds(helicon)}` };
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0$/, '');
}
