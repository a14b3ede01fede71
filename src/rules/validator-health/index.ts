import { formatAvax, navax, navaxToAvax } from '../../base/amount.js';
import { formatDuration } from '../../base/duration.js';
import { record } from '../../base/record.js';
import { PRIMARY_NETWORK } from '../fields.js';
import { isoSeconds } from '../format.js';
import { isFailed, keepFailed } from '../lookup.js';
import type { AlertDraft, Evaluation, GaugeSample, RuleKind } from '../types.js';
import { byNodeIds } from '../spread.js';
import { currentPeriod, validatorLookups } from '../validators.js';
import { stakerNews } from '../pchain.js';
import { checks, fmt, judgeViews, tierOf as uptimeTierOf } from './checks.js';
import { judgedOf } from './budget.js';
import type { Validator } from '../../api/schemas.js';
import { endedTexts } from './ended.js';
import { observe, type Observation } from './observe.js';
import { presentOf } from './present.js';
import { CHAINS, read } from './read.js';
import { leftEvent, renewEvents, renewOf } from './renew.js';
import { spec, state, VIEWS, type Spec, type State } from './schema.js';
import { levelsFor } from './uptime.js';

export { rewardThreshold } from './uptime.js';

/** The failing entity of a P-Chain API that answered none of the nodes (one alert, not one a node). */
export const P_CHAIN_ENTITY = 'p-chain';

const labelsOf = (node: string, s: Spec) => ({ network: s.network, node_id: node });

/**
 * The health of each watched node's active validation, as the service's own node sees it:
 * uptime against the reward threshold, benched chains, reachability, AvalancheGo version and
 * delegation capacity. It reads the same bulk lists as validator-status and validation-end.
 */
