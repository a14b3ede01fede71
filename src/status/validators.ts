import type { FiringAlert } from '../alerts/view.js';
import type { LoadedRule } from '../config/load.js';
import type { FailureCounts } from '../engine/failing.js';
import { ruleKind } from '../rules/registry.js';
import type { NodeView } from '../rules/types.js';
import type { HistoryEntry, Sample } from '../store/index.js';
import type { GaugeSample } from '../base/types.js';
import { roughSpan } from '../base/duration.js';
import { minDelegationS } from '../rules/network.js';
import { MAX_ROWS } from './format.js';
import { watchedSpec } from '../rules/watched.js';

// The page's validator rows: merged from the rules' gauges, named and ordered by the
// inventory when there is one, each with a verdict and the figures its chart draws.

export interface InventoryEntry {
  nodeId: string;
  name: string;
  network: string;
  labels: Record<string, string>;
}

/** OK, N firing (the worst's severity colours it), blind (with why), not listed, or neither watched nor seen yet. */
export interface Verdict {
  firing: number;
  /** The most severe of the firing alerts' severities. */
  worst?: string | undefined;
  blind: string | undefined;
  watched: boolean;
  /** The service lists no validation of it (an unknown NodeID): never "OK". */
  unlisted?: boolean;
  /** Its current period is completed or removed: never "OK". */
  ended?: boolean;
}

/** The newest one-shot event about a validator in the history window (a validation that ended, its reward). */
export interface LastEvent {
  /** Unix seconds. */
  at: number;
  severity: string;
  rule: string;
  summary: string;
}

export type { NodeView } from '../rules/types.js';

/** The network's uptime over the history window: p10–p90 shaded, the median dashed (status/network.ts). */
export interface Band {
  /** Oldest first; `at` in unix seconds. */
  points: Array<{ at: number; p10: number; p50: number; p90: number }>;
}

export interface Chart {
  /** Oldest first; `at` in unix seconds. */
  points: Array<{ at: number; value: number }>;
  /** Lines drawn across the chart, each labelled. */
  thresholds: Array<{ label: string; value: number }>;
  /** The network's p10–p90 and median behind the line (status/network.ts). */
  band?: Band | undefined;
  /** Why no band is drawn, in words ("baseline stale: …"). */
  baseline?: string | undefined;
}

export interface ValidatorRow {
  network: string;
  nodeId: string;
  /** From the inventory. */
  name?: string;
  labels?: Record<string, string>;
  /** The current period's status; `not listed` when the service has no period for it. */
  status: string | undefined;
  /** Unix seconds. */
  end: number | undefined;
  uptimePercent: number | undefined;
  /** AvalancheGo version as validator-health read it. */
  version: string | undefined;
  /** The least downtime budget over the views of its uptime (seconds; negative: it cannot be paid), and that view. */
  budget?: { seconds: number; view: string } | undefined;
  /** The uptime the judged period needs, percent. */
  requirement?: number | undefined;
  /** An auto-renewed validator's cycle end (unix s) and next cycle's length (s; 0: it exits then). */
  cycleEnd?: number | undefined;
  nextPeriod?: number | undefined;
  rules: string[];
  verdict: Verdict;
  /** Uptime over the history window. */
  chart: Chart;
  /** What the node's own API says, when a rule reads it (`api:`). */
  node?: NodeView | undefined;
  lastEvent?: LastEvent | undefined;
}

export interface L1ValidatorRow {
  network: string;
  subnetId: string;
  validationId: string;
  nodeId: string;
  balanceAvax: number;
  runwaySeconds: number | undefined;
  rules: string[];
  verdict: Verdict;
  /** Balance (AVAX) over the history window. */
  chart: Chart;
}

export interface ValidatorInputs {
  samples: (metric: string) => Iterable<GaugeSample>;
  rules: readonly LoadedRule[];
  failures: FailureCounts;
  alerts: readonly FiringAlert[];
  inventory: readonly InventoryEntry[] | undefined;
  history: ((series: string, entity: string, sinceMs: number) => Sample[] | Promise<Sample[]>) | undefined;
  /** Unix ms: the chart's window starts here. */
  historySince: number;
  /** A rule's committed states (the node's own view is made from them). */
  ruleStates?: ((rule: string) => ReadonlyMap<string, unknown> | undefined) | undefined;
  /** The newest event about each node in the history window (store.lastEvents). */
  lastEvents?: readonly HistoryEntry[] | undefined;
}

const RANK: Record<string, number> = { info: 1, warning: 2, critical: 3 };

