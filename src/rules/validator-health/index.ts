import { formatAvax, navax, navaxToAvax } from '../../base/amount.js';
import { formatDuration } from '../../base/duration.js';
import { record } from '../../base/record.js';
import { PRIMARY_NETWORK } from '../fields.js';
import { isFailed, keepFailed } from '../lookup.js';
import type { Evaluation, GaugeSample, RuleKind } from '../types.js';
import { currentPeriod, observeValidators, validatorLookups, type Observation } from '../validators.js';
import { checks, tierOf as uptimeTierOf } from './checks.js';
import { endedTexts } from './ended.js';
import { presentOf } from './present.js';
import { CHAINS, read } from './read.js';
import { spec, state, type Spec, type State } from './schema.js';
import { levelsFor, WARNING_MARGIN } from './uptime.js';

export { rewardThreshold } from './uptime.js';

const labelsOf = (node: string, s: Spec) => ({ network: s.network, node_id: node });

/**
 * The health of each watched node's active validation, as the service's own node sees it:
 * uptime against the reward threshold, benched chains, reachability, AvalancheGo version and
 * delegation capacity. It reads the same bulk lists as validator-status and validation-end.
 */
export const validatorHealth: RuleKind<Spec, Observation, State> = {
  kind: 'validator-health',
  labelNames: ['node', 'network', 'check', 'chains', 'threshold'],
  spec,
  selects: ['nodeIds'],
  state,
  entityOrder: (s) => s.nodeIds,
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
    const result: Evaluation<State> = { states: new Map(), alerts: [], conditions: [], failed: record() };
    const nowS = Math.floor(now.getTime() / 1000);
    const ended = new Map<string, string>();
    // An ended validation says so; a check that recovered says the figure read now.
    result.resolvedAs = (key) => {
      const why = ended.get(key);
      return why === undefined ? presentOf(key, result.states, s) : { summary: why };
    };
    // By index: the observation is in the order of nodeIds.
    for (let i = 0; i < s.nodeIds.length; i++) {
      const node = s.nodeIds[i] as string;
      const before = previous.get(node);
      const seen = observation[i];
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
      st.uptimeTier = uptimeTierOf(conditions);
      delete st.uptimeFiring;
      result.states.set(node, st);
      result.conditions?.push(...conditions);
      for (const [key, why] of Object.entries(endedTexts(node, before, st, s) ?? {})) ended.set(key, why);
    }
    return result;
  },

  samples(s, states) {
    const out: GaugeSample[] = [];
    for (const [node, st] of states) {
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

  // The uptime chart: the warning level, and the reward threshold (firm: it is what pays).
  chartLevels(s, metric, startS) {
    const levels = metric === 'avawatch_validator_uptime_percent' ? levelsFor(startS ?? 0, s) : undefined;
    if (!levels) return [];
    return [
      { value: levels.warning, label: `warning ${levels.warning}%` },
      { value: levels.reward.percent, label: `reward ${levels.reward.percent}%`, firm: true },
    ];
  },

  describe(s) {
    const parts = [`${s.network}, ${s.nodeIds.length} node${s.nodeIds.length === 1 ? '' : 's'}`];
    if (s.uptime !== false) {
      const warning = s.uptime.warning === undefined ? `the reward threshold + ${WARNING_MARGIN}` : `${s.uptime.warning}%`;
      const critical = s.uptime.critical === undefined ? 'the reward threshold' : `${s.uptime.critical}% (the reward threshold at least)`;
      parts.push(`uptime warning under ${warning}, critical under ${critical}`);
    }
    if (s.benched) parts.push(`benched above ${s.benched.above}% for ${formatDuration(s.benched.for)}`);
    if (s.reachability) parts.push(`reachability under ${s.reachability.below}% for ${formatDuration(s.reachability.for)}`);
    if (s.minVersion) parts.push(`AvalancheGo ≥ ${s.minVersion}`);
    if (s.minDelegationCapacity !== undefined) parts.push(`delegation capacity ≥ ${formatAvax(s.minDelegationCapacity)} AVAX`);
    return parts.join(', ');
  },

  cost: (s) => validatorLookups({ ...s, subnetId: PRIMARY_NETWORK }),
};
