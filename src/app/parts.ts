import type { Counter } from 'prom-client';
import { formatDuration } from '../base/duration.js';
import { STEP_MS } from '../base/clock-steps.js';
import { untilNext } from '../base/schedule.js';
import { Heartbeat } from '../heartbeat/index.js';
import { CAUSE_PREFIX } from '../engine/cause.js';
import { errorText } from '../engine/engine.js';
import { FAILING_PREFIX } from '../engine/failing.js';
import { INCIDENT_PREFIX } from '../incidents/condition.js';
import { ofPart } from '../engine/parts.js';
import { buildPipeline, type Pipeline } from '../alerts/pipeline/index.js';
import { systemClock, type Clock } from '../base/clock.js';
import { within } from '../base/timers.js';
import type { Logger } from '../base/log.js';
import { scrub, type Secret } from '../base/secret.js';
import { channel } from '../channels/registry.js';
import type { Notifier } from '../channels/types.js';
import type { LoadedConfig, LoadedRule } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { Delivery, type DeliveryDeps } from '../delivery/delivery.js';
import { Engine } from '../engine/engine.js';
import type { FailureCounts } from '../engine/failing.js';
import { IncidentTracker } from '../engine/incidents.js';
import type { Metrics } from '../metrics/registry.js';
import { ExpressionRunner } from '../rules/endpoint/runner.js';
import type { StateStore } from '../store/index.js';
import type { Apis } from './apis.js';
import { pruneOtherLayout } from './layout.js';

// The parts a config makes, each built whole before a reload swaps it in.

export interface Shared {
  store: StateStore;
  metrics: Metrics;
  log: Logger;
  clock: Clock;
}

/** The receivers that are enabled, each its channel's notifier. */
export function buildNotifiers(config: Config): Notifier[] {
  return config.receivers.flatMap((r) => {
    const c = channel(r.type);
    return c.disabledReason(r) === undefined ? [c.create(r)] : [];
  });
}

export function buildDelivery(config: Config, secrets: readonly Secret[], notifiers: readonly Notifier[], s: Shared, held: NonNullable<DeliveryDeps['held']>, standby?: () => boolean): Delivery {
  return new Delivery({
    store: s.store,
    notifiers,
    metrics: s.metrics,
    log: s.log,
    options: {
      backoffMs: config.delivery.backoff,
      backoffMaxMs: config.delivery.backoffMax,
      maxRetryAfterMs: config.delivery.maxRetryAfter,
      maxAgeMs: config.delivery.maxAge,
      failingAfterMs: config.delivery.failingAfter,
      deadLetterHoldMs: config.delivery.deadLetterHold,
    },
    redact: (text) => scrub(text, secrets),
    digestOf: (receiver) => config.receivers.find((r) => r.name === receiver)?.digest,
    clock: s.clock,
    held,
    ...(standby ? { standby } : {}),
  });
}

export interface EngineParts {
  apis: Apis;
  notifiers: readonly Notifier[];
  failures: FailureCounts;
  /** Delivery now (a reload may swap it): woken when a commit queued notifications. */
  kick: () => void;
  expressionsFor: (rule: string) => ExpressionRunner;
  configured: () => Iterable<string>;
  sweepFirst: (networks: readonly string[], signal: AbortSignal) => Promise<void>;
  /** Shared state: whether this instance holds a shard now (the keeper's answer, once it runs). */
  holdsShard?: (shard: number) => boolean;
}

/** The pipeline of this config (alerts/pipeline/) and the engine that commits through it. */
export function buildEngine(loaded: LoadedConfig, s: Shared, p: EngineParts): { engine: Engine; pipeline: Pipeline } {
  const { config, secrets } = loaded;
  const pipeline = buildPipeline(config, {
    enabled: new Set(p.notifiers.map((n) => n.name)),
    store: s.store,
    clock: s.clock,
    redact: (text) => scrub(text, secrets),
    onQueued: p.kick,
  });
  const engine = new Engine({
    store: s.store,
    data: p.apis.data,
    metricsApi: p.apis.metricsApi,
    node: p.apis.node,
    metrics: s.metrics,
    log: s.log,
    pipeline,
    failures: p.failures,
    failingAfter: config.health.failingAfter,
    failingSeverity: config.health.failingSeverity,
    expressionsFor: p.expressionsFor,
    clock: s.clock,
    configured: p.configured,
    incidents: new IncidentTracker(config.incidents, loaded.inventory),
    sweepFirst: p.sweepFirst,
    ...(p.holdsShard ? { holdsShard: p.holdsShard } : {}),
  });
  return { engine, pipeline };
}

/** A receiver a reload removed (or disabled) leaves /metrics with its series. */
export async function forgetReceivers(metrics: Metrics, before: readonly Notifier[], after: readonly Notifier[]): Promise<void> {
  const kept = new Set(after.map((n) => n.name));
  const gone = new Set(before.map((n) => n.name).filter((name) => !kept.has(name)));
  if (gone.size === 0) return;
  for (const metric of [metrics.notifications, metrics.notificationsFailed] as Array<Counter<string>>) {
    for (const { labels } of (await metric.get()).values) if (gone.has(String(labels['receiver']))) metric.remove(labels);
  }
}

/** A rule a reload removed leaves /metrics with none of its series. */
export function forgetRuleMetrics(m: Metrics, rule: string): void {
  for (const metric of [m.ruleEvaluations, m.ruleFailures, m.ruleEntityFailures, m.ruleFailingEntities, m.ruleLastSuccess, m.ruleConsecutiveFailures]) metric.remove({ rule });
}