/** The more severe of two severities (an unknown one ranks lowest). */
export function worse(a: string | undefined, b: string): string {
  return a !== undefined && (RANK[a] ?? 0) >= (RANK[b] ?? 0) ? a : b;
}

/**
 * Per NodeID, the rules that name it, whether or not they have state for it yet: in a `nodeIds`
 * list, or as a key of `urls` (the node rules, node-health and node-metrics, that read its own API).
 */
function watchers(rules: readonly LoadedRule[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of rules) {
    const { nodeIds, urls } = watchedSpec(r.spec) as { nodeIds?: unknown; urls?: unknown };
    const ids = [...(Array.isArray(nodeIds) ? nodeIds : []), ...(typeof urls === 'object' && urls !== null ? Object.keys(urls) : [])];
    for (const id of new Set(ids)) if (typeof id === 'string') out.set(id, [...(out.get(id) ?? []), r.name]);
  }
  return out;
}

/** Blind when a rule that watches it fails as a whole, or fails to look this entity up. */
function blindness(failures: FailureCounts): (rules: readonly string[], entity: string) => string | undefined {
  const failing = new Map(failures.failing(1).map((f) => [f.rule, f]));
  const lookups = new Map<string, Map<string, string>>();
  const lookupsOf = (rule: string) => {
    let m = lookups.get(rule);
    if (!m) lookups.set(rule, (m = new Map(failures.entities(rule).map((e) => [e.entity, e.error]))));
    return m;
  };
  return (rules, entity) => {
    for (const rule of rules) {
      const run = failing.get(rule);
      if (run) return `rule ${rule} fails: ${run.error}`;
      const lookup = lookupsOf(rule).get(entity);
      if (lookup !== undefined) return `rule ${rule} cannot look it up: ${lookup}`;
    }
    return undefined;
  };
}

/** Firing alerts per key they name (`keyOf` gives an alert's keys), and the worst severity among them. */
function countBy(alerts: readonly FiringAlert[], keysOf: (a: FiringAlert) => Array<string | undefined>): Map<string, { count: number; worst: string }> {
  const out = new Map<string, { count: number; worst: string }>();
  for (const a of alerts) {
    for (const k of new Set(keysOf(a))) {
      if (k === undefined) continue;
      const found = out.get(k);
      out.set(k, { count: (found?.count ?? 0) + 1, worst: worse(found?.worst, a.severity) });
    }
  }
  return out;
}

/** Per network and NodeID, what the node says of itself: from the rules whose kind reads it (the first such rule wins). */
function nodeViews(i: ValidatorInputs, key: (network: string, nodeId: string) => string): Map<string, NodeView> {
  const out = new Map<string, NodeView>();
  if (!i.ruleStates) return out;
  for (const rule of i.rules) {
    const view = ruleKind(rule.kind).nodeView;
    const states = view && i.ruleStates(rule.name);
    if (!view || !states) continue;
    for (const [node, v] of view(rule.spec as never, states as never)) if (!out.has(key(v.network, node))) out.set(key(v.network, node), v);
  }
  return out;
}

/** Per network and NodeID, the newest event about it (an event's network may be absent: then any network's). */
function lastEventOf(events: readonly HistoryEntry[], network: string, nodeId: string): LastEvent | undefined {
  const fuji = (n: string | undefined) => (n === 'testnet' ? 'fuji' : n);
  const e = events.find((e) => (e.labels['node'] ?? e.labels['node_id'] ?? e.subject) === nodeId && (e.labels['network'] === undefined || fuji(e.labels['network']) === fuji(network)));
  return e && { at: e.at / 1000, severity: e.severity, rule: e.rule, summary: e.summary };
}

