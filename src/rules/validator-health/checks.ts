import { avaxText, formatAvax, navax } from '../../base/amount.js';
import { downtimeBudget, judgedOf, viewsOf, VIEW_TEXT, warnAt, WARN_HYSTERESIS, type Figures, type Judged } from './budget.js';
import { formatDuration, humanDuration, roughSpan } from '../../base/duration.js';
import { isoSeconds } from '../format.js';
import type { Condition } from '../types.js';
import { benchedChains } from './read.js';
import type { Kind, Spec, State, View } from './schema.js';
import { levelsFor, tierOf as uptimeTier, type Levels, type Tier } from './uptime.js';
import { versionTooOld } from '../semver.js';

type Draft = Omit<Condition, 'key' | 'subject' | 'labels'> & { labels?: Record<string, string> };

export const CHECKS = ['uptime', 'benched', 'reachability', 'version', 'delegation-capacity'] as const;

export function keyOf(node: string, check: (typeof CHECKS)[number]): string {
  return `${node}:${check}`;
}

/** What holds for one node now: a condition per check that is off. */
export function checks(node: string, st: State, nowS: number, s: Spec): Condition[] {
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

  const uptime = uptimeCondition(node, st, nowS, s);
  if (uptime) out.push(condition('uptime', uptime));

  if (s.benched && st.benchedSince !== undefined && nowS - st.benchedSince >= s.benched.for / 1000) {
    const chains = benchedChains(st, s.benched.above);
    if (chains.length > 0) {
      const what = chains.map((c) => `${c}-chain ${fmt(st.benched?.[c] ?? 0)}%`).join(', ');
      out.push(
        condition('benched', {
          summary: `${node} is benched on the ${chains.join('/')}-chain (${what} of requests) for ${humanDuration((nowS - st.benchedSince) * 1000)}`,
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
        summary: `${node} is reachable ${fmt(st.reachability)}% of the time, under ${fmt(s.reachability.below)}%, for ${humanDuration((nowS - st.unreachableSince) * 1000)}`,
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
  if (tier === 'lost') return 'critical';
  return tier === 'warning' || tier === 'critical' ? tier : undefined;
}

const RANK: Record<Kind, number> = { ok: 0, band: 1, short: 2, under: 3, lost: 4 };
/** Polls in a row a view other than the service's must say worse before it counts: a node just restarted reads its peers' uptime low for a minute or two. */
export const CONFIRM_POLLS = 3;

/** Each view's uptime and budget over the judged period, each as of when it was read. */
export interface Reading {
  judged: Judged;
  views: Array<{ view: View; uptime: number; figures: Figures }>;
}

export function readingOf(st: State, nowS: number, s: Spec): Reading | undefined {
  const judged = judgedOf(st, s);
  if (!judged) return undefined;
  // A figure kept from an earlier read is judged as of then: time passing alone moves nothing.
  const at: Record<View, number> = { service: st.at ?? nowS, node: st.own?.at ?? nowS, 'p-chain': st.pchainAt ?? st.at ?? nowS };
  const views: Reading['views'] = [];
  for (const [view, uptime] of Object.entries(viewsOf(st, judged)) as Array<[View, number]>) {
    const figures = downtimeBudget(uptime, judged.start, judged.end, at[view], judged.requirement.percent);
    if (figures) views.push({ view, uptime, figures });
  }
  return { judged, views };
}

/**
 * What each view says now, and what of it counts (kept in the state's `views`). The service's
 * view counts at once; another one (the node's peers', the P-Chain API's node's) only once it
 * has said as much for CONFIRM_POLLS polls in a row, so a dip of one minute pages nobody.
 */
export function judgeViews(st: State, before: State | undefined, nowS: number, s: Spec): State['views'] | undefined {
  const reading = readingOf(st, nowS, s);
  if (!reading) return undefined;
  const j = reading.judged;
  const l = levelsFor(j.start, s);
  const same = before?.period?.txHash === st.period?.txHash && before?.judged?.start === j.start;
  const was = same ? (before?.uptimeTier ?? (before?.uptimeFiring ? 'warning' : undefined)) : undefined;
  const out: NonNullable<State['views']> = {};
  for (const v of reading.views) {
    const prev = same ? before?.views?.[v.view] : undefined;
    const kind = l ? kindOf(v.uptime, v.figures, was, prev?.holds === 'lost', l, s) : 'ok';
    const streak = prev?.kind !== undefined && RANK[prev.kind] >= RANK[kind] ? (prev.streak ?? 1) + 1 : 1;
    const counted = prev?.holds ?? 'ok';
    const holds = v.view === 'service' || RANK[kind] <= RANK[counted] || streak >= CONFIRM_POLLS ? kind : counted;
    out[v.view] = { uptime: v.uptime, budget: Math.round(v.figures.budget), kind, streak, holds };
  }
  return out;
}

/**
 * The worst view that counts decides: past saving (budget negative), under the requirement
 * (critical, with hysteresis), a budget short of `budget.warnBelow`/`warnShare` (a warning), or
 * the optional warning band. Each alert says which view it used and what the others read.
 */
function uptimeCondition(node: string, st: State, nowS: number, s: Spec): Draft | undefined {
  const reading = readingOf(st, nowS, s);
  if (!reading || reading.views.length === 0) return undefined;
  const { judged: j } = reading;
  const l = levelsFor(j.start, s);
  if (!l) return undefined;
  let worst: { kind: Exclude<Kind, 'ok'>; view: Reading['views'][number] } | undefined;
  for (const v of reading.views) {
    const kind = st.views?.[v.view]?.holds ?? 'ok';
    if (kind === 'ok') continue;
    if (!worst || RANK[kind] > RANK[worst.kind] || (RANK[kind] === RANK[worst.kind] && v.figures.budget < worst.view.figures.budget)) worst = { kind, view: v };
  }
  if (!worst) return undefined;
  const { kind, view: v } = worst;
  const tier: Tier = kind === 'lost' || kind === 'under' ? 'critical' : 'warning';
  const r = j.requirement.percent;
  const u = v.uptime;
  const end = isoSeconds(j.end);
  const what = j.cycle ? 'this cycle' : 'this validation';
  const seen = v.view === 'service' ? '' : ` (${VIEW_TEXT[v.view]})`;
  const budget = roughSpan(v.figures.budget);
  let summary: string;
  if (kind === 'lost') {
    const most = `${fmt(Math.floor(v.figures.reachable * 100) / 100)}%`;
    const reward = st.renew?.reward ? ` (${avaxText(st.renew.reward)})` : '';
    const fate = st.renew?.nextPeriod === 0 ? `will exit at its cycle boundary, ${end}, without this cycle's reward${reward}` : `will be removed at its cycle boundary, ${end}, and forfeit this cycle's reward${reward}`;
    summary = j.cycle
      ? `${node} ${fate}: uptime ${fmt(u)}% since the cycle started${seen} leaves at most ${most} by then, under the ${r}% a cycle needs`
      : `${node} can no longer be paid for this validation: uptime ${fmt(u)}% so far${seen} leaves at most ${most} by its end, ${end}, under the ${r}% it needs`;
  } else if (kind === 'under') {
    const margin = u - r;
    const where = u < l.critical ? `is under ${fmt(l.critical)}%` : `is not back above ${fmt(l.critical + l.hysteresis)}% yet`;
    summary = `${node} uptime ${fmt(u)}%${seen} ${where}: ${points(margin)} the ${r}% ${what} needs for its reward; it can be down ${budget} more and still be paid`;
  } else if (kind === 'short') {
    summary = `${node} can be down only ${budget} more and still be paid for ${what}: uptime ${fmt(u)}%${seen}, ${r}% needed by ${end}`;
  } else {
    const where = u < l.warning ? `is under ${fmt(l.warning)}%` : `is not back above ${fmt(l.warning + l.hysteresis)}% yet`;
    summary = `${node} uptime ${fmt(u)}%${seen} ${where}: ${points(u - r)} the ${r}% ${what} needs for its reward`;
  }
  const warn = warnAt(s, v.figures.length, r);
  const back = l.warning > l.critical ? l.warning + l.hysteresis : l.critical + l.hysteresis;
  return {
    severity: tier,
    tier: kind === 'lost' ? 'lost' : tier,
    summary,
    resolvedSummary: `${node} uptime is back above ${fmt(back)}%${warn === undefined ? '' : ` and it can be down ${roughSpan(warn)} or more`}`,
    labels: { threshold: tier },
    details: {
      Uptime: reading.views.map((x) => `${fmt(x.uptime)}% (${VIEW_TEXT[x.view]}${x.view === 'service' ? '; each validator votes on what it saw' : ''})`).join('; '),
      'Downtime budget': reading.views.map((x) => `${x.figures.budget < 0 ? `none (${roughSpan(-x.figures.budget)} over)` : roughSpan(x.figures.budget)} (${x.view})`).join('; '),
      'Reward threshold': `${r}% (${j.requirement.why})`,
      Margin: `${u - r >= 0 ? '+' : '−'}${fmt(Math.abs(u - r))} points`,
      [j.cycle ? 'Cycle' : 'Judged period']: `${isoSeconds(j.start)} to ${end} (${roughSpan(v.figures.elapsed)} elapsed, ${roughSpan(v.figures.remaining)} left)`,
      Levels: levelsText(l, warn),
    },
  };
}

/** The uptime levels a firing and its resolution both state (the same text, so a resolved notice says it once). */
export function levelsText(l: Levels, warn: number | undefined): string {
  const critical = l.raised ? `${fmt(l.critical)}% (the reward threshold; ${l.raised})` : `${fmt(l.critical)}%`;
  return `${l.warning > l.critical ? `warning under ${fmt(l.warning)}%, ` : ''}critical under ${critical}; each left only above it + ${fmt(l.hysteresis)} (hysteresis)${warn === undefined ? '' : `; a warning while it can be down less than ${roughSpan(warn)}`}`;
}

/**
 * What one view says. Past saving is left only once the budget is back above a margin (15
 * minutes, or 1% of the allowance): near 0 the service's rounding of uptime moves it either way.
 */
function kindOf(u: number, f: Figures, was: Tier | undefined, wasLost: boolean, l: Levels, s: Spec): Kind {
  const margin = Math.max(900, ((100 - l.reward.percent) / 100) * f.length * 0.01);
  if (f.budget < 0 || (wasLost && f.budget < margin)) return 'lost';
  const t = uptimeTier(u, was, l);
  if (t === 'critical') return 'under';
  const w = warnAt(s, f.length, l.reward.percent);
  if (w !== undefined && (f.budget < w || (was !== undefined && f.budget < w * WARN_HYSTERESIS))) return 'short';
  return t === 'warning' ? 'band' : 'ok';
}

function points(margin: number): string {
  const n = Math.abs(margin);
  return `${fmt(n)} point${n === 1 ? '' : 's'} ${margin >= 0 ? 'above' : 'UNDER'}`;
}

export function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0$/, '');
}
