import type { Pipeline } from '../alerts/pipeline/index.js';
import { firingAlerts } from '../alerts/view.js';
import { ClockSteps } from '../base/clock-steps.js';
import { systemClock, type Clock } from '../base/clock.js';
import type { Logger } from '../base/log.js';
import { formatProblem } from '../base/source.js';
import { VERSION } from '../base/version.js';
import type { AlertMessage, Notifier } from '../channels/types.js';
import { ConfigError, loadConfig, type LoadedConfig, type LoadedRule } from '../config/load.js';
import { watchConfig, type ConfigWatcher } from '../config/watch.js';
import type { Delivery } from '../delivery/delivery.js';
import { errorText, type Engine } from '../engine/engine.js';
import { FAILING_PREFIX, FailureCounts } from '../engine/failing.js';
import { blindness, readiness, type HealthInputs } from '../engine/health.js';
import { OnDemandSweeps, sweepNetworks } from '../engine/on-demand.js';
import { Scheduler } from '../engine/scheduler.js';
import type { Heartbeat } from '../heartbeat/index.js';
import { startPruning } from '../history/prune.js';
import { Sampler } from '../history/sampler.js';
import { createMetrics, type Metrics } from '../metrics/registry.js';
import { ruleKinds } from '../rules/registry.js';
import { startHttpServer, type HttpServer } from '../server/server.js';
import { renderStatusPage } from '../status/page.js';
import type { StatusSnapshot } from '../status/snapshot.js';
import type { StateStore } from '../store/index.js';
import { buildApis, closeApis, type Apis } from './apis.js';
import { buildDelivery, buildEngine, buildHeartbeat, buildNotifiers, ExpressionRunners, forgetReceivers, forgetRuleMetrics, pruneUnconfigured, reanchor, startChannels, StorePing, type Shared } from './parts.js';
import { planReload } from './reload.js';
import { relocateOnReload } from './relocate.js';
import type { ValidatorResult } from './results.js';
import { Runs } from './runs.js';
import { buildKeeper, type ShardKeeper } from './shards.js';
import { appSnapshot, UNREACHABLE } from './status.js';

export interface AppOptions {
  loaded: LoadedConfig;
  log: Logger;
  /** The one clock of every part the App builds (default: the wall clock; rule tests and the demo run on the simulator's). */
  clock?: Clock;
  /** Reads the config again for a reload; throws ConfigError when it is invalid. */
  reload?: () => LoadedConfig;
  /** Reload when the config or a rule file changes on disk. */
  watch?: boolean;
  /** The store `state:` names, opened (composeApp): the App closes it. */
  store: StateStore;
}

// SIGTERM must end within 10 s: evaluations and deliveries get this long, together.
const SHUTDOWN_GRACE_MS = 6_000;

/**
 * The composition root: the only place that builds the HTTP agent, store, metrics, notifiers and
 * scheduler, and wires them. It decides nothing: readiness and blindness are engine/health.ts's,
 * routing the pipeline's (alerts/pipeline/), an evaluation's run app/runs.ts'. A reload swaps the
 * parts its changes touch; the store, the HTTP server and the metrics live as long as the process.
 */
export class App {
  readonly metrics: Metrics;
  readonly store: StateStore;
  /** Consecutive failures per rule: they outlive a reload. */
  readonly failures = new FailureCounts();
  /** Each endpoint rule's expression process (started when first needed, ended when its rule goes). */
  readonly #expressions = new ExpressionRunners();
  readonly #opts: AppOptions;
  readonly #clock: Clock;
  readonly #shared: Shared;
  readonly #teardown: Array<() => Promise<void> | void> = [];
  readonly #runs: Runs;
  readonly #health: HealthInputs;
  readonly #storePing = new StorePing(() => this.store, () => this.#keeper?.problem());
  /** The shards this instance holds of a shared store (none on one machine's SQLite). */
  #keeper: ShardKeeper | undefined;
  #loaded: LoadedConfig;
  #apis: Apis;
  #engine: Engine;
  #pipeline: Pipeline;
  #delivery: Delivery;
  #notifiers: Notifier[];
  #server: HttpServer | undefined;
  #scheduler: Scheduler | undefined;
  /** The on-demand sweeps' cap, kept across reloads. */
  readonly #sweeps = new OnDemandSweeps();
  #watcher: ConfigWatcher | undefined;
  #heartbeat: Heartbeat | undefined;
  #reloading: Promise<boolean> | undefined;
  #stopping = false;
  #reloadAgain = false;