export async function validatorRows(i: ValidatorInputs): Promise<ValidatorRow[]> {
  const rows = new Map<string, ValidatorRow>();
  // testnet is fuji: the inventory may say either, a rule the other.
  const key = (network: string, nodeId: string) => `${network === 'testnet' ? 'fuji' : network}\u0000${nodeId}`;
  const starts = new Map<string, number>();
  const blank = (network: string, nodeId: string): ValidatorRow => ({
    network, nodeId, status: undefined, end: undefined, uptimePercent: undefined, version: undefined, rules: [],
    verdict: { firing: 0, blind: undefined, watched: false }, chart: { points: [], thresholds: [] },
  });
  for (const v of i.inventory ?? []) rows.set(key(v.network, v.nodeId), { ...blank(v.network, v.nodeId), name: v.name, labels: v.labels });
  const row = (s: GaugeSample): ValidatorRow => {
    const network = s.labels['network'] ?? '';
    const nodeId = s.labels['node_id'] ?? '';
    const found = rows.get(key(network, nodeId)) ?? blank(network, nodeId);
    rows.set(key(network, nodeId), found);
    const rule = s.labels['rule'];
    if (rule !== undefined && !found.rules.includes(rule)) found.rules.push(rule);
    return found;
  };
  for (const s of i.samples('avawatch_validator_listed')) {
    const r = row(s);
    if (s.value === 0) r.status = 'not listed';
  }
  for (const s of i.samples('avawatch_validator_status')) {
    const r = row(s);
    if (s.value === 1) r.status ??= s.labels['status'];
  }
  for (const metric of ['avawatch_validator_end_timestamp_seconds', 'avawatch_validation_end_timestamp_seconds']) {
    for (const s of i.samples(metric)) row(s).end ??= s.value;
  }
  for (const s of i.samples('avawatch_validator_start_timestamp_seconds')) starts.set(row(s).nodeId, s.value);
  for (const s of i.samples('avawatch_validator_uptime_percent')) row(s).uptimePercent ??= s.value;
  for (const s of i.samples('avawatch_validator_downtime_budget_seconds')) {
    const r = row(s);
    if (r.budget === undefined || s.value < r.budget.seconds) r.budget = { seconds: s.value, view: s.labels['view'] ?? '' };
  }
  for (const s of i.samples('avawatch_validator_uptime_requirement_percent')) row(s).requirement ??= s.value;
  for (const s of i.samples('avawatch_validator_cycle_end_timestamp_seconds')) row(s).cycleEnd ??= s.value;
  for (const s of i.samples('avawatch_validator_next_period_seconds')) row(s).nextPeriod ??= s.value;
  for (const s of i.samples('avawatch_validator_version_info')) {
    const v = s.labels['version'];
    if (s.value === 1 && v !== undefined && v !== 'unknown') row(s).version ??= v;
  }
  // The node's own answer, where a rule reads it: its version comes before the service's (which may have none).
  for (const [k, view] of nodeViews(i, key)) {
    // A node read only by its own API (urls, no inventory) has a tile too.
    const r = rows.get(k) ?? blank(view.network, k.slice(k.indexOf('\u0000') + 1));
    rows.set(k, r);
    r.node = view;
    if (view.version !== undefined) r.version = view.version;
  }
  const watching = watchers(i.rules);
  const blind = blindness(i.failures);
  // An L1 validation's alerts count on its own tile; an alert of another network on none of this one.
  const firing = countBy(
    i.alerts.filter((a) => a.labels['validation_id'] === undefined),
    (a) => [a.labels['node'], a.labels['node_id'], a.labels['entity'], a.subject].map((n) => (n === undefined ? undefined : `${a.labels['network'] ?? '*'}\u0000${n}`)),
  );
  for (const r of rows.values()) {
    r.rules = [...new Set([...r.rules, ...(watching.get(r.nodeId) ?? [])])].sort();
    const here = firing.get(`${r.network}\u0000${r.nodeId}`);
    const anywhere = firing.get(`*\u0000${r.nodeId}`);
    const worst = here === undefined ? anywhere?.worst : anywhere === undefined ? here.worst : worse(here.worst, anywhere.worst);
    r.verdict = { firing: (here?.count ?? 0) + (anywhere?.count ?? 0), worst, blind: blind(r.rules, r.nodeId), watched: r.rules.length > 0, ...(r.status === 'not listed' ? { unlisted: true } : {}), ...(r.status === 'completed' || r.status === 'removed' ? { ended: true } : {}) };
    r.lastEvent = lastEventOf(i.lastEvents ?? [], r.network, r.nodeId);
  }
  const listed = [...rows.values()];
  // The validation that ends first on top, unless the inventory gives the order.
  if (!i.inventory) listed.sort((a, b) => (a.end ?? Infinity) - (b.end ?? Infinity) || a.nodeId.localeCompare(b.nodeId));
  // Charts only for the rows the page shows: one history read each.
  for (const r of listed.slice(0, MAX_ROWS)) {
    r.chart = { points: await points(i, 'uptime_percent', r.nodeId), thresholds: levels(i.rules, r.rules, 'avawatch_validator_uptime_percent', starts.get(r.nodeId)) };
  }
  return listed;
}

async function points(i: ValidatorInputs, series: string, entity: string): Promise<Chart['points']> {
  if (!i.history) return [];
  return (await i.history(series, entity, i.historySince)).map((s) => ({ at: s.at / 1000, value: s.value }));
}

