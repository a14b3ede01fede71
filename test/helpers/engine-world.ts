import type { DataApi } from '../../src/api/data/index.js';
import type { MetricsApi } from '../../src/api/metrics-api.js';
import type { Validator } from '../../src/api/schemas.js';
import { clockOf, type Clock } from '../../src/base/clock.js';
import type { LoadedRule } from '../../src/config/load.js';
import { Engine, type EngineDeps } from '../../src/engine/engine.js';
import { Pipeline, type PipelineDeps } from '../../src/alerts/pipeline/index.js';
import { FailureCounts } from '../../src/engine/failing.js';
import { createMetrics, type Metrics } from '../../src/metrics/registry.js';
import { PRIMARY_NETWORK } from '../../src/rules/fields.js';
import { SqliteStore, type StateStore } from '../../src/store/index.js';
import type { Target } from '../../src/alerts/route.js';

// An engine over an in-memory store and a fake Data API, for the engine's specs: each node
// answers as `world` says; the steady clock and the wall are set apart by `wallAhead`.

export const NODE_A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
export const NODE_B = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
export const NODE_C = 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu';

/** A node's answer: its period's status (ended at 2 s past the epoch), a period of its own, or the lookup's error. */
export type Answer = string | Error | { status: string; tx: string; end: number; start?: number; uptime?: number };

export const START = Date.UTC(2026, 10, 26, 12);

export function target(receiver: string, over: Partial<Target> = {}): Target {
  return { receiver, groupKey: 'g', groupWaitMs: 0, groupIntervalMs: 0, repeatMs: 0, muteTimeIntervals: [], ...over };
}

export function validatorRule(over: Record<string, unknown> = {}, nodeIds = [NODE_A, NODE_B]): LoadedRule {
  return {
    name: 'r',
    kind: 'validator-status',
    severity: 'critical',
    schedule: { everyMs: 60_000 },
    spec: { network: 'mainnet', nodeIds, subnetId: PRIMARY_NETWORK },
    file: 'rules.yaml',
    line: 1,
    col: 1,
    ...over,
  } as unknown as LoadedRule;
}

export interface EngineWorld {
  store: StateStore;
  engine: Engine;
  metrics: Metrics;
  world: Record<string, Answer | undefined>;
  logs: string[];
  /** Each log line with its level and fields, as the JSON log has them. */
  logged: Array<{ level: string; msg: string; fields: unknown }>;
  failures: FailureCounts;
  /** The steady clock's reading; the wall is `wallAhead` later. */
  at: { ms: number };
  run(rule: LoadedRule): Promise<Awaited<ReturnType<Engine['evaluate']>>>;
  /** Evaluates and swallows the failure (a rule that fails on purpose). */
  tryRun(rule: LoadedRule): Promise<void>;
  /** A metric's value for these labels, as /metrics would show it; undefined when it has none. */
  value(name: keyof Metrics, labels: Record<string, string>): Promise<number | undefined>;
  /** Outbox rows, oldest first: `receiver: summary`, and why a muted one is (`[muted: …]`). */
  rows(state?: 'pending' | 'muted'): Promise<string[]>;
}

/** The pipeline's parts a test may set: where alerts go (`targetsFor`, default one Slack receiver), digests, mute windows, the redaction. */
export interface PipelineOptions {
  targetsFor?: (rule: LoadedRule, labels: Record<string, string>) => readonly Target[];
  digestAt?: PipelineDeps['digestAt'];
  timeIntervals?: PipelineDeps['timeIntervals'];
  repeatIntervalMs?: number;
  redact?: (text: string) => string;
  onQueued?: () => void;
}

