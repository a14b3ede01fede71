import { Agent } from 'undici';
import { DataApi } from './api/data-api.js';
import { HttpClient } from './api/http.js';
import { MetricsApi } from './api/metrics-api.js';
import type { LoadedConfig, LoadedRule } from './config/load.js';
import { resolveRoutes } from './alerts/route.js';
import { firingAlerts } from './alerts/view.js';
import { Engine, errorText } from './engine/engine.js';
import { Scheduler } from './engine/scheduler.js';
import type { Logger } from './log.js';
import { createMetrics, type Metrics } from './metrics/registry.js';
import { startHttpServer, type HttpServer } from './metrics/server.js';
import { Delivery } from './notify/delivery.js';
import { channel } from './notify/registry.js';
import { AlertmanagerNotifier } from './notify/alertmanager/index.js';
import { DeliveryError, type AlertMessage, type Notifier } from './notify/types.js';
import { ruleKinds } from './rules/registry.js';
import { Store } from './store/index.js';
import { VERSION } from './version.js';

export interface AppOptions {
  loaded: LoadedConfig;
  log: Logger;
  /** The engine's clock (rule tests run on simulated time). */
  now?: () => Date;
}

// SIGTERM must end within 10 s: evaluations and deliveries get this long, together.
const SHUTDOWN_GRACE_MS = 6_000;
const AGENT_CLOSE_MS = 1_000;

/**
 * The composition root: the only place that builds the HTTP agent, store, metrics,
 * notifiers and scheduler. Every part is torn down in reverse order of start.
 */
export class App {
  readonly metrics: Metrics;
  readonly store: Store;
  readonly engine: Engine;
  readonly delivery: Delivery;
  readonly #opts: AppOptions;
  readonly #agent: Agent;
  readonly #teardown: Array<() => Promise<void> | void> = [];
  #server: HttpServer | undefined;
  readonly #notifiers: Notifier[] = [];

