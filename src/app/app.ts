import type { Counter } from 'prom-client';
import { Agent } from 'undici';
import { DataApi } from '../api/data/index.js';
import { budgetLimits, Limiter, type BudgetLimits } from '../api/limiter.js';
import { HttpClient } from '../api/http.js';
import { MetricsApi } from '../api/metrics-api.js';
import { HttpNodeApi } from '../api/node-api.js';
import { Heartbeat } from '../heartbeat/index.js';
import { validatorResults, type ValidatorResult } from './results.js';
import { ConfigError, loadConfig, type LoadedConfig, type LoadedRule } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { monoOf, systemClock, type Clock } from '../base/clock.js';
import { ClockSteps, STEP_MS } from '../base/clock-steps.js';
import { formatDuration } from '../base/duration.js';
import type { Secret } from '../base/secret.js';
import { scrub } from '../base/secret.js';
import { formatProblem } from '../base/source.js';
import { watchConfig, type ConfigWatcher } from '../config/watch.js';
import { FAILING_PREFIX, FailureCounts } from '../engine/failing.js';
import { blindLines, CAUSE_PREFIX } from '../engine/cause.js';
import { IncidentTracker } from '../engine/incidents.js';
import { OnDemandSweeps } from '../engine/on-demand.js';
import { INCIDENT_PREFIX } from '../incidents/condition.js';
import { resolveRoutes } from '../alerts/route.js';
import { firingAlerts } from '../alerts/view.js';
import { Engine, errorText } from '../engine/engine.js';
import { Scheduler } from '../engine/scheduler.js';
import type { Logger } from '../base/log.js';
import { createMetrics, type Metrics } from '../metrics/registry.js';
import { startHttpServer, type HttpServer } from '../server/server.js';
import { Delivery } from '../delivery/delivery.js';
import { digestSlot } from '../channels/digest.js';
import { channel } from '../channels/registry.js';
import type { AlertMessage, Notifier } from '../channels/types.js';
import { ruleKind, ruleKinds } from '../rules/registry.js';
import { ExpressionRunner } from '../rules/endpoint/runner.js';
import { explorersOf } from '../status/links.js';
import { startPruning } from '../history/prune.js';
import { Sampler } from '../history/sampler.js';
import { renderStatusPage } from '../status/page.js';
import { statusSnapshot, type StatusSnapshot } from '../status/snapshot.js';
import { heldText } from '../status/network.js';
import { Store } from '../store/index.js';
import { VERSION } from '../base/version.js';
import { periodMs, untilNext } from '../base/schedule.js';
import { planReload, stableJson } from './reload.js';
import { relocateOnReload } from './relocate.js';

export interface AppOptions {
  loaded: LoadedConfig;
  log: Logger;
  /**
   * The one clock of every part the App builds (default: the wall clock). Rule tests and
   * the demo run on the simulator's time.
   */
  clock?: Clock;
  /** Reads the config again for a reload; throws ConfigError when it is invalid. */
  reload?: () => LoadedConfig;
  /** Reload when the config or a rule file changes on disk. */
  watch?: boolean;
}

// SIGTERM must end within 10 s: evaluations and deliveries get this long, together.
const SHUTDOWN_GRACE_MS = 6_000;
const AGENT_CLOSE_MS = 1_000;

interface Apis {
  agent: Agent;
  data: DataApi;
  metricsApi: MetricsApi;
  /** The operator's own nodes: their own agent, so a node that hangs holds no connection the service needs. */
  nodeAgent: Agent;
  node: HttpNodeApi;
  limiters: { data: Limiter; metrics: Limiter };
}

/**
 * The composition root: the only place that builds the HTTP agent, store, metrics,
 * notifiers and scheduler. A reload swaps the parts its changes touch; the store, the
 * HTTP server and the metrics live as long as the process.
 */
