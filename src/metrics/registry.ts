import { systemClock } from '../base/clock.js';
import { within } from '../base/timers.js';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { Limiter } from '../api/limiter.js';
import type { GaugeDef, GaugeSample } from '../base/types.js';

export interface Metrics {
  registry: Registry;
  /** The exposition in chunks: prom-client's metrics, then the rule gauges. */
  chunks(): AsyncGenerator<string>;
  /** The whole exposition at once (tests, benchmarks). */
  render(): Promise<string>;
  ruleEvaluations: Counter<'rule'>;
  ruleFailures: Counter<'rule'>;
  ruleEntityFailures: Counter<'rule'>;
  ruleFailingEntities: Gauge<'rule'>;
  ruleLastSuccess: Gauge<'rule'>;
  apiRequests: Counter<'api' | 'endpoint' | 'code'>;
  notifications: Counter<'receiver'>;
  notificationsFailed: Counter<'receiver' | 'reason'>;
  ruleConsecutiveFailures: Gauge<'rule'>;
  apiUp: Gauge<'api'>;
  configReloadSuccessful: Gauge;
  shardsHeld: Gauge;
  sharedStateSteppedDown: Gauge;
  configReloadSuccessTime: Gauge;
  computeUnits: Counter<'api'>;
  apiDeduplicated: Counter<'api'>;
  apiInvalidItems: Counter<'api' | 'endpoint'>;
  heartbeats: Counter<'outcome'>;
  heartbeatLastSuccess: Gauge;
  clockSteps: Counter<'direction'>;
}

export interface MetricsSources {
  version: string;
  /** Read from the store when /metrics is scraped (prom-client awaits an async collect). */
  outboxPending: () => number | Promise<number>;
  /** Firing state alerts by rule and severity. */
  firing: () => Iterable<{ rule: string; severity: string }> | Promise<Iterable<{ rule: string; severity: string }>>;
  /** One gauge's samples over every rule, derived from committed state. */
  ruleSamples: (metric: string) => Iterable<GaugeSample>;
  ruleGauges: readonly GaugeDef[];
  /** Each API's compute-unit limiter (read at scrape time). */
  budgets?: () => Iterable<{ api: string; limiter: Limiter }>;
  /** What /readyz says: 1 ready, 0 not. */
  ready?: () => boolean | Promise<boolean>;
}

/** How long a scrape waits for a figure read from the store. */
const STORE_READ_CAP_MS = 1_000;

/**
 * A figure read from the store at scrape time, or undefined when the store does not answer
 * within the cap (the gauge keeps its last value): a store that is down or cut off must not
 * take /metrics down with it, or hold the scrape, while avawatch's own gauges say so.
 */
async function fromStore<T>(read: () => T | Promise<T>): Promise<T | undefined> {
  try {
    return await within(systemClock, STORE_READ_CAP_MS, Promise.resolve().then(read), () => undefined);
  } catch {
    return undefined;
  }
}

