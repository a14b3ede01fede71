import type { FiringAlert } from '../alerts/view.js';
import type { Limiter } from '../api/limiter.js';
import { estimateBudget } from '../engine/estimate.js';
import type { LoadedRule } from '../config/load.js';
import type { FailureCounts } from '../engine/failing.js';
import type { Metrics } from '../metrics/registry.js';
import { ruleKind } from '../rules/registry.js';
import type { HistoryEntry, ReceiverStats, Sample, Silence, TimelineQuery } from '../store/index.js';
import type { GaugeSample } from '../base/types.js';
import { dataSourceRows, receiverRows, type DataSourceRow, type ReceiverConfig, type ReceiverRow } from './health.js';
import { DEFAULT_EXPLORERS, type Explorers } from './links.js';
import { l1ValidatorRows, validatorRows, type InventoryEntry, type L1ValidatorRow, type ValidatorRow } from './validators.js';
import { describeSchedule } from '../base/schedule.js';
import type { NetworkBaseline } from '../engine/incidents.js';
import { networkRows, withBands, type NetworkRow } from './network.js';

export type { Band, Chart, InventoryEntry, L1ValidatorRow, LastEvent, NodeView, ValidatorRow, Verdict } from './validators.js';
export type { DataSourceRow, ReceiverRow } from './health.js';
export type { IncidentRow, NetworkRow } from './network.js';

/** A firing alert as the page lists it: `held` says why its notifications are held back (an incident). */
export type PageAlert = FiringAlert & { held?: string | undefined };

/** The timeline covers this long, newest first, at most TIMELINE_MAX entries. */
export const TIMELINE_MS = 24 * 3_600_000;
export const TIMELINE_MAX = 50;
/** The charts' window when the history's is not given (history.keep's default). */
const HISTORY_WINDOW_MS = 30 * 86_400_000;

/** Everything the status page shows, read at one moment from the state /metrics and the API read. */
export interface StatusSnapshot {
  now: Date;
  version: string;
  ready: { ready: boolean; problems: string[] };
  /** Newest first. */
  alerts: PageAlert[];
  /** Each network's baseline and open incidents (issue 40). */
  networks?: NetworkRow[];
  rules: RuleStatus[];
  validators: ValidatorRow[];
  l1Validators: L1ValidatorRow[];
  outbox: { pending: number; dead: number };
  budgets: BudgetRow[];
  /** Events and resolutions of the last TIMELINE_MS, newest first. */
  timeline: TimelineRow[];
  silences: Silence[];
  receivers: ReceiverRow[];
  dataSources: DataSourceRow[];
  explorers: Explorers;
  /** No inventory validator and no rule naming a NodeID: the page shows how to add one. */
  noValidators?: boolean;
}

export interface TimelineRow {
  /** Unix seconds. */
  at: number;
  status: HistoryEntry['status'];
  severity: HistoryEntry['severity'];
  rule: string;
  summary: string;
  /** The inventory name, else the NodeID or subject. */
  validator: string | undefined;
  network: string | undefined;
  node: string | undefined;
  /** P-chain transactions its labels and details name. */
  txs: string[];
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
  // What the store answers may come as a Promise (store/types.ts).
  firing: () => FiringAlert[] | Promise<FiringAlert[]>;
  /** One rule gauge's samples, labelled with the rule (the engine's, as /metrics writes them). */
  samples: (metric: string) => Iterable<GaugeSample>;
  failures: FailureCounts;
  metrics: Pick<Metrics, 'ruleLastSuccess' | 'computeUnits'>;
  outbox: () => Awaitable<{ pending: number; dead: number }>;
  limiters: Record<'data' | 'metrics', Limiter>;
  ready: () => { ready: boolean; problems: string[] };
  /** When given, every inventory validator has a row, named, in this order. */
  inventory?: readonly InventoryEntry[];
  timeline?: (q: TimelineQuery) => Awaitable<HistoryEntry[]>;
  /** A series' samples of one entity since a moment (unix ms), oldest first. */
  history?: (series: string, entity: string, since: number) => Awaitable<Sample[]>;
  /** How far back the charts go (history.keep), and how long a validator's last event stays on its tile. */
  historyWindowMs?: number;
  /** A rule's committed states: the node's own view is made from them. */
  ruleStates?: (rule: string) => ReadonlyMap<string, unknown> | undefined;
  /** The newest event about each node since a moment (unix ms), newest first. */
  lastEvents?: (since: number) => Awaitable<HistoryEntry[]>;
  silences?: () => Awaitable<Silence[]>;
  receivers?: () => ReceiverConfig[];
  receiverStats?: () => Awaitable<ReceiverStats[]>;
  /** Scrubs secrets from error text. */
  redact?: (text: string) => string;
  /** Explorer base URL per network (status.explorerUrl). */
  explorers?: Explorers;
  /** The network baselines with their age (engine.baselines()): the Network block and the charts' band. */
  baselines?: () => NetworkBaseline[];
  /** Why a firing alert's notifications are held back now (by an incident), if they are. */
  heldFor?: (rule: string, key: string) => string | undefined;
}

