import { apiCall } from '../../api/catalog.js';
import { activeSetQuery, type ActiveSet } from '../../api/data/primary.js';
import type { Condition, Evaluation, GaugeSample, RuleKind } from '../types.js';
import { spec, state, type Quantiles, type Spec, type State, type Whole } from './schema.js';
import { distribution } from './stats.js';
import { baselineView } from './view.js';

// The network baseline: one sweep of the whole active primary validator set per poll, kept as
// its distribution (p10/p50/p90 of uptime, reachability and benched, versions, the stake
// share below each threshold). The incident layer reads it to tell "the network" from "me";
// a sweep that fails or comes back short is never a baseline (the last whole one is kept, stale).

/** Active validators each network is expected to have, for `check`'s price (a rule's `expectValidators` overrides). */
export const EXPECTED_VALIDATORS = { mainnet: 1_500, fuji: 300, testnet: 300 } as const;
/** The sweep's page size as `check` prices it (api.pageSize's default and the service's maximum). */
const PAGE = 100;

export interface Observation {
  /** When the sweep was read (unix ms, wall clock: a stamp). */
  at: number;
  set?: ActiveSet;
  /** Why the sweep failed: a failed sweep is a stale baseline, never an empty network. */
  error?: string;
}

const FIGURES = ['uptime', 'reachability', 'benched'] as const;

export const networkBaseline: RuleKind<Spec, Observation, State> = {
  kind: 'network-baseline',
  keyDetails: ['Validators', 'Why'],
  labelNames: ['network'],
  // `validators: all` fills no key: it picks the networks to sweep (those the operator validates on).
  selects: [],
  spec: spec as unknown as RuleKind<Spec, Observation, State>['spec'],
  state,
  gauges: [
    ...FIGURES.map((f) => ({
      name: `avawatch_network_validator_${f}_percent`,
      help: `The ${f === 'benched' ? 'worst benched-requests share (P, X, C)' : f} of the network's active validators at the last whole sweep, percent: p10, p50, p90 by count.`,
      labelNames: ['rule', 'network', 'percentile'],
    })),
    { name: 'avawatch_network_validators', help: 'Active validators of the network at the last whole sweep, by AvalancheGo version.', labelNames: ['rule', 'network', 'version'] },
    { name: 'avawatch_network_stake_below_percent', help: "Share of the network's stake (%) on validators below the rule's threshold of each figure, at the last whole sweep.", labelNames: ['rule', 'network', 'figure'] },
    { name: 'avawatch_network_baseline_complete', help: '1 when the last sweep read the whole active set, 0 when it failed or came back short (the baseline is stale).', labelNames: ['rule', 'network'] },
    { name: 'avawatch_network_baseline_age_seconds', help: 'Age of the last whole sweep, seconds.', labelNames: ['rule', 'network'] },
  ],

  async observe(s, { data, signal, now }) {
    try {
      return { at: now.getTime(), set: await data.primary.activeSet(s.network, { maxPages: s.maxPages }, signal) };
    } catch (err) {
      if (signal.aborted) throw err;
      return { at: now.getTime(), error: err instanceof Error ? err.message : String(err) };
    }
  },

  evaluate(previous, o, _now, s) {
    const before = previous.get(s.network);
    const next = sweep(before, o, s);
    const result: Evaluation<State> = { states: new Map([[s.network, next]]), alerts: [], conditions: [] };
    if (!next.complete) result.conditions!.push(stale(next, s));
    const w = next.whole;
    result.resolvedAs = () => ({ summary: `Network baseline of ${s.network} is whole again: ${(w?.count ?? 0).toLocaleString('en-US')} active validators`, details: { Validators: String(w?.count ?? 0) } });
    return result;
  },

  samples(s, states, now) {
    const st = states.get(s.network);
    if (!st) return [];
    const network = s.network;
    const out: GaugeSample[] = [{ metric: 'avawatch_network_baseline_complete', labels: { network }, value: st.complete ? 1 : 0 }];
    const w = st.whole;
    if (!w) return out;
    out.push({ metric: 'avawatch_network_baseline_age_seconds', labels: { network }, value: Math.max(0, Math.round((now.getTime() - w.at) / 1000)) });
    for (const f of FIGURES) {
      const q: Quantiles | undefined = w[f];
      if (q) for (const k of ['p10', 'p50', 'p90'] as const) out.push({ metric: `avawatch_network_validator_${f}_percent`, labels: { network, percentile: k }, value: q[k] });
      out.push({ metric: 'avawatch_network_stake_below_percent', labels: { network, figure: f }, value: w.below[f] });
    }
    for (const [version, n] of Object.entries(w.versions)) out.push({ metric: 'avawatch_network_validators', labels: { network, version }, value: n });
    return out;
  },

  baselines: (s, states) => [baselineView(s.network, states.get(s.network), undefined, Infinity)],

  describe: (s) => {
    const pages = Math.ceil(expected(s) / PAGE);
    const b = s.below;
    return `${s.network}, the whole active validator set (about ${expected(s).toLocaleString('en-US')}: ${pages} page(s), ${pages * 20} CU a sweep; at most ${s.maxPages} pages), below uptime ${b.uptime}% / reachability ${b.reachability}% / benched above ${b.benched}%`;
  },
  cost: (s) => {
    const path = `/v1/networks/${s.network}/validators`;
    const query = activeSetQuery();
    const pages = Math.ceil(expected(s) / PAGE);
    // Pages after the first have no knowable token: one synthetic call each, so each counts once.
    const calls = Array.from({ length: pages }, (_, k) => apiCall('GET', path, k === 0 ? query : { ...query, page: String(k + 1) }));
    return { calls, more: `priced for ${expected(s).toLocaleString('en-US')} active validators (\`expectValidators\`): one more page (20 CU) per further 100` };
  },
};