/** What the rules watching the row mark on its chart of this gauge (each kind says: chartLevels). */
function levels(rules: readonly LoadedRule[], names: readonly string[], metric: string, startS?: number): Chart['thresholds'] {
  const out = new Map<number, string>();
  for (const rule of rules) {
    if (!names.includes(rule.name)) continue;
    for (const l of ruleKind(rule.kind).chartLevels?.(rule.spec, metric, startS) ?? []) if (l.firm || !out.has(l.value)) out.set(l.value, l.label);
  }
  return [...out].map(([value, label]) => ({ value, label }));
}

/** One row per active L1 validation: balance and the runway at the fee it burns. */
export async function l1ValidatorRows(i: ValidatorInputs): Promise<L1ValidatorRow[]> {
  const rows = new Map<string, L1ValidatorRow>();
  const key = (s: GaugeSample) => `${s.labels['network']}\u0000${s.labels['validation_id']}`;
  for (const s of i.samples('avawatch_l1_validator_balance_avax')) {
    const found = rows.get(key(s));
    const rule = s.labels['rule'] ?? '';
    if (found) {
      if (!found.rules.includes(rule)) found.rules.push(rule);
      continue;
    }
    const l = s.labels;
    rows.set(key(s), {
      network: l['network'] ?? '', subnetId: l['subnet_id'] ?? '', validationId: l['validation_id'] ?? '', nodeId: l['node_id'] ?? '',
      balanceAvax: s.value, runwaySeconds: undefined, rules: [rule], verdict: { firing: 0, blind: undefined, watched: true }, chart: { points: [], thresholds: [] },
    });
  }
  for (const s of i.samples('avawatch_l1_validator_runway_seconds')) {
    const found = rows.get(key(s));
    if (found) found.runwaySeconds ??= s.value;
  }
  const blind = blindness(i.failures);
  const firing = countBy(i.alerts, (a) => [a.labels['validation_id']]);
  for (const r of rows.values()) {
    r.rules.sort();
    const f = firing.get(r.validationId);
    r.verdict = { firing: f?.count ?? 0, worst: f?.worst, blind: blind(r.rules, r.validationId), watched: true };
  }
  const listed = [...rows.values()].sort((a, b) => (a.runwaySeconds ?? Infinity) - (b.runwaySeconds ?? Infinity) || a.validationId.localeCompare(b.validationId));
  for (const r of listed.slice(0, MAX_ROWS)) r.chart = { points: await points(i, 'l1_balance_avax', r.validationId), thresholds: levels(i.rules, r.rules, 'avawatch_l1_validator_balance_avax') };
  return listed;
}

/** A validator's standing in words, for the page's tile and `avawatch validators`. */
export interface Standing {
  /** "can be down 31d 4h more and still be paid" or "cannot be paid any more". */
  budget?: { text: string; lost: boolean; needed: string };
  /** An auto-renewed validator's cycle end (unix s), and what happens then (": renews for 14d", ": it exits then"). */
  cycle?: { end: number; then: string };
  /** Why a new delegation cannot be accepted, when it cannot. */
  closed?: string;
}

export function standingOf(v: ValidatorRow, nowS: number): Standing {
  if (v.status !== 'active') return {};
  const out: Standing = {};
  if (v.budget !== undefined) {
    const needed = `${v.requirement === undefined ? '' : `${v.requirement}% needed${v.cycleEnd === undefined ? '' : ' this cycle'}`}${v.budget.view === 'service' || v.budget.view === '' ? '' : `${v.requirement === undefined ? '' : ', '}${v.budget.view} view`}`;
    out.budget = v.budget.seconds < 0 ? { text: 'cannot be paid any more', lost: true, needed } : { text: roughSpan(v.budget.seconds), lost: false, needed };
  }
  if (v.cycleEnd !== undefined) {
    out.cycle = { end: v.cycleEnd, then: v.nextPeriod === undefined ? '' : v.nextPeriod === 0 ? ': it exits then' : `: renews for ${roughSpan(v.nextPeriod)}` };
  }
  const end = v.cycleEnd ?? v.end;
  const minimum = minDelegationS(v.network === 'mainnet' ? 'mainnet' : 'fuji');
  if (end !== undefined && end - nowS < minimum) out.closed = `${v.cycleEnd === undefined ? 'its validation' : 'its cycle'} ends before the ${roughSpan(minimum)} a delegation must last`;
  return out;
}
