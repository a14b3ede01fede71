import type { Counter } from 'prom-client';
import { buildPipeline, type Pipeline } from '../alerts/pipeline/index.js';
import type { Clock } from '../base/clock.js';
import type { Logger } from '../base/log.js';
import { scrub, type Secret } from '../base/secret.js';
import { channel } from '../channels/registry.js';
import type { Notifier } from '../channels/types.js';
import type { LoadedConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { Delivery, type DeliveryDeps } from '../delivery/delivery.js';
import { Engine } from '../engine/engine.js';
import type { FailureCounts } from '../engine/failing.js';
import { IncidentTracker } from '../engine/incidents.js';
import type { Metrics } from '../metrics/registry.js';
import type { ExpressionRunner } from '../rules/endpoint/runner.js';
import type { StateStore } from '../store/index.js';
import type { Apis } from './apis.js';

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

export function buildDelivery(config: Config, secrets: readonly Secret[], notifiers: readonly Notifier[], s: Shared, held: NonNullable<DeliveryDeps['held']>): Delivery {
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