function expected(s: Spec): number {
  return s.expectValidators ?? EXPECTED_VALIDATORS[s.network];
}

/**
 * The state after one sweep. Whole only when it answered, listed someone, and listed at least
 * `minShareOfLast` % of the last whole sweep's count: a page the service dropped must not pass
 * for validators that left. Two sweeps in a row that agree on a smaller set make it the whole.
 */
export function sweep(before: State | undefined, o: Observation, s: Spec): State {
  const kept = before?.whole ? { whole: before.whole } : {};
  if (o.error !== undefined || !o.set) return { at: o.at, complete: false, count: 0, why: `the sweep failed: ${o.error ?? 'no answer'}`, ...kept };
  const count = o.set.validators.length;
  if (count === 0) return { at: o.at, complete: false, count, why: 'the service listed no active validator', ...kept };
  const last = before?.whole?.count;
  const floor = last === undefined ? 0 : Math.ceil((last * s.minShareOfLast) / 100);
  const again = before !== undefined && !before.complete && before.count > 0 && Math.abs(before.count - count) <= Math.max(1, before.count * 0.01);
  if (last !== undefined && count < floor && !again) {
    const broken = o.set.broken.length > 0 ? ` (${o.set.broken.length} item(s) unreadable)` : '';
    return { at: o.at, complete: false, count, why: `${count.toLocaleString('en-US')} validators listed${broken}, under ${s.minShareOfLast}% of the last whole sweep's ${last.toLocaleString('en-US')}`, ...kept };
  }
  return { at: o.at, complete: true, count, whole: distribution(o.set.validators, o.at, s.below) };
}

function stale(st: State, s: Spec): Condition {
  const w: Whole | undefined = st.whole;
  const since = w ? `; the last whole sweep is from ${new Date(w.at).toISOString()}` : '; no whole sweep yet';
  return {
    key: s.network,
    subject: s.network,
    summary: `Network baseline of ${s.network} is stale: ${st.why ?? 'the sweep was not whole'}${since}. Each validator is judged alone until a whole sweep`,
    labels: { network: s.network },
    details: { Network: s.network, Why: st.why ?? 'not whole', Validators: String(st.count), ...(w ? { 'Last whole sweep': new Date(w.at).toISOString() } : {}) },
  };
}