type Awaitable<T> = T | Promise<T>;

export async function statusSnapshot(s: StatusSources): Promise<StatusSnapshot> {
  const now = s.now();
  const alerts: PageAlert[] = (await s.firing()).sort((a, b) => b.startsAt.localeCompare(a.startsAt) || a.rule.localeCompare(b.rule) || a.subject.localeCompare(b.subject));
  if (s.heldFor) for (const a of alerts) a.held = s.heldFor(a.rule, a.key);
  const lastSuccess = new Map((await s.metrics.ruleLastSuccess.get()).values.map((v) => [String(v.labels.rule), v.value]));
  const spent = new Map((await s.metrics.computeUnits.get()).values.map((v) => [String(v.labels.api), v.value]));
  const failing = new Map(s.failures.failing(1).map((f) => [f.rule, f]));
  const perDay = dailyEstimates(s.rules, s.limiters, now);
  const rules = s.rules.map((rule): RuleStatus => {
    const cost = ruleKind(rule.kind).cost(rule.spec as never);
    return {
      name: rule.name,
      kind: rule.kind,
      when: describeSchedule(rule.schedule),
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
  const inputs = {
    samples: s.samples,
    rules: s.rules,
    failures: s.failures,
    alerts,
    inventory: s.inventory,
    history: s.history,
    historySince: now.getTime() - (s.historyWindowMs ?? HISTORY_WINDOW_MS),
    ruleStates: s.ruleStates,
    lastEvents: await s.lastEvents?.(now.getTime() - (s.historyWindowMs ?? HISTORY_WINDOW_MS)),
  };
  const validators = await validatorRows(inputs);
  const baselines = s.baselines?.() ?? [];
  if (s.baselines) await withBands(validators, baselines, s.history, inputs.historySince);
  return {
    now,
    version: s.version,
    ready: s.ready(),
    alerts,
    networks: networkRows(baselines, alerts),
    rules,
    validators,
    l1Validators: await l1ValidatorRows(inputs),
    outbox: await s.outbox(),
    budgets,
    timeline: await timeline(s, now.getTime()),
    silences: (await s.silences?.()) ?? [],
    receivers: receiverRows(s.receivers?.() ?? [], (await s.receiverStats?.()) ?? [], s.redact ?? ((t) => t)),
    dataSources: dataSourceRows(s.rules, s.limiters, s.failures, now.getTime()),
    explorers: s.explorers ?? DEFAULT_EXPLORERS,
    noValidators: validators.length === 0 && (s.inventory ?? []).length === 0 && !namesNodes(s.rules),
  };
}

/** A rule watches a NodeID of its own (nodeIds, urls, nodeApis), not from the inventory. */
function namesNodes(rules: readonly LoadedRule[]): boolean {
  return rules.some((r) => {
    const { nodeIds, urls } = r.spec as { nodeIds?: unknown; urls?: unknown };
    return (Array.isArray(nodeIds) && nodeIds.length > 0) || (typeof urls === 'object' && urls !== null && Object.keys(urls).length > 0);
  });
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

/** The last day's happenings, each with the validator it is about and the transactions it names. */
async function timeline(s: StatusSources, nowMs: number): Promise<TimelineRow[]> {
  if (!s.timeline) return [];
  const names = new Map((s.inventory ?? []).map((v) => [v.nodeId, v.name]));
  return (await s.timeline({ since: nowMs - TIMELINE_MS, limit: TIMELINE_MAX })).map((e) => {
    const node = e.labels['node'] ?? e.labels['node_id'];
    const txs = [e.labels['tx_hash'], ...Object.entries(e.details).filter(([k]) => /\btx$/i.test(k)).map(([, v]) => v)];
    return {
      at: e.at / 1000,
      status: e.status,
      severity: e.severity,
      rule: e.rule,
      summary: e.summary,
      validator: e.labels['validator'] ?? (node === undefined ? undefined : names.get(node) ?? node),
      network: e.labels['network'],
      node,
      txs: [...new Set(txs.filter((t): t is string => t !== undefined && t !== ''))],
    };
  });
}
