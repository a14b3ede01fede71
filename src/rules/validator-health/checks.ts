import { avaxText, formatAvax, navax } from '../../base/amount.js';
import { formatDuration } from '../../base/duration.js';
import { isoSeconds } from '../format.js';
import type { Condition } from '../types.js';
import { benchedChains } from './read.js';
import type { Spec, State } from './schema.js';
import { levelsFor, tierOf as uptimeTier, type Tier } from './uptime.js';
import { versionTooOld } from '../semver.js';

type Draft = Omit<Condition, 'key' | 'subject' | 'labels'> & { labels?: Record<string, string> };

export const CHECKS = ['uptime', 'benched', 'reachability', 'version', 'delegation-capacity'] as const;

export function keyOf(node: string, check: (typeof CHECKS)[number]): string {
  return `${node}:${check}`;
}

/** What holds for one node now: a condition per check that is off. */
export function checks(node: string, st: State, before: State | undefined, nowS: number, s: Spec): Condition[] {
  const p = st.period;
  if (!p || p.status !== 'active') return [];
  const out: Condition[] = [];
  const base = { Node: node, Network: s.network, 'Validation ends': isoSeconds(p.endTimestamp), 'Staking tx': p.txHash };
  const condition = (check: (typeof CHECKS)[number], c: Draft): Condition => ({
    ...c,
    key: keyOf(node, check),
    subject: node,
    labels: { node, network: s.network, check, ...c.labels },
    details: { ...base, ...c.details },
  });

  const uptime = uptimeCondition(node, st, before, s);
  if (uptime) out.push(condition('uptime', uptime));

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

  const old = versionTooOld(node, st.version, s.minVersion);
  if (old) out.push(condition('version', old));

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

/** The uptime tier the conditions hold (kept in the state: the next poll's hysteresis starts from it). */
export function tierOf(conditions: readonly Condition[]): Tier | undefined {
  const tier = conditions.find((c) => c.labels['check'] === 'uptime')?.tier;
  return tier === 'warning' || tier === 'critical' ? tier : undefined;
}

/** Under the level of its tier, or not yet back above it + hysteresis (tiers: uptime.ts). */
function uptimeCondition(node: string, st: State, before: State | undefined, s: Spec): Draft | undefined {
  const p = st.period;
  if (!p || st.uptime === undefined) return undefined;
  const l = levelsFor(p.startTimestamp, s);
  if (!l) return undefined;
  const same = before?.period?.txHash === p.txHash;
  const was = same ? (before.uptimeTier ?? (before.uptimeFiring ? 'warning' : undefined)) : undefined;
  const tier = uptimeTier(st.uptime, was, l);
  if (!tier) return undefined;
  const level = tier === 'critical' ? l.critical : l.warning;
  const margin = st.uptime - l.reward.percent;
  const points = (n: number) => `${fmt(n)} point${n === 1 ? '' : 's'}`;
  const above = margin >= 0 ? `${points(margin)} above` : `${points(-margin)} UNDER`;
  const where = st.uptime < level ? `is under ${fmt(level)}%` : `is not back above ${fmt(level + l.hysteresis)}% yet`;
  const critical = l.raised ? `${fmt(l.critical)}% (the reward threshold; ${l.raised})` : `${fmt(l.critical)}%`;
  return {
    severity: tier,
    tier,
    summary: `${node} uptime ${fmt(st.uptime)}% ${where}: ${above} the ${l.reward.percent}% this validation needs for its reward`,
    resolvedSummary: `${node} uptime is back above ${fmt(l.warning + l.hysteresis)}%`,
    labels: { threshold: tier },
    details: {
      Uptime: `${fmt(st.uptime)}% (the service's own node's view; each validator votes on what it saw)`,
      'Reward threshold': `${l.reward.percent}% (${l.reward.why})`,
      Margin: `${margin >= 0 ? '+' : '−'}${fmt(Math.abs(margin))} points`,
      Levels: `warning under ${fmt(l.warning)}%, critical under ${critical}; each left only above it + ${fmt(l.hysteresis)} (hysteresis), resolved above ${fmt(l.warning + l.hysteresis)}%`,
    },
  };
}

export function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0$/, '');
}
