import type { FiringAlert } from '../alerts/view.js';
import type { Limiter } from '../api/limiter.js';
import { estimateBudget } from '../commands/estimate.js';
import { formatDuration } from '../config/duration.js';
import type { LoadedRule } from '../config/load.js';
import type { FailureCounts } from '../engine/failing.js';
import type { Metrics } from '../metrics/registry.js';
import { ruleKind } from '../rules/registry.js';
import type { GaugeSample } from '../types.js';

/** Everything the status page shows, read at one moment from the state /metrics and the API read. */
export interface StatusSnapshot {
  now: Date;
  version: string;
  ready: { ready: boolean; problems: string[] };
  /** Newest first. */
  alerts: FiringAlert[];
  rules: RuleStatus[];
  validators: ValidatorRow[];
  l1Validators: L1ValidatorRow[];
  outbox: { pending: number; dead: number };
  budgets: BudgetRow[];
}

export interface RuleStatus {
  name: string;
  kind: string;
  /** `every 5m` or `schedule 0 6 * * *`. */
  when: string;
  severity: string;
  /** Unix seconds of the last committed evaluation since the daemon started. */
  lastSuccess: number | undefined;
  failuresInARow: number;
  lastError: string | undefined;
  /**
   * Compute units by the kind's cost(): avawatch counts spending per API, not per rule, so
   * these are estimates (first pages only; `more` says what may add to them).
   */
  cuPerEvaluation: number;
  cuPerDay: number;
  cuMore: string | undefined;
}

export interface ValidatorRow {
  network: string;
  nodeId: string;
  /** The current period's status; `not listed` when the service has no period for it. */
  status: string | undefined;
  /** Unix seconds. */
  end: number | undefined;
  uptimePercent: number | undefined;
  rules: string[];
}

export interface L1ValidatorRow {
  network: string;
  subnetId: string;
  validationId: string;
  nodeId: string;
  balanceAvax: number;
  runwaySeconds: number | undefined;
  rules: string[];
}

export interface BudgetRow {
  api: string;
  perMinute: number;
  remainingMinute: number;
  perDay: number;
  remainingDay: number;
  /** Counted by avawatch_api_compute_units_total since the daemon started. */
  spentSinceStart: number;
}

export interface StatusSources {
  version: string;
  now: () => Date;
  rules: readonly LoadedRule[];
  firing: () => FiringAlert[];
  /** One rule gauge's samples, labelled with the rule (the engine's, as /metrics writes them). */
  samples: (metric: string) => Iterable<GaugeSample>;
  failures: FailureCounts;
  metrics: Pick<Metrics, 'ruleLastSuccess' | 'computeUnits'>;
  outbox: () => { pending: number; dead: number };
  limiters: Record<'data' | 'metrics', Limiter>;
  ready: () => { ready: boolean; problems: string[] };
}

export async function statusSnapshot(s: StatusSources): Promise<StatusSnapshot> {
  const now = s.now();
  const alerts = s.firing().sort((a, b) => b.startsAt.localeCompare(a.startsAt) || a.rule.localeCompare(b.rule) || a.subject.localeCompare(b.subject));
  const lastSuccess = new Map((await s.metrics.ruleLastSuccess.get()).values.map((v) => [String(v.labels.rule), v.value]));
  const spent = new Map((await s.metrics.computeUnits.get()).values.map((v) => [String(v.labels.api), v.value]));
  const failing = new Map(s.failures.failing(1).map((f) => [f.rule, f]));
  const perDay = dailyEstimates(s.rules, s.limiters, now);
  const rules = s.rules.map((rule): RuleStatus => {
    const cost = ruleKind(rule.kind).cost(rule.spec as never);
    return {
      name: rule.name,
      kind: rule.kind,
      when: rule.every !== undefined ? `every ${formatDuration(rule.every)}` : `schedule ${rule.schedule ?? ''}`,
      severity: rule.severity,
      lastSuccess: lastSuccess.get(rule.name),
      failuresInARow: failing.get(rule.name)?.count ?? 0,
      lastError: failing.get(rule.name)?.error,
      cuPerEvaluation: cost.calls.reduce((sum, c) => sum + c.cu, 0),
      cuPerDay: Math.round(perDay.get(rule.name) ?? 0),
      cuMore: cost.more,
    };
  });
  const budgets = Object.entries(s.limiters).map(([api, limiter]) => ({
    api,
    perMinute: limiter.perMinute,
    remainingMinute: limiter.remainingMinute(),
    perDay: limiter.limits.perDay,
    remainingDay: limiter.remainingDay(),
    spentSinceStart: spent.get(api) ?? 0,
  }));
  return {
    now,
    version: s.version,
    ready: s.ready(),
    alerts,
    rules,
    validators: validators(s.samples),
    l1Validators: l1Validators(s.samples),
    outbox: s.outbox(),
    budgets,
  };
}