export class App {
  readonly metrics: Metrics;
  readonly store: Store;
  /** Consecutive failures per rule: they outlive a reload. */
  readonly failures = new FailureCounts();
  /** Each endpoint rule's expression process (started when first needed, ended when idle). */
  readonly #expressions = new Map<string, ExpressionRunner>();
  /** Rules evaluated (or failed) at least once since start, or since a reload added them. */
  readonly #looked = new Set<string>();
  readonly #opts: AppOptions;
  readonly #clock: Clock;
  readonly #teardown: Array<() => Promise<void> | void> = [];
  readonly #sampler: Sampler;
  #loaded: LoadedConfig;
  #apis: Apis;
  #engine: Engine;
  #delivery: Delivery;
  #notifiers: Notifier[] = [];
  #server: HttpServer | undefined;
  #scheduler: Scheduler | undefined;
  /** The on-demand sweeps' cap, kept across reloads. */
  readonly #sweeps = new OnDemandSweeps();
  #watcher: ConfigWatcher | undefined;
  #heartbeat: Heartbeat | undefined;
  #reloading: Promise<boolean> | undefined;
  #stopping = false;
  #reloadAgain = false;
  /** Looked at before each evaluation: a step of the wall clock is logged once. */
  readonly #steps: ClockSteps;