/** One registry per app (never the global one), so tests can build many apps in a process. */
export function createMetrics(sources: MetricsSources): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // prom-client's gauges named like counters (promtool: "non-counter metrics should not have
  // _total"); their per-type siblings nodejs_active_{handles,requests,resources} stay: sum() them.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name);
  const registers = [registry];

  new Gauge({
    name: 'avawatch_build_info',
    help: 'Build information; the value is always 1.',
    labelNames: ['version', 'nodejs'],
    registers,
  }).set({ version: sources.version, nodejs: process.versions.node }, 1);

  new Gauge({
    name: 'avawatch_outbox_pending',
    help: 'Notifications waiting in the outbox for delivery.',
    registers,
    async collect() {
      const pending = await fromStore(sources.outboxPending);
      if (pending !== undefined) this.set(pending);
    },
  });

  new Gauge({
    name: 'avawatch_alerts_firing',
    help: 'State alerts firing now.',
    labelNames: ['rule', 'severity'],
    registers,
    async collect() {
      const firing = await fromStore(sources.firing);
      if (firing === undefined) return;
      this.reset();
      const counts = new Map<string, { rule: string; severity: string; n: number }>();
      for (const a of firing) {
        const k = `${a.rule}\u0000${a.severity}`;
        const c = counts.get(k) ?? { rule: a.rule, severity: a.severity, n: 0 };
        c.n++;
        counts.set(k, c);
      }
      for (const c of counts.values()) this.set({ rule: c.rule, severity: c.severity }, c.n);
    },
  });

  const seen = new Set<string>();
  const ruleGauges: GaugeDef[] = [];
  for (const def of sources.ruleGauges) {
    if (seen.has(def.name)) continue;
    seen.add(def.name);
    ruleGauges.push(def);
  }

  if (sources.budgets) {
    const budgets = sources.budgets;
    new Gauge({
      name: 'avawatch_api_compute_units_remaining',
      help: 'Compute units left in the last minute (sliding) and in the UTC day, as avawatch counts them (corrected by the ratelimit-remaining header).',
      labelNames: ['api', 'window'],
      registers,
      collect() {
        this.reset();
        for (const { api, limiter } of budgets()) {
          this.set({ api, window: 'minute' }, limiter.remainingMinute());
          this.set({ api, window: 'day' }, limiter.remainingDay());
        }
      },
    });
    new Gauge({
      name: 'avawatch_api_compute_units_limit',
      help: 'The compute-unit budget per minute and per day: api.budget (api.metricsBudget), or the service\'s ratelimit-limit when lower.',
      labelNames: ['api', 'window'],
      registers,
      collect() {
        this.reset();
        for (const { api, limiter } of budgets()) {
          this.set({ api, window: 'minute' }, limiter.perMinute);
          this.set({ api, window: 'day' }, limiter.limits.perDay);
        }
      },
    });
    new Gauge({
      name: 'avawatch_api_requests_waiting',
      help: 'Requests waiting for compute units (the budget is running short when this stays above 0).',
      labelNames: ['api'],
      registers,
      collect() {
        this.reset();
        for (const { api, limiter } of budgets()) this.set({ api }, limiter.waiting);
      },
    });
  }

  if (sources.ready) {
    const ready = sources.ready;
    new Gauge({
      name: 'avawatch_ready',
      help: 'Whether /readyz answers 200: every interval rule evaluated once since start, state file open, no rule failing for failingAfter evaluations.',
      registers,
      async collect() {
        this.set((await ready()) ? 1 : 0);
      },
    });
  }

  async function* chunks(): AsyncGenerator<string> {
    yield await registry.metrics();
    yield* renderRuleGauges(ruleGauges, sources.ruleSamples);
  }

  return {
    registry,
    chunks,
    render: async () => {
      let text = '';
      for await (const chunk of chunks()) text += chunk;
      return text;
    },
    computeUnits: new Counter({
      name: 'avawatch_api_compute_units_total',
      help: 'Compute units spent on requests the service answered, by the weights of api-notes (a GET of validators 20, an operation 10, a chain metric 100).',
      labelNames: ['api'],
      registers,
    }),
    apiDeduplicated: new Counter({
      name: 'avawatch_api_requests_deduplicated_total',
      help: 'GETs answered by an identical request of another rule (in flight or within api.dedupeWindow) instead of a call.',
      labelNames: ['api'],
      registers,
    }),
    apiInvalidItems: new Counter({
      name: 'avawatch_api_invalid_items_total',
      help: 'List items that broke the contract and were left out: the node an item names fails alone (rule-failing names it); one that names no node is counted here and logged.',
      labelNames: ['api', 'endpoint'],
      registers,
    }),
    heartbeats: new Counter({
      name: 'avawatch_heartbeat_pings_total',
      help: 'Pings of heartbeat.url (outcome ok), of its failure URL while a source is blind (outcome fail), and pings that got no 2xx (outcome error).',
      labelNames: ['outcome'],
      registers,
    }),
    heartbeatLastSuccess: new Gauge({
      name: 'avawatch_heartbeat_last_success_timestamp_seconds',
      help: 'When the heartbeat monitor last took a ping (either URL) with a 2xx.',
      registers,
    }),
    clockSteps: new Counter({
      name: 'avawatch_clock_steps_total',
      help: 'Steps of the host\'s wall clock of more than a minute (direction back or forward), each also logged once; ages, waits and for: do not count on the wall clock.',
      labelNames: ['direction'],
      registers,
    }),
    ruleConsecutiveFailures: new Gauge({
      name: 'avawatch_rule_consecutive_failures',
      help: 'Evaluations of the rule that failed in a row (0 after a success); rule-failing fires at health.failingAfter.',
      labelNames: ['rule'],
      registers,
    }),
    apiUp: new Gauge({
      name: 'avawatch_up',
      help: 'Whether the last request to the API got a usable answer (1) or a 5xx, 429, timeout or network error (0).',
      labelNames: ['api'],
      registers,
    }),
    shardsHeld: new Gauge({
      name: 'avawatch_shards_held',
      help: 'Shards of the shared state (of 256) this instance holds and evaluates the rules of (0 without state.url).',
      registers,
    }),
    sharedStateSteppedDown: new Gauge({
      name: 'avawatch_shared_state_stepped_down',
      help: 'Whether this instance stopped evaluating and sending because PostgreSQL did not answer for a lease (1) or not (0).',
      registers,
    }),
    configReloadSuccessful: new Gauge({
      name: 'avawatch_config_last_reload_successful',
      help: 'Whether the last config reload succeeded (1) or was refused and the previous config kept (0).',
      registers,
    }),
    configReloadSuccessTime: new Gauge({
      name: 'avawatch_config_last_reload_success_timestamp_seconds',
      help: 'When the config was last loaded successfully (at start or by a reload).',
      registers,
    }),
    ruleEvaluations: new Counter({
      name: 'avawatch_rule_evaluations_total',
      help: 'Rule evaluations started.',
      labelNames: ['rule'],
      registers,
    }),
    ruleFailures: new Counter({
      name: 'avawatch_rule_evaluation_failures_total',
      help: 'Rule evaluations that failed (API error, bad response, store error); they change no state.',
      labelNames: ['rule'],
      registers,
    }),
    ruleEntityFailures: new Counter({
      name: 'avawatch_rule_entity_failures_total',
      help: 'Lookups of one entity (a node, an address, a validation id) that failed in an evaluation that still evaluated the rest; the entity keeps its state.',
      labelNames: ['rule'],
      registers,
    }),
    ruleFailingEntities: new Gauge({
      name: 'avawatch_rule_failing_entities',
      help: 'Entities of the rule whose lookup failed at its last committed evaluation.',
      labelNames: ['rule'],
      registers,
    }),
    ruleLastSuccess: new Gauge({
      name: 'avawatch_rule_last_success_timestamp_seconds',
      help: 'When the rule last evaluated and committed successfully.',
      labelNames: ['rule'],
      registers,
    }),
    apiRequests: new Counter({
      name: 'avawatch_api_requests_total',
      help: 'Requests to the Data and Metrics APIs by endpoint template and HTTP status (or error kind).',
      labelNames: ['api', 'endpoint', 'code'],
      registers,
    }),
    notifications: new Counter({
      name: 'avawatch_notifications_total',
      help: 'Notifications delivered.',
      labelNames: ['receiver'],
      registers,
    }),
    notificationsFailed: new Counter({
      name: 'avawatch_notifications_failed_total',
      help: 'Failed delivery attempts by reason (retried unless the reason is permanent).',
      labelNames: ['receiver', 'reason'],
      registers,
    }),
  };
}

/** What a scrape writes at a time: small enough to be garbage before it is old. */
const CHUNK_CHARS = 64 * 1024;

/**
 * The rule gauges in the text exposition format, in chunks, straight from the samples the
 * engine keeps per evaluation. At 10,000 nodes that is 40,000 series (5 MB): a prom-client
 * Gauge would hash and store every label set again on each scrape and build the whole text
 * at once; this builds one chunk at a time.
 */
export function* renderRuleGauges(defs: readonly GaugeDef[], samples: (metric: string) => Iterable<GaugeSample>): Generator<string> {
  let out = '';
  for (const def of defs) {
    out += `# HELP ${def.name} ${def.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n# TYPE ${def.name} gauge\n`;
    for (const sample of samples(def.name)) {
      let labels = '';
      for (const name in sample.labels) labels += `${labels === '' ? '' : ','}${name}="${labelValue(sample.labels[name] as string)}"`;
      out += `${def.name}{${labels}} ${sampleValue(sample.value)}\n`;
      if (out.length >= CHUNK_CHARS) {
        yield out;
        out = '';
      }
    }
  }
  if (out !== '') yield out;
}

function labelValue(v: string): string {
  return /[\\"\n]/.test(v) ? v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"') : v;
}

function sampleValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}