  constructor(opts: AppOptions) {
    this.#opts = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#loaded = opts.loaded;
    const { config } = opts.loaded;
    this.store = opts.store;
    this.#teardown.push(() => this.store.close(), () => this.#expressions.stop());
    this.metrics = createMetrics({
      version: VERSION,
      outboxPending: () => this.#storePing.unlessDown(() => this.store.pendingCount()),
      firing: () => this.#storePing.unlessDown(() => firingAlerts(this.store)),
      ruleSamples: (metric) => this.#engine.samples(metric),
      ruleGauges: Object.values(ruleKinds).flatMap((k) => k.gauges),
      ready: async () => (await this.#storePing.checked(() => this.readiness())).ready,
      budgets: () => Object.entries(this.#apis.limiters).map(([api, limiter]) => ({ api, limiter })),
    });
    this.metrics.configReloadSuccessful.set(1);
    this.metrics.configReloadSuccessTime.set(this.#clock.now() / 1000);
    this.#shared = { store: this.store, metrics: this.metrics, log: opts.log, clock: this.#clock };

    this.#apis = buildApis(config, this.#shared);
    this.#teardown.push(() => closeApis(this.#apis));
    this.#notifiers = buildNotifiers(config);
    this.#delivery = this.#buildDelivery(opts.loaded, this.#notifiers);
    ({ engine: this.#engine, pipeline: this.#pipeline } = this.#buildEngine(opts.loaded, this.#apis, this.#notifiers));
    // Looked at before each evaluation: a step of the wall clock is logged once.
    const steps = new ClockSteps(this.#clock, ({ ms, text }) => {
      this.metrics.clockSteps.inc({ direction: ms < 0 ? 'back' : 'forward' });
      this.#opts.log.warn({ stepMs: ms }, text);
    });
    this.#runs = new Runs({
      engine: () => this.#engine,
      sampler: new Sampler(this.store),
      failures: this.failures,
      steps,
      clock: this.#clock,
      log: opts.log,
      sampleEveryMs: () => this.#loaded.config.history.sampleEvery,
      holds: (rule) => this.#keeper?.holds(rule) ?? true,
    });
    this.#health = {
      // With shared state, the rules this instance holds: the others are another's to evaluate.
      rules: () => this.#loaded.rules.filter((r) => this.#keeper?.holds(r.name) ?? true),
      looked: this.#runs.looked,
      storeProblem: () => this.#keeper?.problem() ?? this.#storePing.problem,
      failures: this.failures,
      failingAfter: () => this.#loaded.config.health.failingAfter,
      deliveryProblems: () => this.#delivery.problems(),
      limiters: () => this.#apis.limiters,
      clock: this.#clock,
    };
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

  get url(): string | undefined {
    return this.#server?.url;
  }

  /** The daemon: delivery, then the HTTP server, then the scheduler. */
  async start(): Promise<void> {
    const { log } = this.#opts;
    const loaded = this.#loaded;
    // The daemon only: `once` beside a running daemon must not move the times it is counting.
    await reanchor(this.#shared);
    await pruneUnconfigured(this.#shared, loaded.rules);
    this.#teardown.push(startPruning({ store: this.store, keepMs: () => this.#loaded.config.history.keep, clock: this.#clock, log }));
    // Shared state (the daemon only): the keeper restores the rules of the shards it takes (app/shards.ts), gives them back at stop.
    this.#keeper = buildKeeper(this.#shared, loaded.config.state.lease, { rules: () => this.#loaded.rules, engine: () => this.#engine });
    if (this.#keeper) await this.#keeper.start(this.#teardown);
    else for (const rule of loaded.rules) await this.#engine.restore(rule);
    this.#server = await startHttpServer(
      loaded.config.server.listen,
      this.metrics,
      {
        alerts: () => firingAlerts(this.store),
        ready: () => this.#storePing.checked(() => this.readiness()),
        statusPage: async () => renderStatusPage(await this.statusSnapshot()),
      },
      { auth: loaded.config.server.auth },
    );
    this.#teardown.push(() => this.#server?.close());
    await this.#delivery.start();
    this.#startChannels();
    const scheduler = new Scheduler({
      log,
      run: (rule, signal) => this.#runs.run(rule, signal),
      onSkip: (rule, runningForMs) => (this.#keeper?.holds(rule.name) === false ? Promise.resolve() : this.#engine.skipped(rule, runningForMs)),
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

  /** What the status page shows: the state /metrics and /api/v1/alerts read, at one moment. */
  statusSnapshot(): Promise<StatusSnapshot> {
    return this.#storePing.checked(() => appSnapshot({ loaded: this.#loaded, store: this.#keeper?.steppedDown() ? UNREACHABLE : this.store, clock: this.#clock, engine: this.#engine, failures: this.failures, metrics: this.metrics, limiters: this.#apis.limiters, ready: () => this.readiness() }));
  }

  /** /readyz (engine/health.ts): every interval rule evaluated once, the state file answers, no rule failing failingAfter in a row, every receiver takes alerts. */
  readiness(): { ready: boolean; problems: string[] } {
    return readiness(this.#health);
  }

  /** Why avawatch is blind now (engine/health.ts): what the heartbeat's fail URL and the page say. */
  blindness(): string[] | 'starting' {
    return blindness(this.#health);
  }

  /** Reads the config again: invalid, logged and the running one stays (gauge 0); valid, rules added, removed, changed in place, removed rules' state pruned. Never two at once. */
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
    const prevPipeline = this.#pipeline;
    const plan = planReload(prev, file);
    const { next, added, removed, modified } = plan;
    for (const key of plan.restartOnly) log.warn({ key }, `${key} changed: it takes effect at the next restart`);

    // Build first: whatever can throw does so before anything changes.
    const apis = plan.apis ? buildApis(next.config, { ...this.#shared, previous: this.#apis }) : this.#apis;
    const notifiers = plan.delivery ? buildNotifiers(next.config) : this.#notifiers;
    const delivery = plan.delivery ? this.#buildDelivery(next, notifiers) : undefined;
    const built = plan.engine ? this.#buildEngine(next, apis, notifiers) : undefined;

    // Nothing evaluates on the old config past this point: a new engine waits for every
    // running evaluation (it routes and fetches differently); otherwise the changed rules'.
    await scheduler.remove(plan.stop);
    if (this.#stopping) return false;
    this.#loaded = next;
    if (apis !== this.#apis) void closeApis(this.#apis, apis);
    this.#apis = apis;
    if (built) ({ engine: this.#engine, pipeline: this.#pipeline } = built);
    else this.#engine.regroup(next.inventory);
    if (delivery) {
      this.#stopChannels();
      const old = this.#delivery;
      await old.stop(SHUTDOWN_GRACE_MS);
      if (this.#stopping) return false;
      delivery.inherit(old);
      await forgetReceivers(this.metrics, this.#notifiers, notifiers);
      this.#delivery = delivery;
      this.#notifiers = notifiers;
      await this.#delivery.start();
      this.#startChannels();
    }
    await this.#relocate(prev, plan.engine ? prev.rules.map((r) => r.name) : [...plan.removed, ...plan.modified].map((r) => r.name), prevPipeline);
    this.#expressions.stop(plan.forget.map((r) => r.name));
    for (const rule of plan.forget) {
      await this.store.pruneRule(rule.name, FAILING_PREFIX + rule.name);
      this.failures.forget(rule.name);
      this.#runs.forget(rule.name);
      this.#engine.forget(rule.name);
      forgetRuleMetrics(this.metrics, rule.name);
    }
    for (const rule of plan.start) if (this.#keeper?.holds(rule.name) ?? true) await this.#engine.restore(rule);
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
  async #relocate(prev: LoadedConfig, rules: readonly string[], before: Pipeline): Promise<void> {
    try {
      const enabled = new Set(this.#notifiers.map((n) => n.name));
      const queued = await relocateOnReload({ store: this.store, prev, next: this.#loaded, rules, before, after: this.#pipeline, enabled, now: this.#clock.mono(), wall: this.#clock.now(), holdsShard: (s) => this.#keeper?.holdsShard(s) ?? true, log: this.#opts.log });
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

  #buildDelivery(loaded: LoadedConfig, notifiers: readonly Notifier[]): Delivery {
    // Always the current engine's incidents, also after a reload swapped it.
    return buildDelivery(loaded.config, loaded.secrets, notifiers, this.#shared, (row) => this.#engine.heldFor(row.message.rule, row.message.conditionKey, row.receiver), () => this.#keeper?.steppedDown() ?? false);
  }

  #buildEngine(loaded: LoadedConfig, apis: Apis, notifiers: readonly Notifier[]): ReturnType<typeof buildEngine> {
    return buildEngine(loaded, this.#shared, {
      apis,
      notifiers,
      failures: this.failures,
      // Always the current delivery and keeper, also after a reload swapped them.
      kick: () => this.#delivery.kick(),
      holdsShard: (shard) => this.#keeper?.holdsShard(shard) ?? true,
      expressionsFor: (rule) => this.#expressions.of(rule),
      configured: () => this.#loaded.rules.map((r) => r.name),
      sweepFirst: (networks, signal) => this.#sweepFirst(networks, signal),
    });
  }

  #startChannels(): void {
    startChannels(this.#notifiers, this.#shared, this.#server ? `${this.#server.url}/api/v1/alerts` : undefined, () => this.#loaded.rules);
  }

  #stopChannels(): void {
    for (const notifier of this.#notifiers) notifier.stop?.();
  }

  /** (Re)starts the dead man's switch from the current config; none without a URL. */
  #startHeartbeat(): void {
    this.#heartbeat?.stop();
    this.#heartbeat = buildHeartbeat(this.#loaded, this.#shared, () => this.#storePing.checked(() => this.blindness()));
    this.#heartbeat?.start();
  }

  /** One heartbeat now (the daemon pings every heartbeat.every); undefined without a heartbeat. */
  heartbeat(): ReturnType<Heartbeat['beat']> | undefined {
    return this.#heartbeat?.beat();
  }

  /** "Is it me or the network?" (engine/on-demand.ts): capped across reloads. */
  #sweepFirst(networks: readonly string[], signal: AbortSignal): Promise<void> {
    return sweepNetworks({ rules: this.rules, networks, sweeps: this.#sweeps, monoMs: this.#clock.mono(), evaluate: (r) => this.#engine.evaluate(r, signal) });
  }

  /** Evaluates the named rules (all when none) once each, in order (app/runs.ts). */
  once(names: readonly string[] = []): Promise<{ alerts: AlertMessage[]; failures: Array<{ rule: string; error: unknown }>; results: ValidatorResult[] }> {
    return this.#runs.once(names.length === 0 ? this.rules : this.rules.filter((r) => names.includes(r.name)));
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