export const validatorHealth: RuleKind<Spec, Observation, State> = {
  kind: 'validator-health',
  keyDetails: ['Uptime', 'Version', 'Reachability', 'Benched', 'Delegation capacity', 'Validation reward', 'Next period'],
  labelNames: ['node', 'network', 'check', 'chains', 'threshold', 'change'],
  spec,
  selects: ['nodeIds', 'nodeApis'],
  state,
  // `p-chain` (the rule's one P-Chain read failed) is rule-wide; `${node}:p-chain` is the node's.
  spread: { ...byNodeIds(['nodeApis']), failedOwner: (key) => (key === P_CHAIN_ENTITY ? undefined : key.split(':')[0]) },
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
    {
      name: 'avawatch_validator_downtime_budget_seconds',
      help: 'How much longer a watched node can be down and still be paid for the judged period (its validation, or an auto-renewed validator\'s cycle), per view of its uptime; negative: the reward cannot be reached any more.',
      labelNames: ['rule', 'network', 'node_id', 'view'],
    },
    { name: 'avawatch_validator_uptime_requirement_percent', help: 'The uptime the judged period needs for its reward (80, or 90 for one that starts at or after Helicon).', labelNames: ['rule', 'network', 'node_id'] },
    { name: 'avawatch_validator_cycle_end_timestamp_seconds', help: "End of an auto-renewed validator's current cycle (its boundary), from the P-Chain API.", labelNames: ['rule', 'network', 'node_id'] },
    { name: 'avawatch_validator_next_period_seconds', help: "Length of an auto-renewed validator's next cycle; 0: it exits at its boundary.", labelNames: ['rule', 'network', 'node_id'] },
  ],

  observe,

  evaluate(previous, observation, now, s) {
    const result: Evaluation<State> = { states: new Map(), alerts: [], conditions: [], failed: record() };
    const nowS = Math.floor(now.getTime() / 1000);
    const ended = new Map<string, string>();
    // An ended validation says so; a check that recovered says the figure read now.
    result.resolvedAs = (key) => {
      const why = ended.get(key);
      return why === undefined ? presentOf(key, result.states, s) : { summary: why };
    };
    const pchain = observation.pchain;
    // Said once for the rule (not once a node); a watched node that is down is node-health's to say.
    if (pchain && isFailed(pchain) && !pchain.nodesDown) result.failed = { ...result.failed, [P_CHAIN_ENTITY]: pchain.failed };
    // By index: the service's observation is in the order of nodeIds.
    for (let i = 0; i < s.nodeIds.length; i++) {
      const node = s.nodeIds[i] as string;
      const before = previous.get(node);
      const seen = observation.service[i];
      if (isFailed(seen)) {
        // Nothing known: what held holds (an alert neither resolves nor fires on a gap).
        keepFailed(result, node, before, seen.failed);
        // As of its last sample: time passing alone fires nothing.
        if (before) result.conditions?.push(...checks(node, before, before.at ?? nowS, s));
        continue;
      }
      let st: State;
      // A copy: `previous` is the engine's, never changed in place.
      if (seen === undefined || seen === 'unchanged') st = { ...(before ?? { period: null }) };
      else if (seen === 'not-found' || seen.length === 0) st = { period: before?.period ?? null, missing: true };
      else st = read(currentPeriod(seen), before, nowS, s);
      result.alerts.push(...pChainPart(node, st, before, Array.isArray(seen) ? seen : undefined, observation, nowS, s, result));
      ownPart(node, st, before, observation, nowS, s);
      figuresPart(st, before, nowS, s);
      const conditions = checks(node, st, nowS, s);
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
      for (const view of VIEWS) {
        const v = st.views?.[view];
        if (v !== undefined) out.push({ metric: 'avawatch_validator_downtime_budget_seconds', labels: { ...labels, view }, value: v.budget });
      }
      if (st.judged) out.push({ metric: 'avawatch_validator_uptime_requirement_percent', labels, value: st.judged.requirement });
      if (st.renew && st.renew.txId === st.period.txHash) {
        out.push({ metric: 'avawatch_validator_cycle_end_timestamp_seconds', labels, value: st.renew.end });
        out.push({ metric: 'avawatch_validator_next_period_seconds', labels, value: st.renew.nextPeriod });
      }
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

  // The uptime chart: the warning band when set, and the reward threshold (firm: it is what pays).
  chartLevels(s, metric, startS) {
    const levels = metric === 'avawatch_validator_uptime_percent' ? levelsFor(startS ?? 0, s) : undefined;
    if (!levels) return [];
    const band = levels.warning > levels.reward.percent ? [{ value: levels.warning, label: `warning ${levels.warning}%` }] : [];
    return [...band, { value: levels.reward.percent, label: `reward ${levels.reward.percent}%`, firm: true }];
  },

  describe(s) {
    const parts = [`${s.network}, ${s.nodeIds.length} node${s.nodeIds.length === 1 ? '' : 's'}`];
    if (s.uptime !== false) {
      const critical = s.uptime.critical === undefined ? 'the reward threshold (80%, 90% from Helicon)' : `${s.uptime.critical}% (the reward threshold at least)`;
      const band = s.uptime.warning === undefined ? '' : `, a warning under ${s.uptime.warning}%`;
      const budget = s.budget === false ? '' : `, a warning while it can be down less than ${formatDuration(s.budget.warnBelow)} (or ${s.budget.warnShare}% of its allowance) more and still be paid`;
      parts.push(`uptime critical under ${critical}${band}${budget}`);
    }
    const pchain = [s.pChainApi === undefined ? undefined : 'the P-Chain API', Object.keys(s.nodeApis ?? {}).length > 0 ? `${Object.keys(s.nodeApis ?? {}).length} node API(s)` : undefined].filter(Boolean);
    if (pchain.length > 0) parts.push(`auto-renewed validators read from ${pchain.join(' and ')}`);
    if (s.benched) parts.push(`benched above ${s.benched.above}% for ${formatDuration(s.benched.for)}`);
    if (s.reachability) parts.push(`reachability under ${s.reachability.below}% for ${formatDuration(s.reachability.for)}`);
    if (s.minVersion) parts.push(`AvalancheGo ≥ ${s.minVersion}`);
    if (s.minDelegationCapacity !== undefined) parts.push(`delegation capacity ≥ ${formatAvax(s.minDelegationCapacity)} AVAX`);
    return parts.join(', ');
  },

  cost: (s) => {
    const own = Object.keys(s.nodeApis ?? {}).length;
    const pchain = s.pChainApi !== undefined || own > 0 ? 1 + Math.ceil(s.nodeIds.length / 100) : 0;
    const lists = validatorLookups({ ...s, subnetId: PRIMARY_NETWORK });
    return own + pchain > 0 ? { ...lists, nodeCalls: own + pchain } : lists;
  },
};

/**
 * The P-Chain's word on the node (observe.ts): its auto-renew cycle, and what changed since the
 * last read. A read that failed, or one older than the last (a lagging backend), keeps what was
 * known. A validator the API lists no more after its boundary has left: said once the service
 * agrees (it lists that validation ended), with the outcome it gives (the reward, or none).
 */
function pChainPart(node: string, st: State, before: State | undefined, listed: readonly Validator[] | undefined, o: Observation, nowS: number, s: Spec, result: Evaluation<State>): AlertDraft[] {
  const read = o.pchain;
  const keep = (): void => {
    if (before?.renew) st.renew = before.renew;
    else delete st.renew;
    if (before?.pchainUptime !== undefined) {
      st.pchainUptime = before.pchainUptime;
      if (before.pchainAt !== undefined) st.pchainAt = before.pchainAt;
    } else {
      delete st.pchainUptime;
      delete st.pchainAt;
    }
  };
  const failing = (why: string): void => {
    result.failed = { ...result.failed, [`${node}:p-chain`]: why };
  };
  if (read === undefined) {
    delete st.renew;
    delete st.pchainUptime;
    delete st.pchainAt;
    return [];
  }
  const was = before?.renew;
  const news = stakerNews(read, node, was, nowS);
  if (news.kind === 'unread' || news.kind === 'stale' || news.kind === 'gone-early') {
    keep();
    if (news.kind === 'unread' && news.why !== undefined) failing(news.why);
    // Listed no more before its boundary: not how a validator leaves. Said (as failing), never a removal.
    if (news.kind === 'gone-early' && was) failing(`the P-Chain API ${news.source} no longer lists it, before its cycle ends at ${isoSeconds(was.end)}`);
    return [];
  }
  if (news.kind === 'absent') {
    delete st.renew;
    delete st.pchainUptime;
    delete st.pchainAt;
    return [];
  }
  if (news.kind === 'listed') {
    const item = news.staker;
    if (!news.byItself && item.uptime !== undefined) {
      st.pchainUptime = item.uptime;
      st.pchainAt = nowS;
    } else {
      delete st.pchainUptime;
      delete st.pchainAt;
    }
    const now = renewOf(item);
    if (!now) {
      delete st.renew;
      return [];
    }
    st.renew = now;
    return was && was.txId === now.txId ? renewEvents(node, was, now, s) : [];
  }
  keep();
  if (!was) return [];
  // Past its boundary: it left, once the service says that validation ended too (a P-Chain API
  // that lists nothing, or one re-syncing, is not enough).
  const ended = listed?.find((v) => v.txHash === was.txId && v.validationStatus !== 'active');
  if (!ended) {
    failing(`the P-Chain API ${news.source} no longer lists it after its boundary (${isoSeconds(was.end)}), while the service does not list that validation ended yet`);
    return [];
  }
  delete st.renew;
  delete st.pchainUptime;
  delete st.pchainAt;
  const last = before?.views === undefined ? undefined : VIEWS.flatMap((v) => (before.views?.[v] ? [`${fmt(before.views[v].uptime)}% (${v})`] : [])).join(', ');
  return [leftEvent(node, was, { status: ended.validationStatus, reward: ended.rewards?.validationRewardAmount }, last, s)];
}

/** The node's own view of its uptime (its peers'): what failed to read keeps its last value for the same judged period. */
function ownPart(node: string, st: State, before: State | undefined, o: Observation, nowS: number, s: Spec): void {
  const read = o.own?.[node];
  if (typeof read === 'number') {
    st.own = { uptime: read, at: nowS };
    return;
  }
  const samePeriod = before?.period?.txHash === st.period?.txHash && before?.renew?.start === st.renew?.start;
  if (s.nodeApis?.[node] !== undefined && before?.own && samePeriod) st.own = before.own;
  else delete st.own;
}

/** What the uptime verdict judges (the period, each view's budget and what counts of it), kept with the state: the page, once --json and the gauges read it. */
function figuresPart(st: State, before: State | undefined, nowS: number, s: Spec): void {
  const j = judgedOf(st, s);
  const views = judgeViews(st, before, nowS, s);
  if (!j || !views) {
    delete st.judged;
    delete st.views;
    return;
  }
  st.judged = { start: j.start, end: j.end, requirement: j.requirement.percent, why: j.requirement.why, ...(j.cycle ? { cycle: true } : {}) };
  st.views = views;
}