// The rules change only with a reload (a new array): a cron rule's runs in a day are counted once, not at every refresh.
const estimates = new WeakMap<readonly LoadedRule[], Map<string, number>>();

function dailyEstimates(rules: readonly LoadedRule[], limiters: StatusSources['limiters'], now: Date): Map<string, number> {
  let perDay = estimates.get(rules);
  if (!perDay) {
    const estimate = estimateBudget(rules, { data: limiters.data.limits, metrics: limiters.metrics.limits }, now);
    perDay = new Map(estimate.rules.map((r) => [r.rule, r.perDay]));
    estimates.set(rules, perDay);
  }
  return perDay;
}

/**
 * One row per watched node, merged from the rules that watch it: validator-status gives the
 * status and end, validation-end the end, validator-health the uptime.
 */
function validators(samples: StatusSources['samples']): ValidatorRow[] {
  const rows = new Map<string, ValidatorRow>();
  const row = (s: GaugeSample): ValidatorRow => {
    const network = s.labels['network'] ?? '';
    const nodeId = s.labels['node_id'] ?? '';
    const key = `${network}\u0000${nodeId}`;
    const found = rows.get(key) ?? { network, nodeId, status: undefined, end: undefined, uptimePercent: undefined, rules: [] };
    rows.set(key, found);
    const rule = s.labels['rule'];
    if (rule !== undefined && !found.rules.includes(rule)) found.rules.push(rule);
    return found;
  };
  for (const s of samples('avawatch_validator_listed')) {
    const r = row(s);
    if (s.value === 0) r.status = 'not listed';
  }
  for (const s of samples('avawatch_validator_status')) {
    const r = row(s);
    if (s.value === 1) r.status ??= s.labels['status'];
  }
  for (const metric of ['avawatch_validator_end_timestamp_seconds', 'avawatch_validation_end_timestamp_seconds']) {
    for (const s of samples(metric)) {
      const r = row(s);
      r.end ??= s.value;
    }
  }
  for (const s of samples('avawatch_validator_uptime_percent')) {
    const r = row(s);
    r.uptimePercent ??= s.value;
  }
  for (const r of rows.values()) r.rules.sort();
  // The validation that ends first on top.
  return [...rows.values()].sort((a, b) => (a.end ?? Infinity) - (b.end ?? Infinity) || a.nodeId.localeCompare(b.nodeId));
}

/** One row per active L1 validation: balance and the runway at the fee it burns. */
function l1Validators(samples: StatusSources['samples']): L1ValidatorRow[] {
  const rows = new Map<string, L1ValidatorRow>();
  const key = (s: GaugeSample) => `${s.labels['network']}\u0000${s.labels['validation_id']}`;
  for (const s of samples('avawatch_l1_validator_balance_avax')) {
    const found = rows.get(key(s));
    const rule = s.labels['rule'] ?? '';
    if (found) {
      if (!found.rules.includes(rule)) found.rules.push(rule);
      continue;
    }
    const l = s.labels;
    rows.set(key(s), { network: l['network'] ?? '', subnetId: l['subnet_id'] ?? '', validationId: l['validation_id'] ?? '', nodeId: l['node_id'] ?? '', balanceAvax: s.value, runwaySeconds: undefined, rules: [rule] });
  }
  for (const r of rows.values()) r.rules.sort();
  for (const s of samples('avawatch_l1_validator_runway_seconds')) {
    const found = rows.get(key(s));
    if (found) found.runwaySeconds ??= s.value;
  }
  return [...rows.values()].sort((a, b) => (a.runwaySeconds ?? Infinity) - (b.runwaySeconds ?? Infinity) || a.validationId.localeCompare(b.validationId));
}
