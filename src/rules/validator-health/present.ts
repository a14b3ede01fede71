import { roughSpan } from '../../base/duration.js';
import { avaxText, formatAvax } from '../../base/amount.js';
import type { Resolution } from '../types.js';
import { CHECKS, fmt, levelsText } from './checks.js';
import { CHAINS } from './read.js';
import { VIEW_TEXT, warnAt } from './budget.js';
import { VIEWS, type Spec, type State } from './schema.js';
import { levelsFor } from './uptime.js';
import { parseVersion, versionText } from '../semver.js';

// A check that stops holding while the node still validates: the resolution says the figure
// read now ("back at 92.1%"), never the one it fired with.

/** The present of `key` (`<node>:<check>`), from the node's state as this evaluation read it. */
export function presentOf(key: string, states: ReadonlyMap<string, State>, s: Spec): Resolution | undefined {
  const at = key.lastIndexOf(':');
  const node = key.slice(0, at);
  const check = key.slice(at + 1);
  const st = states.get(node);
  if (!st?.period || st.period.status !== 'active' || !isCheck(check)) return undefined;
  const base = { Node: node, Network: s.network };
  const read = PRESENT[check](node, st, s);
  return read && { summary: read.summary, details: { ...base, ...read.details } };
}

function isCheck(check: string): check is (typeof CHECKS)[number] {
  return (CHECKS as readonly string[]).includes(check);
}

type Present = (node: string, st: State, s: Spec) => { summary: string; details: Record<string, string> } | undefined;

const PRESENT: Record<(typeof CHECKS)[number], Present> = {
  uptime(node, st, s) {
    const j = st.judged;
    const l = j && levelsFor(j.start, s);
    // The view with the least budget: the one a new alert would go by.
    const views = VIEWS.flatMap((v) => (st.views?.[v] ? [{ view: v, ...st.views[v] }] : []));
    if (!j || !l || views.length === 0) return undefined;
    const worst = views.reduce((a, b) => (b.budget < a.budget ? b : a));
    const back = (l.warning > l.critical ? l.warning : l.critical) + l.hysteresis;
    const margin = worst.uptime - j.requirement;
    const seen = worst.view === 'service' ? '' : ` (${VIEW_TEXT[worst.view]})`;
    const where = worst.uptime >= back ? `is back at ${fmt(worst.uptime)}%${seen} (above ${fmt(back)}%)` : `is ${fmt(worst.uptime)}%${seen} now`;
    return {
      summary: `${node} uptime ${where}; it can be down ${roughSpan(worst.budget)} more and still be paid`,
      details: {
        Uptime: views.map((v) => `${fmt(v.uptime)}% (${VIEW_TEXT[v.view]})`).join('; '),
        'Downtime budget': views.map((v) => `${roughSpan(v.budget)} (${v.view})`).join('; '),
        'Reward threshold': `${j.requirement}% (${j.why})`,
        Margin: `${margin >= 0 ? '+' : '−'}${fmt(Math.abs(margin))} points`,
        Levels: levelsText(l, warnAt(s, j.end - j.start, j.requirement)),
      },
    };
  },
  benched(node, st) {
    if (st.benched === undefined) return undefined;
    const now = CHAINS.map((c) => `${c}-chain ${fmt(st.benched?.[c] ?? 0)}%`).join(', ');
    return { summary: `${node} is no longer benched (${now} of requests)`, details: { Benched: now } };
  },
  reachability(node, st, s) {
    if (st.reachability === undefined) return undefined;
    const level = s.reachability ? ` (at least ${fmt(s.reachability.below)}%)` : '';
    return { summary: `${node} is reachable again: ${fmt(st.reachability)}%${level}`, details: { Reachability: `${fmt(st.reachability)}%` } };
  },
  version(node, st, s) {
    const v = parseVersion(st.version);
    if (!v) return undefined;
    const minimum = parseVersion(s.minVersion);
    return {
      summary: `${node} runs AvalancheGo ${versionText(v)} now${minimum ? ` (${versionText(minimum)} or newer required)` : ''}`,
      details: { Version: st.version ?? versionText(v) },
    };
  },
  'delegation-capacity'(node, st, s) {
    if (st.capacity === undefined) return undefined;
    const minimum = s.minDelegationCapacity === undefined ? '' : ` (at least ${formatAvax(s.minDelegationCapacity)} AVAX)`;
    return { summary: `${node} can take ${avaxText(st.capacity)} more delegation again${minimum}`, details: { 'Delegation capacity': avaxText(st.capacity) } };
  },
};
