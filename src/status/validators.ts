import type { FiringAlert } from '../alerts/view.js';
import { navaxToAvax } from '../amount.js';
import type { LoadedRule } from '../config/load.js';
import type { FailureCounts } from '../engine/failing.js';
import { levelsFor } from '../rules/validator-health/uptime.js';
import type { Spec as HealthSpec } from '../rules/validator-health/schema.js';
import type { Spec as L1Spec } from '../rules/l1-validator-balance/schema.js';
import type { Sample } from '../store/history.js';
import type { GaugeSample } from '../types.js';

// The page's validator rows: merged from the rules' gauges, named and ordered by the
// inventory when there is one, each with a verdict and the figures its chart draws.

export interface InventoryEntry {
  nodeId: string;
  name: string;
  network: string;
  labels: Record<string, string>;
}

/** OK, N firing, blind (with why), or neither watched nor seen yet. */
export interface Verdict {
  firing: number;
  blind: string | undefined;
  watched: boolean;
}

export interface Chart {
  /** Oldest first; `at` in unix seconds. */
  points: Array<{ at: number; value: number }>;
  /** Lines drawn across the chart, each labelled. */
  thresholds: Array<{ label: string; value: number }>;
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
  rules: string[];
  verdict: Verdict;
  /** Uptime over the history window. */
  chart: Chart;
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
  history: ((series: string, entity: string, sinceMs: number) => Sample[]) | undefined;
  /** Unix ms: the chart's window starts here. */
  historySince: number;
}

/** The rules that name the node (a `nodeIds` list), whether or not they have state for it yet. */
function watching(rules: readonly LoadedRule[], nodeId: string): string[] {
  return rules.filter((r) => {
    const ids = (r.spec as { nodeIds?: unknown }).nodeIds;
    return Array.isArray(ids) && ids.includes(nodeId);
  }).map((r) => r.name);
}

/** Blind when a rule that watches it fails as a whole, or fails to look this entity up. */
function blindness(rules: readonly string[], entity: string, failures: FailureCounts): string | undefined {
  const failing = new Map(failures.failing(1).map((f) => [f.rule, f]));
  for (const rule of rules) {
    const run = failing.get(rule);
    if (run) return `rule ${rule} fails: ${run.error}`;
    const lookup = failures.entities(rule).find((e) => e.entity === entity);
    if (lookup) return `rule ${rule} cannot look it up: ${lookup.error}`;
  }
  return undefined;
}

export function validatorRows(i: ValidatorInputs): ValidatorRow[] {
  const rows = new Map<string, ValidatorRow>();
  const key = (network: string, nodeId: string) => `${network}\u0000${nodeId}`;
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
  for (const s of i.samples('avawatch_validator_version_info')) {
    const v = s.labels['version'];
    if (s.value === 1 && v !== undefined && v !== 'unknown') row(s).version ??= v;
  }
  for (const r of rows.values()) {
    r.rules = [...new Set([...r.rules, ...watching(i.rules, r.nodeId)])].sort();
    const firing = i.alerts.filter((a) => a.labels['validation_id'] === undefined && aboutNode(a, r.nodeId, r.network));
    r.verdict = { firing: firing.length, blind: blindness(r.rules, r.nodeId, i.failures), watched: r.rules.length > 0 };
    r.chart = { points: points(i, 'uptime_percent', r.nodeId), thresholds: uptimeThresholds(i.rules, r.rules, starts.get(r.nodeId)) };
  }
  const listed = [...rows.values()];
  if (i.inventory) return listed;
  // The validation that ends first on top.
  return listed.sort((a, b) => (a.end ?? Infinity) - (b.end ?? Infinity) || a.nodeId.localeCompare(b.nodeId));
}

function aboutNode(a: FiringAlert, nodeId: string, network: string): boolean {
  const l = a.labels;
  if (l['network'] !== undefined && network !== '' && l['network'] !== network) return false;
  return l['node'] === nodeId || l['node_id'] === nodeId || l['entity'] === nodeId || a.subject === nodeId;
}

function points(i: ValidatorInputs, series: string, entity: string): Chart['points'] {
  if (!i.history) return [];
  return i.history(series, entity, i.historySince).map((s) => ({ at: s.at / 1000, value: s.value }));
}

/** The reward threshold and the warning level of each validator-health rule that watches the node. */
function uptimeThresholds(rules: readonly LoadedRule[], names: readonly string[], startS: number | undefined): Chart['thresholds'] {
  const out = new Map<number, string>();
  for (const rule of rules) {
    if (rule.kind !== 'validator-health' || !names.includes(rule.name)) continue;
    const levels = levelsFor(startS ?? 0, rule.spec as HealthSpec);
    if (!levels) continue;
    if (!out.has(levels.warning)) out.set(levels.warning, `warning ${levels.warning}%`);
    out.set(levels.reward.percent, `reward ${levels.reward.percent}%`);
  }
  return [...out].map(([value, label]) => ({ value, label }));
}

/** One row per active L1 validation: balance and the runway at the fee it burns. */
export function l1ValidatorRows(i: ValidatorInputs): L1ValidatorRow[] {
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
  for (const r of rows.values()) {
    r.rules.sort();
    const firing = i.alerts.filter((a) => a.labels['validation_id'] === r.validationId);
    r.verdict = { firing: firing.length, blind: blindness(r.rules, r.validationId, i.failures), watched: true };
    r.chart = { points: points(i, 'l1_balance_avax', r.validationId), thresholds: balanceThresholds(i.rules, r.rules) };
  }
  return [...rows.values()].sort((a, b) => (a.runwaySeconds ?? Infinity) - (b.runwaySeconds ?? Infinity) || a.validationId.localeCompare(b.validationId));
}

function balanceThresholds(rules: readonly LoadedRule[], names: readonly string[]): Chart['thresholds'] {
  const out = new Map<number, string>();
  for (const rule of rules) {
    if (rule.kind !== 'l1-validator-balance' || !names.includes(rule.name)) continue;
    const min = (rule.spec as L1Spec).minBalance;
    if (min !== undefined) out.set(navaxToAvax(min), `minimum ${navaxToAvax(min)} AVAX`);
  }
  return [...out].map(([value, label]) => ({ value, label }));
}