/** Each endpoint rule's expression process: started when first needed, ended when its rule goes. */
export class ExpressionRunners {
  readonly #runners = new Map<string, ExpressionRunner>();

  of(rule: string): ExpressionRunner {
    let runner = this.#runners.get(rule);
    if (!runner) this.#runners.set(rule, (runner = new ExpressionRunner()));
    return runner;
  }

  stop(rules: readonly string[] = [...this.#runners.keys()]): void {
    for (const rule of rules) {
      this.#runners.get(rule)?.stop();
      this.#runners.delete(rule);
    }
  }
}

/** A previous run's steady times ahead of this run's clock would hold retries, `for:` and reminders: brought back. */
export async function reanchor(s: Shared): Promise<void> {
  // Shared by several daemons: times ahead of this host's clock are most likely another host's
  // (its clock a little ahead), not a step back of this one; shifting them would age every other
  // daemon's waits. Keep the hosts' clocks synchronised instead (operations.md, Shared state).
  if (s.store.shards) return;
  try {
    const ms = await s.store.reanchor(s.clock.mono(), STEP_MS);
    if (ms > 0) s.log.warn({ shiftMs: ms }, `the state file's times were ${formatDuration(Math.round(ms / 1000) * 1000)} ahead of this host's clock (its wall clock stepped back while the last run was up): shifted back by that much, so no retry, for: or reminder waits for it`);
  } catch (err) {
    s.log.error({ error: errorText(err) }, 'could not bring the state file\'s times back to this host\'s clock; retries, for: and reminders may wait until it catches up');
  }
}

/**
 * Whether the store answers: asked before each /readyz, status page, heartbeat and scrape
 * (the store answers with Promises), while readiness() and blindness() stay synchronous and
 * say what it answered last.
 */
/** How long /readyz, the page and the heartbeat wait for the store's ping. */
const PING_CAP_MS = 1_000;

export class StorePing {
  /** Why it did not answer, if it did not. */
  problem: string | undefined;
  readonly #store: () => StateStore;
  /** Why the store is known to be out of reach now (the shard keeper stepped down), if it is: then it is not asked, and /metrics and /readyz answer at once. */
  readonly #down: () => string | undefined;

  constructor(store: () => StateStore, down: () => string | undefined = () => undefined) {
    this.#store = store;
    this.#down = down;
  }

  /** Reads from the store, or fails at once while it is known to be out of reach. */
  unlessDown<T>(read: () => Promise<T>): Promise<T> {
    const down = this.#down();
    return down === undefined ? read() : Promise.reject(new Error(down));
  }

  /** Pings (waiting PING_CAP_MS at most: a store cut off must not hold /readyz or the page), then reads what depends on the answer. */
  async checked<T>(read: () => T): Promise<Awaited<T>> {
    try {
      // A deadline on another system's answer: the host's clock (base/clock.ts).
      await within(systemClock, PING_CAP_MS, this.unlessDown(() => this.#store().ping()), () => {
        throw new Error(`no answer within ${PING_CAP_MS / 1000}s`);
      });
      this.problem = undefined;
    } catch (err) {
      this.problem = errorText(err);
    }
    return await read();
  }
}

/**
 * Rules removed while the daemon was stopped (or moved to another shard) would otherwise
 * show their alerts as firing forever: forget them, as a reload does.
 */
export async function pruneUnconfigured(s: Shared, rules: readonly LoadedRule[]): Promise<void> {
  const names = new Set(rules.flatMap((r) => [r.name, FAILING_PREFIX + r.name]));
  // A cause's alert (engine/cause.ts) is avawatch's own: it resolves when its rules evaluate again.
  // A part (`name#SSS`) goes with its rule.
  const gone = (await s.store.ruleNames()).filter((r) => !names.has(ofPart(r)) && !r.startsWith(CAUSE_PREFIX) && !r.startsWith(INCIDENT_PREFIX));
  if (gone.length > 0) {
    await s.store.pruneRule(...gone);
    s.log.info({ rules: gone }, 'forgot the state of rules no longer in the config');
  }
  await pruneOtherLayout(s.store, rules, s.log);
}

/** Tells the channels what they need of the app (Alertmanager: this daemon's URL, when each rule runs next). */
export function startChannels(notifiers: readonly Notifier[], s: Shared, alertsUrl: string | undefined, rules: () => readonly LoadedRule[]): void {
  for (const notifier of notifiers) {
    notifier.start?.({
      clock: s.clock,
      alertsUrl,
      untilNext: (name) => {
        const r = rules().find((x) => x.name === name);
        return r ? untilNext(r.schedule, s.clock.now()) : undefined;
      },
    });
  }
}

/** The dead man's switch of this config; none without a URL. */
export function buildHeartbeat(loaded: LoadedConfig, s: Shared, blindness: () => Promise<string[] | 'starting'>): Heartbeat | undefined {
  const hb = loaded.config.heartbeat;
  if (!hb?.url) return undefined;
  return new Heartbeat({
    url: hb.url,
    failUrl: hb.failUrl,
    everyMs: hb.every,
    timeoutMs: hb.timeout,
    blindness,
    redact: (text) => scrub(text, loaded.secrets),
    clock: s.clock,
    onPing: (outcome, error) => {
      s.metrics.heartbeats.inc({ outcome });
      if (outcome === 'error') s.log.warn({ error }, 'the heartbeat monitor did not take the ping; pinged again next cycle');
      else s.metrics.heartbeatLastSuccess.set(s.clock.now() / 1000);
    },
  });
}