  constructor(opts: AppOptions) {
    this.#opts = opts;
    const { config } = opts.loaded;
    const { log } = opts;
    this.store = Store.open(config.state.path);
    this.#teardown.push(() => this.store.close());

    this.#agent = new Agent({
      connect: { timeout: config.api.connectTimeout },
      headersTimeout: config.api.timeout,
      bodyTimeout: config.api.timeout,
      keepAliveTimeout: 30_000,
      connections: 16,
    });
    this.#teardown.push(async () => {
      const closed = this.#agent.close();
      const timer = setTimeout(() => void this.#agent.destroy(), AGENT_CLOSE_MS);
      await closed.catch(() => undefined);
      clearTimeout(timer);
    });

    const engineRef: { current?: Engine } = {};
    this.metrics = createMetrics({
      version: VERSION,
      outboxPending: () => this.store.pendingCount(),
      firing: () => firingAlerts(this.store),
      ruleSamples: () => engineRef.current?.samples() ?? [],
      ruleGauges: Object.values(ruleKinds).flatMap((k) => k.gauges),
    });

    const httpOptions = {
      dispatcher: this.#agent,
      timeoutMs: config.api.timeout,
      maxResponseBytes: config.api.maxResponseBytes,
      retries: config.api.retries,
      backoffInitialMs: config.api.retryBackoff,
      backoffMaxMs: config.api.retryBackoffMax,
      maxRetryAfterMs: config.api.maxRetryAfter,
    };
    const http = new HttpClient({
      ...httpOptions,
      api: 'data',
      baseUrl: config.api.dataUrl,
      headers: config.api.apiKey ? { [config.api.apiKeyHeader]: config.api.apiKey.reveal() } : {},
      onResponse: (endpoint, code) => this.metrics.apiRequests.inc({ api: 'data', endpoint, code }),
    });
    const data = new DataApi(http, { pageSize: config.api.pageSize, maxPages: config.api.maxPages });
    // The Metrics API takes no key and has its own budget.
    const metricsApi = new MetricsApi(
      new HttpClient({
        ...httpOptions,
        api: 'metrics',
        baseUrl: config.api.metricsUrl,
        headers: {},
        onResponse: (endpoint, code) => this.metrics.apiRequests.inc({ api: 'metrics', endpoint, code }),
      }),
    );

    const notifiers = this.#notifiers;
    for (const receiver of config.receivers) {
      const c = channel(receiver.type);
      if (c.disabledReason(receiver) === undefined) notifiers.push(c.create(receiver));
    }
    const enabled = new Set(notifiers.map((n) => n.name));
    this.delivery = new Delivery({
      store: this.store,
      notifiers,
      metrics: this.metrics,
      log,
      options: {
        backoffMs: config.delivery.backoff,
        backoffMaxMs: config.delivery.backoffMax,
        maxAgeMs: config.delivery.maxAge,
      },
      // One clock for the engine and delivery: row ages are measured on the time they were made with.
      ...(opts.now ? { now: () => (opts.now as () => Date)().getTime() } : {}),
    });

    this.engine = new Engine({
      store: this.store,
      data,
      metricsApi,
      metrics: this.metrics,
      log,
      targetsFor: (rule, labels) => resolveRoutes(config.route, labels, rule.receivers).filter((t) => enabled.has(t.receiver)),
      repeatIntervalMs: config.route.repeatInterval,
      timeIntervals: config.timeIntervals,
      onQueued: () => this.delivery.kick(),
      ...(opts.now ? { now: opts.now } : {}),
    });
    engineRef.current = this.engine;
  }

  get rules(): readonly LoadedRule[] {
    return this.#opts.loaded.rules;
  }

  /** The daemon: delivery, then the HTTP server, then the scheduler. */
  async start(): Promise<void> {
    const { log, loaded } = this.#opts;
    for (const rule of loaded.rules) this.engine.restore(rule);
    this.#server = await startHttpServer(loaded.config.server.listen, this.metrics.registry, { alerts: () => firingAlerts(this.store) });
    this.#teardown.push(() => this.#server?.close());
    this.delivery.start();
    this.#startAlertmanagerResend();
    const scheduler = new Scheduler({ log, run: (rule, signal) => this.engine.evaluate(rule, signal) });
    scheduler.start(loaded.rules);
    this.#teardown.push(async () => {
      await Promise.all([scheduler.stop(SHUTDOWN_GRACE_MS), this.delivery.stop(SHUTDOWN_GRACE_MS)]);
    });
    log.info(
      { rules: loaded.rules.length, metrics: `${this.#server.url}/metrics`, state: loaded.config.state.path },
      'avawatch running',
    );
  }

  /**
   * Alertmanager forgets an alert that is not posted again before its endsAt: every
   * resendInterval, post the firing alerts routed (and not muted) to each Alertmanager.
   */
  #startAlertmanagerResend(): void {
    const { rules } = this.#opts.loaded;
    for (const notifier of this.#notifiers) {
      if (!(notifier instanceof AlertmanagerNotifier)) continue;
      if (!notifier.receiver.externalUrl && this.#server) notifier.generatorURL = `${this.#server.url}/api/v1/alerts`;
      const timer = setInterval(() => {
        const now = new Date();
        const silences = this.store.silences(now.getTime());
        const messages: AlertMessage[] = firingAlerts(this.store).flatMap((a) => {
          const rule = rules.find((r) => r.name === a.rule);
          if (!rule) return [];
          const targets = this.engine.targets(rule, a.labels, now, silences).filter((t) => t.receiver === notifier.name);
          if (targets.length === 0 || targets.every((t) => t.mutedBy)) return [];
          return [{ alertId: 0, rule: a.rule, kind: rule.kind, status: 'firing', severity: a.severity as AlertMessage['severity'], subject: a.subject, summary: a.summary, labels: a.labels, details: a.details, at: a.startsAt }];
        });
        if (messages.length === 0) return;
        notifier.send(messages, new AbortController().signal).catch((err: unknown) => {
          this.metrics.notificationsFailed.inc({ receiver: notifier.name, reason: err instanceof DeliveryError ? err.reason : 'error' });
          this.#opts.log.warn({ receiver: notifier.name, error: errorText(err) }, 'alertmanager re-send failed; next one in resendInterval');
        });
      }, notifier.receiver.resendInterval);
      timer.unref();
      this.#teardown.push(() => clearInterval(timer));
    }
  }

  get url(): string | undefined {
    return this.#server?.url;
  }

  /** Evaluates the named rules (all when none) once each, in order. */
  async once(names: readonly string[] = []): Promise<{ alerts: AlertMessage[]; failures: Array<{ rule: string; error: unknown }> }> {
    const rules = names.length === 0 ? this.rules : this.rules.filter((r) => names.includes(r.name));
    const alerts: AlertMessage[] = [];
    const failures: Array<{ rule: string; error: unknown }> = [];
    const signal = new AbortController().signal;
    for (const rule of rules) {
      try {
        alerts.push(...(await this.engine.evaluate(rule, signal)));
      } catch (error) {
        failures.push({ rule: rule.name, error });
      }
    }
    return { alerts, failures };
  }

  /** Tears down in reverse order of construction and start. Safe to call twice. */
  async stop(): Promise<void> {
    const steps = this.#teardown.splice(0).reverse();
    for (const step of steps) {
      try {
        await step();
      } catch (err) {
        this.#opts.log.error({ error: String(err) }, 'error during shutdown');
      }
    }
  }
}