  constructor(opts: AppOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#loaded = opts.loaded;
    const { config } = opts.loaded;
    this.store = Store.open(config.state.path);
    this.#teardown.push(() => this.store.close());
    this.#teardown.push(() => this.#stopExpressions([...this.#expressions.keys()]));
    this.#sampler = new Sampler(this.store);

    this.metrics = createMetrics({
      version: VERSION,
      outboxPending: () => this.store.pendingCount(),
      firing: () => firingAlerts(this.store),
      ruleSamples: (metric) => this.#engine.samples(metric),
      ruleGauges: Object.values(ruleKinds).flatMap((k) => k.gauges),
      ready: () => this.readiness().ready,
      budgets: () => Object.entries(this.#apis.limiters).map(([api, limiter]) => ({ api, limiter })),
    });
    this.metrics.configReloadSuccessful.set(1);
    this.metrics.configReloadSuccessTime.set(this.#clock.now() / 1000);

    this.#apis = this.#buildApis(config);
    this.#teardown.push(() => closeAgent(this.#apis.agent));
    this.#teardown.push(() => closeAgent(this.#apis.nodeAgent));
    ({ delivery: this.#delivery, notifiers: this.#notifiers } = this.#buildDelivery(config, opts.loaded.secrets));
    this.#engine = this.#buildEngine(config, this.#apis, this.#notifiers, opts.loaded.secrets);
    this.#steps = new ClockSteps(this.#clock, ({ ms, text }) => {
      this.metrics.clockSteps.inc({ direction: ms < 0 ? 'back' : 'forward' });
      this.#opts.log.warn({ stepMs: ms }, text);
    });
  }

  /** A previous run's steady times ahead of this run's clock would hold retries, `for:` and reminders: brought back. */
  #reanchor(): void {
    try {
      const ms = this.store.reanchor(this.#clock.mono(), STEP_MS);
      if (ms > 0) this.#opts.log.warn({ shiftMs: ms }, `the state file's times were ${formatDuration(Math.round(ms / 1000) * 1000)} ahead of this host's clock (its wall clock stepped back while the last run was up): shifted back by that much, so no retry, for: or reminder waits for it`);
    } catch (err) {
      this.#opts.log.error({ error: errorText(err) }, 'could not bring the state file\'s times back to this host\'s clock; retries, for: and reminders may wait until it catches up');
    }
  }

  get rules(): readonly LoadedRule[] {
    return this.#loaded.rules;
  }

  get engine(): Engine {
    return this.#engine;
  }

  get delivery(): Delivery {
    return this.#delivery;
  }

  /** The daemon: delivery, then the HTTP server, then the scheduler. */
  async start(): Promise<void> {
    const { log } = this.#opts;
    const loaded = this.#loaded;
    // The daemon only: `once` beside a running daemon must not move the times it is counting.
    this.#reanchor();
    this.#pruneUnconfigured();
    this.#teardown.push(
      startPruning({ store: this.store, keepMs: () => this.#loaded.config.history.keep, clock: this.#clock, log }),
    );
    for (const rule of loaded.rules) this.#engine.restore(rule);
    this.#server = await startHttpServer(
      loaded.config.server.listen,
      this.metrics,
      {
        alerts: () => firingAlerts(this.store),
        ready: () => this.readiness(),
        statusPage: async () => renderStatusPage(await this.statusSnapshot()),
      },
      { auth: loaded.config.server.auth },
    );
    this.#teardown.push(() => this.#server?.close());
    this.#delivery.start();
    this.#startChannels();
    const scheduler = new Scheduler({
      log,
      run: async (rule, signal) => {
        this.#steps.check();
        try {
          const alerts = await this.#engine.evaluate(rule, signal);
          this.#sample(rule);
          return alerts;
        } finally {
          // Shutdown or a reload cut it short: the rule has not looked yet.
          if (!signal.aborted) this.#looked.add(rule.name);
        }
      },
      onSkip: (rule, runningForMs) => this.#engine.skipped(rule, runningForMs),
      clock: this.#clock,
    });
    this.#scheduler = scheduler;
    scheduler.start(loaded.rules);
    this.#startHeartbeat();
    this.#teardown.push(() => this.#heartbeat?.stop());
    this.#teardown.push(async () => {
      this.#watcher?.close();
      this.#stopChannels();
      await Promise.all([scheduler.stop(SHUTDOWN_GRACE_MS), this.#delivery.stop(SHUTDOWN_GRACE_MS)]);
    });
    if (this.#opts.watch) this.#watch();
    log.info({ rules: loaded.rules.length, metrics: `${this.#server.url}/metrics`, state: loaded.config.state.path }, 'avawatch running');
  }

  /**
   * Rules removed while the daemon was stopped (or moved to another shard) would otherwise
   * show their alerts as firing forever: forget them, as a reload does.
   */
  #pruneUnconfigured(): void {
    const names = new Set(this.#loaded.rules.flatMap((r) => [r.name, FAILING_PREFIX + r.name]));
    // A cause's alert (engine/cause.ts) is avawatch's own: it resolves when its rules evaluate again.
    const gone = this.store.ruleNames().filter((r) => !names.has(r) && !r.startsWith(CAUSE_PREFIX) && !r.startsWith(INCIDENT_PREFIX));
    if (gone.length === 0) return;
    this.store.pruneRule(...gone);
    this.#opts.log.info({ rules: gone }, 'forgot the state of rules no longer in the config');
  }

  /** What the status page shows: the state /metrics and /api/v1/alerts read, at one moment. */
  statusSnapshot(): Promise<StatusSnapshot> {
    return statusSnapshot({
      version: VERSION,
      now: () => this.#now(),
      rules: this.#loaded.rules,
      firing: () => firingAlerts(this.store),
      samples: (metric) => this.#engine.samples(metric),
      failures: this.failures,
      metrics: this.metrics,
      outbox: () => this.store.outboxCounts(),
      limiters: this.#apis.limiters,
      ready: () => this.readiness(),
      // The page's windows start at wall times; alerts and samples are kept on the steady clock.
      timeline: (q) => this.store.timeline({ ...q, since: monoOf(this.#clock, q.since) }),
      // At most a chart's worth of points per entity, however many samples the window holds.
      history: (series, entity, since) => this.store.samples(series, entity, monoOf(this.#clock, since), { until: this.#clock.mono(), points: 240 }),
      silences: () => this.store.silences(this.#clock.now()),
      receivers: () => this.#loaded.config.receivers.map((r) => ({ name: r.name, type: r.type, disabled: channel(r.type).disabledReason(r) })),
      receiverStats: () => this.store.receiverStats(),
      redact: (text) => scrub(text, this.#loaded.secrets),
      explorers: explorersOf(this.#loaded.config.status.explorerUrl),
      inventory: this.#loaded.inventory,
      historyWindowMs: this.#loaded.config.history.keep,
      ruleStates: (rule) => this.#engine.view(rule)?.states,
      lastEvents: (since) => this.store.lastEvents(monoOf(this.#clock, since)),
      baselines: () => this.#engine.baselines(),
      // Held from a receiver while its incident fires there (the engine's own answer, as delivery asks it).
      heldFor: (rule, key) => heldText(this.#loaded.config.receivers.map((r) => r.name), (receiver) => this.#engine.heldFor(rule, key, receiver)),
    });
  }

  /**
   * Ready: every interval rule has been evaluated once since start (a start that has not
   * seen the service is not ready), the state file answers, and no rule has failed
   * failingAfter evaluations in a row. Cron rules are not waited for: their first run may
   * be hours away.
   */
  readiness(): { ready: boolean; problems: string[] } {
    const problems: string[] = [];
    const waiting = this.#loaded.rules.filter((r) => periodMs(r.schedule) !== undefined && !this.#looked.has(r.name)).map((r) => r.name);
    if (waiting.length > 0) problems.push(startingText(waiting));
    try {
      this.store.ping();
    } catch (err) {
      problems.push(`state file: ${errorText(err)}`);
    }
    const names = new Set(this.#loaded.rules.map((r) => r.name));
    // One line per cause outside the rules (the service down: one line, not one per rule).
    const failing = this.failures.failing(this.#loaded.config.health.failingAfter).filter((f) => names.has(f.rule));
    problems.push(...blindLines(failing, (f) => `rule ${f.rule}: ${f.count} evaluations failed in a row (${f.error})`));
    // Alerts that cannot get out: the heartbeat and /readyz say it, as avawatch's own alerts cannot.
    problems.push(...this.#delivery.problems());
    return { ready: problems.length === 0, problems };
  }

  /**
   * Reads the config again. Invalid: logged, the running config stays, the reload gauge is 0.
   * Valid: rules are added, removed and changed in place; removed rules' state is pruned.
   * Reloads never overlap: one asked for during another runs after it.
   */
  async reload(reason: string): Promise<boolean> {
    if (this.#reloading) {
      this.#reloadAgain = true;
      return this.#reloading;
    }
    this.#reloading = (async () => {
      let ok = false;
      do {
        this.#reloadAgain = false;
        ok = await this.#reload(reason);
      } while (this.#reloadAgain);
      return ok;
    })().finally(() => {
      this.#reloading = undefined;
    });
    return this.#reloading;
  }

  async #reload(reason: string): Promise<boolean> {
    const { log, reload } = this.#opts;
    if (!this.#scheduler) {
      log.warn({ reason }, 'reload asked before the daemon was running; ignored');
      return false;
    }
    let next: LoadedConfig;
    try {
      next = reload ? reload() : loadConfig(this.#loaded.file);
    } catch (err) {
      this.metrics.configReloadSuccessful.set(0);
      const problems = err instanceof ConfigError ? err.problems.map(formatProblem) : [errorText(err)];
      log.error({ reason, problems }, `config reload refused (${problems.length} problem(s)); the previous config keeps running`);
      return false;
    }
    try {
      return await this.#apply(next, this.#scheduler, reason);
    } catch (err) {
      this.metrics.configReloadSuccessful.set(0);
      log.error({ reason, error: errorText(err) }, 'config reload failed while being applied; restart avawatch to be sure what runs');
      return false;
    }
  }

  async #apply(file: LoadedConfig, scheduler: Scheduler, reason: string): Promise<boolean> {
    const { log } = this.#opts;
    const prev = this.#loaded;
    const prevEngine = this.#engine;
    const plan = planReload(prev, file);
    const { next, added, removed, modified } = plan;
    for (const key of plan.restartOnly) log.warn({ key }, `${key} changed: it takes effect at the next restart`);

    // Build first: whatever can throw does so before anything changes.
    const apis = plan.apis ? this.#buildApis(next.config) : this.#apis;
    const delivery = plan.delivery ? this.#buildDelivery(next.config, next.secrets) : undefined;
    const engine = plan.engine ? this.#buildEngine(next.config, apis, delivery?.notifiers ?? this.#notifiers, next.secrets) : this.#engine;

    // Nothing evaluates on the old config past this point: a new engine waits for every
    // running evaluation (it routes and fetches differently); otherwise the changed rules'.
    await scheduler.remove(plan.stop);
    if (this.#stopping) return false;
    this.#loaded = next;
    if (apis !== this.#apis) {
      void closeAgent(this.#apis.agent);
      void closeAgent(this.#apis.nodeAgent);
    }
    this.#apis = apis;
    this.#engine = engine;
    if (!plan.engine) engine.regroup(next.inventory);
    if (delivery) {
      this.#stopChannels();
      const old = this.#delivery;
      await old.stop(SHUTDOWN_GRACE_MS);
      if (this.#stopping) return false;
      delivery.delivery.inherit(old);
      await this.#forgetReceivers(this.#notifiers, delivery.notifiers);
      this.#delivery = delivery.delivery;
      this.#notifiers = delivery.notifiers;
      this.#delivery.start();
      this.#startChannels();
    }
    this.#relocate(prev, plan.engine ? prev.rules.map((r) => r.name) : [...plan.removed, ...plan.modified].map((r) => r.name), prevEngine);
    this.#stopExpressions(plan.forget.map((r) => r.name));
    for (const rule of plan.forget) {
      this.store.pruneRule(rule.name, FAILING_PREFIX + rule.name);
      this.failures.forget(rule.name);
      this.#looked.delete(rule.name);
      this.#engine.forget(rule.name);
      this.#sampler.forget(rule.name);
      const m = this.metrics;
      for (const metric of [m.ruleEvaluations, m.ruleFailures, m.ruleEntityFailures, m.ruleFailingEntities, m.ruleLastSuccess, m.ruleConsecutiveFailures]) {
        metric.remove({ rule: rule.name });
      }
    }
    for (const rule of plan.start) this.#engine.restore(rule);
    scheduler.start(plan.start);
    this.metrics.configReloadSuccessful.set(1);
    this.metrics.configReloadSuccessTime.set(this.#clock.now() / 1000);
    if (plan.heartbeat) this.#startHeartbeat();
    for (const warning of next.warnings) log.warn(warning);
    if (this.#watcher) this.#watch();
    log.info(
      { reason, added: added.map((r) => r.name), removed: removed.map((r) => r.name), changed: modified.map((r) => r.name), rules: next.rules.length },
      'config reloaded',
    );
    return true;
  }

  /** The reload's removed, renamed and moved alerts: their receivers hear it now (app/relocate.ts). */
  #relocate(prev: LoadedConfig, rules: readonly string[], before: Engine): void {
    try {
      const enabled = new Set(this.#notifiers.map((n) => n.name));
      const queued = relocateOnReload({ store: this.store, prev, next: this.#loaded, rules, before, after: this.#engine, enabled, now: this.#clock.mono(), wall: this.#clock.now() });
      // The engine's kept states carry the revision before this commit.
      for (const name of rules) this.#engine.forget(name);
      if (queued > 0) this.#delivery.kick();
    } catch (err) {
      this.#opts.log.error({ error: errorText(err) }, 'could not tell the receivers of the alerts this reload ended or moved');
    }
  }

  #watch(): void {
    const old = this.#watcher;
    const onChange = () => void this.reload('file changed');
    this.#watcher = watchConfig(this.#loaded, onChange, this.#opts.log, this.#clock);
    // A change saved while the reload ran still counts.
    if (old?.close()) onChange();
  }

  #buildApis(config: Config): Apis {
    const agent = agentOf(config.api, 16);
    const httpOptions = {
      dispatcher: agent,
      timeoutMs: config.api.timeout,
      maxResponseBytes: config.api.maxResponseBytes,
      retries: config.api.retries,
      backoffInitialMs: config.api.retryBackoff,
      backoffMaxMs: config.api.retryBackoffMax,
      maxRetryAfterMs: config.api.maxRetryAfter,
    };
    // On the App's clock: a 429's pause ends when that clock says so.
    const newLimiter = (limits: BudgetLimits) => new Limiter({ limits, maxWaitMs: config.api.maxRetryAfter, clock: this.#clock });
    const limiters = {
      data: this.#apis?.limiters.data ?? newLimiter(budgetLimits(config.api.budget)),
      metrics: this.#apis?.limiters.metrics ?? newLimiter(config.api.metricsBudget),
    };
    // A reload keeps what was spent unless the budget itself changed.
    if (stableJson(limiters.data.limits) !== stableJson(budgetLimits(config.api.budget))) limiters.data = newLimiter(budgetLimits(config.api.budget));
    if (stableJson(limiters.metrics.limits) !== stableJson(config.api.metricsBudget)) limiters.metrics = newLimiter(config.api.metricsBudget);
    for (const [api, limiter] of Object.entries(limiters)) limiter.onSpend = (cu) => this.metrics.computeUnits.inc({ api }, cu);
    const observe = (api: 'data' | 'metrics') => ({
      onResponse: (endpoint: string, code: string) => {
        this.metrics.apiRequests.inc({ api, endpoint, code });
        this.metrics.apiUp.set({ api }, apiAnswered(code) ? 1 : 0);
      },
      onDedupe: () => this.metrics.apiDeduplicated.inc({ api }),
      limiter: limiters[api],
      dedupeWindowMs: config.api.dedupeWindow,
      clock: this.#clock,
    });
    const http = new HttpClient({
      ...httpOptions,
      api: 'data',
      baseUrl: config.api.dataUrl,
      headers: config.api.apiKey ? { [config.api.apiKeyHeader]: config.api.apiKey.reveal() } : {},
      ...observe('data'),
    });
    const data = new DataApi(http, {
      pageSize: config.api.pageSize,
      maxPages: config.api.maxPages,
      onBrokenItem: (endpoint, nodeId, reason) => {
        this.metrics.apiInvalidItems.inc({ api: 'data', endpoint });
        // An item that names its node fails that node, and the rule's warning names it.
        if (nodeId === undefined) this.#opts.log.warn({ endpoint, reason }, 'a list item that names no node breaks the contract: left out; nodes not listed are confirmed as absent ones are');
      },
    });
    // The Metrics API takes no key and has its own budget.
    const metricsApi = new MetricsApi(
      new HttpClient({ ...httpOptions, api: 'metrics', baseUrl: config.api.metricsUrl, headers: {}, ...observe('metrics') }),
    );
    const nodeAgent = agentOf(config.nodeApi, 4);
    const node = new HttpNodeApi({
      dispatcher: nodeAgent,
      timeoutMs: config.nodeApi.timeout,
      clock: this.#clock,
      // The node's answers count apart: a node that does not answer is not the service down.
      onResponse: (endpoint, code) => this.metrics.apiRequests.inc({ api: 'node', endpoint, code }),
    });
    return { agent, data, metricsApi, limiters, nodeAgent, node };
  }

  /** A receiver a reload removed (or disabled) leaves /metrics with its series. */
  async #forgetReceivers(before: readonly Notifier[], after: readonly Notifier[]): Promise<void> {
    const kept = new Set(after.map((n) => n.name));
    const gone = new Set(before.map((n) => n.name).filter((name) => !kept.has(name)));
    if (gone.size === 0) return;
    for (const metric of [this.metrics.notifications, this.metrics.notificationsFailed] as Array<Counter<string>>) {
      for (const { labels } of (await metric.get()).values) if (gone.has(String(labels['receiver']))) metric.remove(labels);
    }
  }

  #buildDelivery(config: Config, secrets: readonly Secret[]): { delivery: Delivery; notifiers: Notifier[] } {
    const notifiers: Notifier[] = [];
    for (const receiver of config.receivers) {
      const c = channel(receiver.type);
      if (c.disabledReason(receiver) === undefined) notifiers.push(c.create(receiver));
    }
    const delivery = new Delivery({
      store: this.store,
      notifiers,
      metrics: this.metrics,
      log: this.#opts.log,
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
      clock: this.#clock,
      // Always the current engine's incidents, also after a reload swapped it.
      held: (row) => this.#engine.heldFor(row.message.rule, row.message.conditionKey, row.receiver),
    });
    return { delivery, notifiers };
  }

  #buildEngine(config: Config, apis: Apis, notifiers: readonly Notifier[], secrets: readonly Secret[]): Engine {
    const enabled = new Set(notifiers.map((n) => n.name));
    // Receivers that forget a firing alert they stop hearing of (Alertmanager), and how soon.
    const resendOf = new Map(config.receivers.flatMap((r) => {
      const ms = channel(r.type).resendInterval?.(r as never);
      return ms === undefined ? [] : [[r.name, ms] as const];
    }));
    return new Engine({
      store: this.store,
      data: apis.data,
      metricsApi: apis.metricsApi,
      node: apis.node,
      metrics: this.metrics,
      log: this.#opts.log,
      targetsFor: (rule, labels) =>
        resolveRoutes(config.route, labels, rule.receivers)
          .filter((t) => enabled.has(t.receiver))
          .map((t) => {
            const resendMs = resendOf.get(t.receiver);
            return resendMs === undefined ? t : { ...t, resendMs };
          }),
      digestAt: (receiver, severity, now) => digestSlot(config.receivers.find((r) => r.name === receiver)?.digest, severity, now),
      repeatIntervalMs: config.route.repeatInterval,
      timeIntervals: config.timeIntervals,
      failures: this.failures,
      failingAfter: config.health.failingAfter,
      failingSeverity: config.health.failingSeverity,
      redact: (text) => scrub(text, secrets),
      // Always the current delivery, also after a reload swapped it.
      onQueued: () => this.#delivery.kick(),
      expressionsFor: (rule) => this.#expressionsOf(rule),
      clock: this.#clock,
      configured: () => this.#loaded.rules.map((r) => r.name),
      incidents: new IncidentTracker(config.incidents, this.#loaded.inventory),
      sweepFirst: (networks, signal) => this.#sweepFirst(networks, signal),
    });
  }

  #expressionsOf(rule: string): ExpressionRunner {
    let runner = this.#expressions.get(rule);
    if (!runner) this.#expressions.set(rule, (runner = new ExpressionRunner()));
    return runner;
  }

  #stopExpressions(rules: readonly string[]): void {
    for (const rule of rules) {
      this.#expressions.get(rule)?.stop();
      this.#expressions.delete(rule);
    }
  }

  /** Tells the channels what they need of the app (Alertmanager: this daemon's URL, when each rule runs next). */
  #startChannels(): void {
    const rule = (name: string) => this.#loaded.rules.find((r) => r.name === name);
    for (const notifier of this.#notifiers) {
      notifier.start?.({
        clock: this.#clock,
        alertsUrl: this.#server ? `${this.#server.url}/api/v1/alerts` : undefined,
        untilNext: (name) => {
          const r = rule(name);
          return r ? untilNext(r.schedule, this.#clock.now()) : undefined;
        },
      });
    }
  }

  #now(): Date {
    return new Date(this.#clock.now());
  }

  /** (Re)starts the dead man's switch from the current config; none without a URL. */
  #startHeartbeat(): void {
    this.#heartbeat?.stop();
    this.#heartbeat = undefined;
    const hb = this.#loaded.config.heartbeat;
    if (!hb?.url) return;
    this.#heartbeat = new Heartbeat({
      url: hb.url,
      failUrl: hb.failUrl,
      everyMs: hb.every,
      timeoutMs: hb.timeout,
      clock: this.#clock,
      blindness: () => this.blindness(),
      redact: (text) => scrub(text, this.#loaded.secrets),
      onPing: (outcome, error) => {
        this.metrics.heartbeats.inc({ outcome });
        if (outcome === 'error') this.#opts.log.warn({ error }, 'the heartbeat monitor did not take the ping; pinged again next cycle');
        else this.metrics.heartbeatLastSuccess.set(this.#clock.now() / 1000);
      },
    });
    this.#heartbeat.start();
  }

  /** One heartbeat now (the daemon pings every heartbeat.every); undefined without a heartbeat. */
  heartbeat(): ReturnType<Heartbeat['beat']> | undefined {
    return this.#heartbeat?.beat();
  }

  /**
   * Why avawatch is blind now: a rule whose last evaluation failed, a lookup that keeps
   * failing, an API paused by a 429 or out of budget, the state file, a receiver that takes
   * nothing (its alerts cannot say so themselves). `starting` until every
   * interval rule has been evaluated once. A node whose API does not answer is not blindness:
   * node-health says so itself, with the service's view (and node-metrics' failing reads of it
   * are left out here for the same reason).
   */
  blindness(): string[] | 'starting' {
    const ready = this.readiness();
    if (ready.problems.some((p) => p.startsWith('starting'))) return 'starting';
    const out: string[] = [];
    // A rule that reads the operators' nodes sees a node that is down or odd, not a blind avawatch.
    const services = this.#loaded.rules.filter((r) => !ruleKind(r.kind).selects?.includes('urls'));
    const names = new Set(services.map((r) => r.name));
    out.push(...blindLines(this.failures.failing(1).filter((f) => names.has(f.rule)), (f) => `rule ${f.rule}: its last evaluation failed (${f.error})`));
    for (const rule of services) {
      const entities = this.failures.entities(rule.name);
      const first = entities[0];
      if (first) out.push(`rule ${rule.name}: ${entities.length} lookup(s) failing (${first.entity}: ${first.error})`);
    }
    const nowMs = this.#clock.now();
    for (const [api, limiter] of Object.entries(this.#apis.limiters)) {
      if (limiter.pausedUntil > nowMs) out.push(`${api} API: paused after a 429 until ${new Date(limiter.pausedUntil).toISOString()}`);
      else if (limiter.remainingDay() === 0) out.push(`${api} API: the day's compute units are spent`);
    }
    out.push(...ready.problems.filter((p) => p.startsWith('state file') || p.startsWith('receiver ')));
    return out;
  }

  /** After a committed evaluation (never a failed one): the figures the history keeps, when due. */
  #sample(rule: LoadedRule): void {
    try {
      this.#sampler.sample({
        rule: rule.name,
        gauges: ruleKind(rule.kind).gauges.map((g) => g.name),
        samplesOf: (metric) => this.#engine.ruleSamples(rule.name, metric),
        failing: () => new Set(this.failures.entities(rule.name).map((e) => e.entity)),
        // Samples are kept on the steady clock, as alerts are: sampleEvery and history.keep are ages.
        now: this.#clock.mono(),
        everyMs: this.#loaded.config.history.sampleEvery,
      });
    } catch (err) {
      this.#opts.log.error({ rule: rule.name, error: errorText(err) }, 'could not sample the history; tried again after the next evaluation');
    }
  }

  #stopChannels(): void {
    for (const notifier of this.#notifiers) notifier.stop?.();
  }

  get url(): string | undefined {
    return this.#server?.url;
  }

  /** Evaluates the named rules (all when none) once each, in order. */
  /**
   * "Is it me or the network?": a network's baseline swept between its polls, before the
   * alerts that ask it are committed, at most once per 2 minutes and 30 times a day
   * (engine/on-demand.ts). A sweep that fails leaves the baseline stale: each validator is judged alone.
   */
  async #sweepFirst(networks: readonly string[], signal: AbortSignal): Promise<void> {
    const rules = this.rules.filter((r) => ruleKind(r.kind).baselines !== undefined && networks.some((n) => r.spec['network'] === n || (n === 'fuji' && r.spec['network'] === 'testnet')));
    if (rules.length === 0 || !this.#sweeps.take(this.#clock.mono())) return;
    for (const r of rules) {
      try {
        await this.#engine.evaluate(r, signal);
      } catch {
        // Counted and logged by the engine as the rule's failure.
      }
    }
  }

  async once(names: readonly string[] = []): Promise<{ alerts: AlertMessage[]; failures: Array<{ rule: string; error: unknown }>; results: ValidatorResult[] }> {
    const chosen = names.length === 0 ? this.rules : this.rules.filter((r) => names.includes(r.name));
    const alerts: AlertMessage[] = [];
    const results: ValidatorResult[] = [];
    const failures: Array<{ rule: string; error: unknown }> = [];
    const signal = new AbortController().signal;
    for (const rule of chosen) {
      this.#steps.check();
      try {
        alerts.push(...(await this.#engine.evaluate(rule, signal)));
        const view = this.#engine.view(rule.name);
        if (view) results.push(...validatorResults(rule, view));
        this.#sample(rule);
      } catch (error) {
        failures.push({ rule: rule.name, error });
      }
      // As after a scheduled evaluation: the rule has looked.
      this.#looked.add(rule.name);
    }
    return { alerts, failures, results };
  }

  /** Tears down in reverse order of construction and start. Safe to call twice. */
  async stop(): Promise<void> {
    this.#stopping = true; // a reload under way stops at its next step
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


/** `starting: 2 rules not evaluated yet (a, b)`, naming the first few. */
export function startingText(rules: readonly string[]): string {
  const shown = rules.slice(0, 5).join(', ');
  return `starting: ${rules.length} rule${rules.length === 1 ? '' : 's'} not evaluated yet (${shown}${rules.length > 5 ? ', …' : ''})`;
}

/** A 2xx or an expected 4xx (an unknown node's 404): the API answered. */
function apiAnswered(code: string): boolean {
  return /^[1-4]\d\d$/.test(code) && code !== '429';
}

/** Connections with the deadlines of one API's config. */
function agentOf(o: { connectTimeout: number; timeout: number }, connections: number): Agent {
  return new Agent({ connect: { timeout: o.connectTimeout }, headersTimeout: o.timeout, bodyTimeout: o.timeout, keepAliveTimeout: 30_000, connections });
}

async function closeAgent(agent: Agent, waitMs = AGENT_CLOSE_MS): Promise<void> {
  const closed = agent.close();
  // Sockets close on the host's time, whatever the App's clock runs at.
  const cancel = systemClock.setTimer(() => void agent.destroy(), waitMs);
  await closed.catch(() => undefined);
  cancel();
}