export function engineWorld(
  o: Partial<EngineDeps> & PipelineOptions & { world?: Record<string, Answer | undefined>; unlisted?: Answer; wallAhead?: number; store?: StateStore; failingAfter?: number } = {},
): EngineWorld {
  const world = o.world ?? { [NODE_A]: 'active', [NODE_B]: 'active' };
  // A node `world` does not name: unknown to the service, unless `unlisted` says how it answers.
  const answer = (node: string): Answer | undefined => world[node] ?? o.unlisted;
  const period = (nodeId: string, a: Exclude<Answer, Error>): Validator =>
    typeof a === 'string'
      ? { txHash: `tx-${nodeId}`, nodeId, subnetId: PRIMARY_NETWORK, validationStatus: a, startTimestamp: 1, endTimestamp: 2 }
      : { txHash: a.tx, nodeId, subnetId: PRIMARY_NETWORK, validationStatus: a.status, startTimestamp: a.start ?? 1, endTimestamp: a.end, ...(a.uptime === undefined ? {} : { uptimePerformance: a.uptime }) };
  const statusOf = (a: Answer | undefined) => (a === undefined || a instanceof Error ? undefined : typeof a === 'string' ? a : a.status);
  const data = {
    primary: {
      validatorList: async (_net: string, q: { nodeIds: string[]; validationStatus: string }) => {
        const failing = q.nodeIds.map(answer).filter((w) => w instanceof Error);
        if (failing.length === q.nodeIds.length) throw failing[0];
        return { periods: q.nodeIds.filter((n) => statusOf(answer(n)) === q.validationStatus).map((n) => period(n, answer(n) as Exclude<Answer, Error>)), broken: [] };
      },
      validatorPeriods: async (_net: string, node: string) => {
        const a = answer(node);
        if (a instanceof Error) throw a;
        return a === undefined ? 'not-found' : [period(node, a)];
      },
    },
  } as unknown as DataApi;
  const store = o.store ?? SqliteStore.open(':memory:');
  const metrics = createMetrics({ version: '0', outboxPending: () => 0, firing: () => [], ruleSamples: () => [], ruleGauges: [] });
  const logs: string[] = [];
  const logged: EngineWorld['logged'] = [];
  const at_ = (level: string) => (fields: unknown, msg: string) => {
    logs.push(msg);
    logged.push({ level, msg, fields });
  };
  const log = { warn: at_('warn'), info: at_('info'), error: at_('error'), debug: at_('debug') };
  const at = { ms: START };
  const wallAhead = o.wallAhead ?? 0;
  const clock: Clock = clockOf({ now: () => at.ms + wallAhead, mono: () => at.ms });
  const failures = o.failures ?? new FailureCounts();
  const { world: _w, unlisted: _u, wallAhead: _a, store: _s, targetsFor, digestAt, timeIntervals, repeatIntervalMs, redact, onQueued, ...deps } = o;
  const pipeline = new Pipeline({
    store,
    clock: deps.clock ?? clock,
    route: (rule, labels) => [...(targetsFor ?? (() => [target('slack')]))(rule as LoadedRule, labels)],
    digestAt: digestAt ?? (() => undefined),
    timeIntervals: timeIntervals ?? [],
    repeatIntervalMs: repeatIntervalMs ?? 0,
    redact: redact ?? ((t) => t.replaceAll('gk-secret-key', '[REDACTED]')),
    onQueued,
  });
  const engine = new Engine({
    store,
    data,
    metricsApi: {} as MetricsApi,
    metrics,
    log: log as never,
    pipeline,
    failingAfter: 2,
    failingSeverity: 'warning',
    clock,
    ...deps,
    failures,
  });
  return {
    store,
    engine,
    metrics,
    world,
    logs,
    logged,
    failures,
    at,
    run: (rule) => engine.evaluate(rule, new AbortController().signal),
    tryRun: async (rule) => {
      await engine.evaluate(rule, new AbortController().signal).catch(() => undefined);
    },
    value: async (name, labels) => {
      const m = metrics[name] as { get(): Promise<{ values: Array<{ value: number; labels: Record<string, unknown> }> }> };
      const { values } = await m.get();
      return values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value;
    },
    rows: async (state = 'pending') =>
      (await store.outbox(state))
        .sort((x, y) => x.id - y.id)
        .map((r) => `${r.receiver}: ${r.summary}${r.state === 'muted' ? ` [muted: ${r.lastError ?? ''}]` : ''}`),
  };
}
