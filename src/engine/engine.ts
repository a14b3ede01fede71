import { linkedSignal } from '../base/abort.js';
import { monoOf, type Clock } from '../base/clock.js';
import { formatElapsed } from '../base/duration.js';
import { requestContext } from '../api/context.js';
import { advance, readActive, reminderDraft, type ActiveAlert, type LifecycleOptions } from '../alerts/lifecycle.js';
import { planNotifications } from '../alerts/receivers.js';
import { alertLabels, mute } from '../alerts/pipeline.js';
import type { TimeIntervalConfig } from '../config/schema.js';
import type { Target } from '../alerts/route.js';
import type { DataApi } from '../api/data/index.js';
import type { MetricsApi } from '../api/metrics-api.js';
import type { NodeApi } from '../api/node-api.js';
import type { LoadedRule } from '../config/load.js';
import type { Logger } from '../base/log.js';
import type { Metrics } from '../metrics/registry.js';
import type { AlertMessage } from '../base/types.js';
import { ruleKind } from '../rules/registry.js';
import type { ExpressionRunner } from '../rules/endpoint/runner.js';
import type { AlertDraft, Condition, GaugeSample, News, Severity } from '../base/types.js';
import { entityFailingCondition, FAILING_ALERTNAME, FAILING_PREFIX, failingCondition, type FailureCounts } from './failing.js';
import { CAUSE_PREFIX, CAUSE_RULE, causeCondition, causeKey, causeOf, listedRules, type CauseRun } from './cause.js';
import { StateConflictError, StateDiff, StoreError, type NewAlert, type Silence, type StateStore } from '../store/index.js';
import { scrubCondition, scrubDraft, scrubResolution, scrubState } from './scrub.js';
import { nameResolution, nameValidator } from '../inventory/name.js';
import { periodMs } from '../base/schedule.js';
import type { RuleMemo } from '../rules/types.js';
import { ruleMemo } from './memo.js';
import { INCIDENT_ALERTNAME, INCIDENT_PREFIX, incidentCondition, listedValidators } from '../incidents/condition.js';
import type { Incident } from '../incidents/types.js';
import type { IncidentTracker, NetworkBaseline } from './incidents.js';
import { eventScope, networksToAsk, patient, withScopes } from './scope.js';

export interface EngineDeps {
  store: StateStore;
  data: DataApi;
  metricsApi: MetricsApi;
  /** The operator's own nodes' APIs (the kinds that read a node need it). */
  node?: NodeApi;
  metrics: Metrics;
  log: Logger;
  /** Where an alert with these labels is queued (enabled receivers only). */
  targetsFor: (rule: LoadedRule, labels: Record<string, string>) => readonly Target[];
  /** The digest slot a notification of this severity waits for at this receiver, if it has a digest. */
  digestAt?: (receiver: string, severity: string, now: number) => number | undefined;
  /** Route-wide default of repeatInterval (ms). */
  repeatIntervalMs: number;
  timeIntervals: readonly TimeIntervalConfig[];
  /** Consecutive failures per rule; kept by the app across reloads. */
  failures: FailureCounts;
  /** Failures in a row that fire rule-failing. */
  failingAfter: number;
  failingSeverity: Severity;
  /** Removes secrets from text before it is stored or sent: rule failures, alerts, states. */
  redact: (text: string) => string;
  /** Called after a commit that queued notifications. */
  onQueued?: () => void;
  /** The rule's own expression process (kept by the app across reloads); endpoint rules need one. */
  expressionsFor?: (rule: string) => ExpressionRunner;
  /** The App's clock: observations are judged on its wall, alerts and outbox rows kept on its steady reading. */
  clock: Clock;
  /** The rules configured now (default: those restored): a cause's alert waits for those it listed that have not evaluated here yet. */
  configured?: () => Iterable<string>;
  /** Incidents (issue 40): which active alerts are one incident, and the baselines they are judged on. */
  incidents?: IncidentTracker;
  /** A child that may be network-wide appeared and the network's baseline is old: sweep it now, before the child is committed (capped by the app). */
  sweepFirst?: (networks: readonly string[], signal: AbortSignal) => Promise<void>;
}

/**
 * fetch → evaluate (pure) → commit. A failure anywhere before the commit changes no state
 * and produces no alert: it is counted as a failed evaluation, never read as a change.
 */
/** Evaluations of one tick, when other processes keep committing the same rule. */
const MAX_CONFLICT_RETRIES = 3;

export class Engine {
  readonly #deps: EngineDeps;
  /** Each rule's committed states, kept between evaluations while no other process writes the file. */
  readonly #cache = new Map<string, CachedStates>();
  /** What each rule's gauges are made from; the samples are made when /metrics asks. */
  readonly #views = new Map<string, RuleView>();
  /** Rules with a rule-failing alert in the store (firing, or pending its resolution). */
  readonly #failingStored = new Set<string>();
  /** What each rule's kind derived from its spec: per loaded rule, so a reload starts afresh. */
  readonly #memos = new WeakMap<LoadedRule, RuleMemo>();
  /** Causes with an alert in the store (engine/cause.ts); read from the store at first use. */
  #causesStored: Set<string> | undefined;
  /** Rules restored (configured in the daemon), and those evaluated since: a cause's alert from before a restart waits for its rules. */
  readonly #restored = new Set<string>();
  readonly #evaluated = new Set<string>();
  /** The receivers each rule names itself (a cause's alert falls back to them when the route tree has none). */
  readonly #ownReceivers = new Map<string, readonly string[]>();
  /** Incidents with an alert in the store; read from the store at first use. */
  #incidentsStored: Set<string> | undefined;

  constructor(deps: EngineDeps) {
    this.#deps = deps;
  }

  #now(): Date {
    return new Date(this.#deps.clock.now());
  }

  /** One gauge's samples over every rule, from committed state. */
  *samples(metric: string): Iterable<GaugeSample> {
    for (const view of this.#views.values()) yield* this.#viewSamples(view, metric);
  }

  /** One rule's samples of a gauge, from its committed state (made once per commit, shared with /metrics). */
  ruleSamples(rule: string, metric: string): readonly GaugeSample[] {
    const view = this.#views.get(rule);
    return view ? this.#viewSamples(view, metric) : [];
  }

  #viewSamples(view: RuleView, metric: string): readonly GaugeSample[] {
    view.byMetric ??= byMetric(view.rule.name, ruleKind(view.rule.kind).samples(view.rule.spec, view.states, view.at));
    return view.byMetric.get(metric) ?? [];
  }

  #memoOf(rule: LoadedRule): RuleMemo {
    let memo = this.#memos.get(rule);
    if (memo === undefined) this.#memos.set(rule, (memo = ruleMemo()));
    return memo;
  }

  #expressionsOf(rule: LoadedRule): { expressions?: ExpressionRunner } {
    const expressions = this.#deps.expressionsFor?.(rule.name);
    return expressions ? { expressions } : {};
  }

  /** Sets a rule's gauges from what the store holds (at start, before its first poll). */
  restore(rule: LoadedRule): void {
    const { metrics } = this.#deps;
    // Counters exist at 0 from the start, so increase() sees the first failure.
    for (const c of [metrics.ruleEvaluations, metrics.ruleFailures, metrics.ruleEntityFailures]) c.inc({ rule: rule.name }, 0);
    metrics.ruleFailingEntities.set({ rule: rule.name }, this.#deps.failures.entities(rule.name).length);
    const states = this.#loadStates(rule).states;
    this.#views.set(rule.name, { rule, states, at: this.#now() });
    if (this.#deps.store.loadActive(FAILING_PREFIX + rule.name).length > 0) this.#failingStored.add(rule.name);
    const incidents = this.#deps.incidents;
    if (incidents) {
      incidents.restored(ruleKind(rule.kind).baselines?.(rule.spec, states) ?? []);
      incidents.update(rule.name, incidents.childrenOf(rule, this.#loadActive(rule)));
    }
    this.#restored.add(rule.name);
    this.#deps.metrics.ruleConsecutiveFailures.set({ rule: rule.name }, this.#deps.failures.count(rule.name));
  }

  /** The rule's committed states and its entities that failed, as of its last evaluation. */
  view(ruleName: string): { states: ReadonlyMap<string, unknown>; failed: Readonly<Record<string, string>> } | undefined {
    const view = this.#views.get(ruleName);
    return view && { states: view.states, failed: view.failed ?? {} };
  }

  forget(ruleName: string): void {
    this.#views.delete(ruleName);
    this.#cache.delete(ruleName);
    this.#failingStored.delete(ruleName);
    this.#restored.delete(ruleName);
    this.#deps.incidents?.forget(ruleName);
  }

  /** The inventory changed (a reload that keeps this engine): its groups are made again. */
  regroup(inventory: Parameters<IncidentTracker['regroup']>[0]): void {
    this.#deps.incidents?.regroup(inventory);
  }

  /** The network baselines, with their age on the steady clock (the page). */
  baselines(): NetworkBaseline[] {
    return this.#deps.incidents?.baselines(this.#deps.clock.mono()) ?? [];
  }

  /** Why a firing notification of this alert is held back from this receiver now (its incident fires there), if it is. */
  heldFor(rule: string, conditionKey: string | undefined, receiver: string): string | undefined {
    return this.#deps.incidents?.heldFor(rule, conditionKey, receiver);
  }

  /** Evaluates one rule and commits; returns the alerts it produced. Throws on failure. */
  async evaluate(rule: LoadedRule, signal: AbortSignal): Promise<AlertMessage[]> {
    const { metrics, log } = this.#deps;
    metrics.ruleEvaluations.inc({ rule: rule.name });
    // Its own signal: whatever an observation leaves running (a sibling lookup, a retry
    // wait) is cancelled when the evaluation ends, so nothing outlives it.
    const own = linkedSignal(signal);
    try {
      // Another process (once --send beside the daemon) committed this rule meanwhile:
      // what was found is dropped and the rule evaluated again from what is stored now.
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.#evaluateOnce(rule, signal, own.signal);
        } catch (err) {
          if (!(err instanceof StateConflictError) || attempt >= MAX_CONFLICT_RETRIES) throw err;
          this.#cache.delete(rule.name);
          log.info({ rule: rule.name, attempt }, 'another process committed this rule meanwhile; its alerts are dropped and it is evaluated again');
        }
      }
    } catch (err) {
      // Shutdown or reload aborted it: not the rule's fault.
      if (!signal.aborted) {
        metrics.ruleFailures.inc({ rule: rule.name });
        log.warn({ rule: rule.name, error: errorText(err) }, 'rule evaluation failed; state unchanged');
        this.#failed(rule, err);
      }
      throw err;
    } finally {
      own.abort();
      own.dispose();
    }
  }

  async #evaluateOnce(rule: LoadedRule, signal: AbortSignal, ownSignal: AbortSignal): Promise<AlertMessage[]> {
    const { data, metricsApi, metrics } = this.#deps;
    const kind = ruleKind(rule.kind);
    const cached = this.#loadStates(rule);
    const revision = cached.revision;
    const previous = cached.states;
    const observedAt = this.#now();
    // An urgent alert's short wait (store/outbox.ts) counts from here, the poll, not the commit.
    const startedAt = this.#deps.clock.mono();
    // A shared answer must be fresh for this rule too: younger than half its interval.
    const context = { severity: rule.severity, maxAgeMs: (periodMs(rule.schedule) ?? Infinity) / 2 };
    const observation: unknown = await requestContext.run(context, () =>
      kind.observe(rule.spec, { data, metrics: metricsApi, ...(this.#deps.node ? { node: this.#deps.node } : {}), signal: ownSignal, now: observedAt, steadyMs: this.#deps.clock.mono(), previous, memo: this.#memoOf(rule), ...this.#expressionsOf(rule) }),
    );
    signal.throwIfAborted();
    const now = this.#now();
    const evaluation = kind.evaluate(previous, observation, now, rule.spec);
    // Not `states`: read only when needed (a kind that says what changed makes it only if read).
    const { changed, alerts: events, conditions, failed = {}, resolvedAs } = evaluation;
    // State alerts: what holds now, diffed against what was firing.
    // Conditions carry their effective severity and labels, so a stored alert reads whole.
    const effective = conditions?.map((raw) => {
      const c = nameValidator(rule.validators, raw);
      const severity = severityOf(rule, c);
      return scrubCondition({ ...c, severity, labels: alertLabels(rule, c.labels, severity) }, this.#deps.redact);
    });
    const resolved = resolvedAs && ((key: string) => scrubResolution(nameResolution(rule.validators, resolvedAs(key)), this.#deps.redact));
    // `for:`, keepFiringFor and reminders count on the steady clock; the kind judged on the wall.
    const before = effective ? this.#loadActive(rule) : [];
    if (effective) await this.#askNetwork(rule, effective, before, ownSignal);
    const advanced = effective && advance(before, effective, this.#deps.clock.mono(), this.#lifecycleOptions(rule), resolved);
    const lifecycle = advanced && this.#deps.incidents ? withScopes(this.#deps.incidents, rule, advanced, before, this.#deps.clock.mono()) : advanced;
    const alerts = [...events, ...(lifecycle?.notifications ?? [])];
    // Only the states that changed are written; the rest are as the file has them.
    // A state may keep the service's text (an error message): scrubbed as the alerts are.
    // The cache is updated in place, only where a state changed: at 100k entities a new record
    // and map of every state each cycle were most of its work. Until the commit holds it is
    // not what the file has, so any failure drops it and the file is read again.
    // An evaluation of the same rule in this process committed meanwhile (`once` beside the
    // schedule): the kept states changed under this one, which is evaluated again.
    if (this.#cache.get(rule.name) !== cached || cached.revision !== revision) throw new StateConflictError(`the state of rule "${rule.name}" changed since it was read (revision ${revision} → ${cached.revision})`);
    const { states, json } = cached;
    const storedCount = json.size;
    const upsert: Array<[string, string]> = [];
    let kept = 0;
    let messages: AlertMessage[];
    // The kind told which states are new (every other is the very one kept, none left out; see
    // rules/next-states.ts), and each kept one's stored text is its JSON: those alone are
    // encoded, compared and written, and nothing is removed. Otherwise every state is.
    const partial = changed !== undefined && cached.exact;
    const evaluated = partial ? changed : evaluation.states;
    try {
      for (const [entity, raw] of evaluated) {
        // `states` is `previous` (the cache), and holds an entity exactly when `json` does.
        const before = states.get(entity);
        if (before !== undefined || json.has(entity)) kept++;
        // The very state the cache holds (the kind changed nothing): its stored text, already
        // scrubbed; nothing to encode, compare or write.
        if (before !== undefined && cached.exact && raw === before) continue;
        const stored = json.get(entity);
        const text = JSON.stringify(raw);
        // As stored (and the stored text was scrubbed): nothing in it to scrub, nothing to write.
        if (text === stored) {
          states.set(entity, raw);
          continue;
        }
        const clean = scrubState(raw, this.#deps.redact, text);
        states.set(entity, clean.state);
        json.set(entity, clean.json);
        if (stored !== clean.json) upsert.push([entity, clean.json]);
      }
      // Every stored entity evaluated again: nothing to remove, no walk over the stored ones.
      const remove: string[] = [];
      if (!partial && kept !== storedCount) for (const entity of json.keys()) if (!evaluated.has(entity)) remove.push(entity);
      for (const entity of remove) {
        json.delete(entity);
        states.delete(entity);
      }
      // Every state left was evaluated now: its text is exactly its JSON.
      cached.exact = true;
      const diff = new StateDiff(upsert, remove, { version: cached.version, all: json });
      messages = this.#commit(rule, rule.name, diff, alerts, lifecycle?.active, now, revision, startedAt);
    } catch (err) {
      this.#cache.delete(rule.name);
      throw err;
    }
    // Another process wrote meanwhile: read the file again next time.
    if (this.#deps.store.dataVersion() === cached.version) cached.revision += 1;
    else this.#cache.delete(rule.name);
    // The service's error text, as shown by once --json: scrubbed as the log's is.
    this.#views.set(rule.name, { rule, states, at: now, failed: Object.fromEntries(Object.entries(failed).map(([id, why]) => [id, this.#deps.redact(why)])) });
    metrics.ruleLastSuccess.set({ rule: rule.name }, now.getTime() / 1000);
    // The incidents' alerts are this evaluation's news too (`once` and rule tests show them).
    messages.push(...this.#incidentsAfter(rule, lifecycle?.active, states, startedAt, now));
    this.#settled(rule, failed, now);
    return messages;
  }

  /**
   * Routes the alerts, records per-receiver mutes and reminders, and commits states, alerts
   * and active alerts in one transaction under `storeRule`.
   */
  #commit(rule: LoadedRule, storeRule: string, states: StateDiff, events: AlertDraft[], lifecycleActive: ActiveAlert[] | undefined, now: Date, expectRevision?: number, startedAt?: number): AlertMessage[] {
    const { store, redact, incidents } = this.#deps;
    // Rows and alert times on the steady clock (delivery ages them on it); silences and mutes are a person's times, on the wall.
    const steady = this.#deps.clock.mono();
    const silences = store.silences(now.getTime());
    // The one place alerts are made: whatever any path put in them, no secret is stored or sent.
    const { planned, active } = planNotifications({
      drafts: events.map((d) => scrubDraft(nameValidator(rule.validators, { ...d, severity: severityOf(rule, d) }), redact)),
      // Active alerts hold conditions scrubbed before the lifecycle (or when they were stored).
      active: lifecycleActive,
      now: steady,
      labelsOf: (a) => eventScope(incidents, a, alertLabels(rule, a.labels, a.severity ?? rule.severity)),
      targetsFor: (labels) => this.targets(rule, labels, now, silences),
      repeatMs: (t) => repeatOf(rule, t),
      ...(incidents ? { held: (key: string, receiver: string) => incidents.heldFor(storeRule, key, receiver) } : {}),
    });
    const drafts: NewAlert[] = planned.map(({ draft: a, labels, targets }) => ({
      rule: rule.name,
      kind: a.labels['alertname'] === FAILING_ALERTNAME ? FAILING_ALERTNAME : rule.kind,
      status: a.status,
      severity: a.severity ?? rule.severity,
      subject: a.subject,
      summary: a.summary,
      labels,
      details: a.details,
      ...(a.conditionKey === undefined ? {} : { conditionKey: a.conditionKey }),
      // A reminder, or the notification owed once a mute ends: the alert fired already, the history shows it once.
      ...(a.reminder || a.onlyReceivers ? { reminder: true } : {}),
      targets: incidents ? patient(incidents, rule, a, targets) : targets,
    }));
    const ids = store.commitEvaluation(storeRule, states, drafts, steady, active, expectRevision, startedAt);
    if (drafts.some((d) => d.targets.length > 0)) this.#deps.onQueued?.();
    const at = now.toISOString();
    return drafts.map((d, i) => {
      // The condition key is for channels (read back from the outbox), not `once --json`.
      const { targets: _t, conditionKey: _k, ...message } = d;
      return { ...message, alertId: ids[i] ?? 0, at };
    });
  }

  /**
   * A tick skipped because the rule's last evaluation is still running (held by a
   * rate-limit pause, or a slow API): counted as a failed evaluation, so a held rule is
   * never silently blind.
   */
  skipped(rule: LoadedRule, runningForMs: number): void {
    const { metrics } = this.#deps;
    metrics.ruleEvaluations.inc({ rule: rule.name });
    metrics.ruleFailures.inc({ rule: rule.name });
    this.#failed(rule, new Error(`evaluation skipped: the previous one has been running for ${formatElapsed(Math.max(1000, runningForMs))}, past the rule's interval`), true);
  }

  /** Counts the failure; at failingAfter in a row, rule-failing fires (or reminds). */
  #failed(rule: LoadedRule, err: unknown, skipped = false): void {
    const { failures, failingAfter, failingSeverity, metrics, log } = this.#deps;
    const now = this.#now();
    const run = failures.failed(rule.name, this.#deps.redact(errorText(err)), now.getTime(), skipped, skipped ? undefined : causeOf(err));
    metrics.ruleConsecutiveFailures.set({ rule: rule.name }, run.count);
    this.#seen(rule);
    try {
      this.#resend(rule, now);
    } catch (e) {
      log.error({ rule: rule.name, error: errorText(e) }, 'could not queue the firing alerts again for the receivers that expire them');
    }
    this.#syncCauses(now);
    // Failing for a cause outside the rule: the cause's one alert says it (an alert of the
    // rule's own, from before, stays until the rule evaluates again).
    if (run.count < failingAfter || run.cause !== undefined) return;
    try {
      // Entities that were failing before stay as they were: this evaluation saw none of them.
      this.#advanceFailing(rule, [failingCondition(rule, run, failingSeverity), ...this.#entityConditions(rule, failures.entities(rule.name))], now);
    } catch (e) {
      log.error({ rule: rule.name, error: errorText(e) }, 'could not record the rule-failing alert');
    }
  }

  /**
   * A failed poll is no resolution: what fires still reaches, on time, the receivers that
   * forget a firing alert they stop hearing of (Alertmanager's resendInterval), as reminder
   * rows. Nothing else changes.
   */
  #resend(rule: LoadedRule, now: Date): void {
    for (const storeRule of [rule.name, FAILING_PREFIX + rule.name]) {
      const active = this.#loadActive(rule, storeRule);
      const drafts = active.flatMap((a) => {
        if (a.state !== 'firing') return [];
        const receivers = this.#deps.targetsFor(rule, a.condition.labels).filter((t) => t.resendMs !== undefined).map((t) => t.receiver);
        return receivers.length > 0 ? [{ ...reminderDraft(a.condition, a.startedAt), onlyReceivers: receivers }] : [];
      });
      if (drafts.length > 0) this.#commit(rule, storeRule, new StateDiff([], []), drafts, active, now);
    }
  }

  /**
   * After a committed evaluation: the rule's own failure run ends; each entity whose lookup
   * failed is counted, named in a warning, and fires rule-failing at failingAfter in a row.
   */
  #settled(rule: LoadedRule, failed: Readonly<Record<string, string>>, now: Date): void {
    const { failures, metrics, log, redact } = this.#deps;
    const ids = Object.keys(failed);
    const reasons = Object.fromEntries(ids.map((id) => [id, redact(failed[id] ?? '')]));
    metrics.ruleFailingEntities.set({ rule: rule.name }, ids.length);
    if (ids.length > 0) {
      metrics.ruleEntityFailures.inc({ rule: rule.name }, ids.length);
      log.warn({ rule: rule.name, failed: reasons }, `lookups failed for ${ids.length} entit${ids.length === 1 ? 'y' : 'ies'} (${ids.join(', ')}); their state is kept, the rest was evaluated`);
    }
    const wasFailing = failures.count(rule.name) > 0;
    failures.succeeded(rule.name);
    metrics.ruleConsecutiveFailures.set({ rule: rule.name }, 0);
    const conditions = this.#entityConditions(rule, failures.entitiesEvaluated(rule.name, reasons, now.getTime()));
    this.#seen(rule);
    this.#syncCauses(now);
    if (conditions.length === 0 && !wasFailing && !this.#failingStored.has(rule.name)) return;
    try {
      this.#advanceFailing(rule, conditions, now);
    } catch (e) {
      log.error({ rule: rule.name, error: errorText(e) }, 'could not update the rule-failing alert');
    }
  }

  /**
   * Each cause's one alert (engine/cause.ts), after any rule's evaluation: it fires when one
   * of its rules has failed failingAfter times in a row, lists every rule failing for it, and
   * resolves once none is: a rule joining or recovering meanwhile only updates its details.
   */
  #syncCauses(now: Date): void {
    const { failures, store, log } = this.#deps;
    this.#causesStored ??= new Set(store.ruleNames().filter((n) => n.startsWith(CAUSE_PREFIX)).map((n) => n.slice(CAUSE_PREFIX.length)));
    const groups = new Map<string, CauseRun[]>();
    for (const f of failures.failing(1)) {
      if (f.cause === undefined) continue;
      const list = groups.get(f.cause.key) ?? [];
      list.push({ ...f, cause: f.cause });
      groups.set(f.cause.key, list);
    }
    for (const key of new Set([...groups.keys(), ...this.#causesStored])) {
      try {
        this.#advanceCause(key, groups.get(key) ?? [], now);
      } catch (e) {
        log.error({ cause: key, error: errorText(e) }, 'could not update the alert of rules that cannot see');
      }
    }
  }

  /** The rule was evaluated here (a cause's alert waits for no more of it), with the receivers it names now. */
  #seen(rule: LoadedRule): void {
    this.#evaluated.add(rule.name);
    if (rule.receivers) this.#ownReceivers.set(rule.name, rule.receivers);
    else this.#ownReceivers.delete(rule.name);
  }

  #advanceCause(key: string, runs: readonly CauseRun[], now: Date): void {
    const { failingAfter, failingSeverity, redact } = this.#deps;
    const storeRule = CAUSE_PREFIX + key;
    // avawatch's own alert: routed by its labels (the route tree), not by one rule's receivers.
    let rule = { name: CAUSE_RULE, kind: FAILING_ALERTNAME, severity: failingSeverity, labels: {} } as unknown as LoadedRule;
    const active = this.#loadActive(rule, storeRule);
    const was = active.find((a) => a.key === causeKey(key));
    // Fires at the threshold; once firing, it holds until every rule of it evaluates again. Its
    // rules' runs are in memory: after a restart (or in `once` beside the daemon), those it
    // listed are waited for, not read as recovered.
    const configured = new Set(this.#deps.configured?.() ?? this.#restored);
    const waiting = listedRules(was?.condition).filter((r) => configured.has(r) && !this.#evaluated.has(r));
    const holds = runs.some((r) => r.count >= failingAfter) || (was?.state === 'firing' && (runs.length > 0 || waiting.length > 0));
    if (!holds && active.length === 0) return;
    const condition = runs.length > 0 ? scrubCondition(causeCondition(runs, listedRules(was?.condition), failingSeverity), redact) : was?.condition;
    const conditions = holds && condition ? [condition] : [];
    // A tree that routes it nowhere (every rule names its receivers, the root none): the receivers its rules name, so an outage is never heard by no one.
    if (condition && this.#deps.targetsFor(rule, condition.labels).length === 0) {
      const own = [...new Set([...runs.map((r) => r.rule), ...listedRules(was?.condition)].flatMap((r) => this.#ownReceivers.get(r) ?? []))];
      if (own.length > 0) rule = { ...rule, receivers: own };
    }
    const repeatMs = (c: Condition) => this.#shortestRepeat(rule, c.labels);
    const lifecycle = advance(active, conditions, this.#deps.clock.mono(), { forMs: 0, keepFiringForMs: 0, repeatMs, sendResolved: true });
    this.#commit(rule, storeRule, new StateDiff([], []), lifecycle.notifications, lifecycle.active, now);
    if (lifecycle.active.length > 0) this.#causesStored?.add(key);
    else this.#causesStored?.delete(key);
  }

  /** New news the network may share, on an old baseline: the network is asked (swept) before the news is judged. */
  async #askNetwork(rule: LoadedRule, conditions: readonly Condition[], before: readonly ActiveAlert[], signal: AbortSignal): Promise<void> {
    const { incidents, sweepFirst } = this.#deps;
    const networks = incidents && sweepFirst ? networksToAsk(incidents, rule, conditions, before, this.#deps.clock.mono()) : [];
    if (networks.length === 0) return;
    await sweepFirst?.(networks, signal);
    signal.throwIfAborted();
  }

  /** After a rule's commit: its children and baselines, then every incident. Never fails the evaluation: it is committed. */
  #incidentsAfter(rule: LoadedRule, active: readonly ActiveAlert[] | undefined, states: ReadonlyMap<string, unknown>, startedAt: number, now: Date): AlertMessage[] {
    const incidents = this.#deps.incidents;
    if (!incidents) return [];
    try {
      if (active) incidents.update(rule.name, incidents.childrenOf(rule, active));
      const baselines = ruleKind(rule.kind).baselines?.(rule.spec, states);
      if (baselines) incidents.swept(baselines, startedAt);
      return this.#syncIncidents(now);
    } catch (e) {
      this.#deps.log.error({ rule: rule.name, error: errorText(e) }, 'could not update the incidents');
      return [];
    }
  }

  /** Each incident's one alert: fires when detection raises it, lists its validators, resolves when its last child does. */
  #syncIncidents(now: Date): AlertMessage[] {
    const { incidents, store, log } = this.#deps;
    if (!incidents) return [];
    if (!this.#incidentsStored) {
      this.#incidentsStored = new Set(store.ruleNames().filter((n) => n.startsWith(INCIDENT_PREFIX)).map((n) => n.slice(INCIDENT_PREFIX.length)));
      // After a restart: those that fired hold on while their members do.
      for (const row of [...this.#incidentsStored].flatMap((key) => store.loadActive(INCIDENT_PREFIX + key))) {
        const a = readActive(row);
        if (!('invalid' in a) && a.state === 'firing') incidents.resume(a.condition);
      }
    }
    const raised = new Map(incidents.incidents(this.#deps.clock.mono()).map((i) => [i.key, i]));
    let ended = false;
    const out: AlertMessage[] = [];
    for (const key of new Set([...raised.keys(), ...this.#incidentsStored])) {
      try {
        const step = this.#advanceIncident(key, raised.get(key), now);
        out.push(...step.messages);
        ended ||= step.ended;
      } catch (e) {
        log.error({ incident: key, error: errorText(e) }, 'could not update the alert of an incident');
      }
    }
    if (ended) out.push(...this.#replanHeld(now));
    return out;
  }

  /** Its notifications, and whether its alert stopped firing (its held children are owed their notification). */
  #advanceIncident(key: string, incident: Incident | undefined, now: Date): { messages: AlertMessage[]; ended: boolean } {
    const incidents = this.#deps.incidents as IncidentTracker;
    const storeRule = INCIDENT_PREFIX + key;
    const rule = { name: CAUSE_RULE, kind: INCIDENT_ALERTNAME, severity: incident?.severity ?? 'warning', labels: {} } as unknown as LoadedRule;
    const active = this.#loadActive(rule, storeRule);
    const was = active.find((a) => a.key === key);
    if (!incident && active.length === 0) {
      this.#incidentsStored?.delete(key);
      return { messages: [], ended: false };
    }
    let condition = incident && scrubCondition(incidentCondition(incident, listedValidators(was?.condition)), this.#deps.redact);
    // Its labels as it fired (a worse member changes its text, never its identity).
    if (condition && was?.state === 'firing') condition = { ...condition, labels: was.condition.labels, severity: was.condition.severity };
    const repeatMs = (c: Condition) => this.#shortestRepeat(rule, c.labels);
    const lifecycle = advance(active, condition ? [condition] : [], this.#deps.clock.mono(), { forMs: 0, keepFiringForMs: 0, repeatMs, sendResolved: true });
    const messages = this.#commit(rule, storeRule, new StateDiff([], []), lifecycle.notifications, lifecycle.active, now);
    const after = lifecycle.active.find((a) => a.key === key);
    if (after?.state === 'firing' && incident && condition) {
      // Held only from the receivers it reaches now (a silenced incident holds nothing back there).
      const receivers = this.targets(rule, condition.labels, now).filter((t) => !t.mutedBy).map((t) => t.receiver);
      incidents.firing(incident, receivers, condition.summary);
    } else if (incident) incidents.firing(incident, undefined, '');
    else incidents.firing({ key } as Incident, undefined, '');
    if (lifecycle.active.length > 0) this.#incidentsStored?.add(key);
    else this.#incidentsStored?.delete(key);
    return { messages, ended: was?.state === 'firing' && after?.state !== 'firing' };
  }

  /** An incident ended: its children still firing are notified now to the receivers they were held from, not at their next poll. */
  #replanHeld(now: Date): AlertMessage[] {
    const out: AlertMessage[] = [];
    for (const view of this.#views.values()) {
      const { rule } = view;
      const active = this.#loadActive(rule);
      if (!active.some((a) => a.state === 'firing' && a.mutedReceivers.length > 0)) continue;
      try {
        out.push(...this.#commit(rule, rule.name, new StateDiff([], []), [], active, now));
        const cached = this.#cache.get(rule.name);
        if (cached && this.#deps.store.dataVersion() === cached.version) cached.revision += 1;
      } catch (e) {
        this.#deps.log.error({ rule: rule.name, error: errorText(e) }, 'could not notify the alerts an incident held back');
      }
    }
    return out;
  }

  #entityConditions(rule: LoadedRule, runs: ReturnType<FailureCounts['entities']>): Condition[] {
    const { failingAfter, failingSeverity } = this.#deps;
    return runs.filter((r) => r.count >= failingAfter).map((r) => entityFailingCondition(rule, r, failingSeverity));
  }

  #advanceFailing(rule: LoadedRule, conditions: Condition[], now: Date): void {
    const storeRule = FAILING_PREFIX + rule.name;
    const { forMs: _f, keepFiringForMs: _k, ...o } = this.#lifecycleOptions(rule);
    const scrubbed = conditions.map((c) => scrubCondition(nameValidator(rule.validators, c), this.#deps.redact));
    const lifecycle = advance(this.#loadActive(rule, storeRule), scrubbed, this.#deps.clock.mono(), { ...o, forMs: 0, keepFiringForMs: 0, sendResolved: true });
    this.#commit(rule, storeRule, new StateDiff([], []), lifecycle.notifications, lifecycle.active, now);
    if (lifecycle.active.length > 0) this.#failingStored.add(rule.name);
    else this.#failingStored.delete(rule.name);
  }

  /** Where an alert with these labels goes now, each target with why it is muted, if it is. */
  targets(rule: LoadedRule, labels: Record<string, string>, now: Date, silences: readonly Silence[] = this.#deps.store.silences(now.getTime())): Target[] {
    return this.#deps.targetsFor(rule, labels).map((t) => {
      const mutedBy = mute(labels, t.muteTimeIntervals, silences, this.#deps.timeIntervals, now);
      // The slot is the wall's (a person's schedule); the row waits for it on the steady clock.
      const slot = this.#deps.digestAt?.(t.receiver, labels['severity'] ?? '', now.getTime());
      const digestAt = slot === undefined ? undefined : monoOf(this.#deps.clock, slot);
      return { ...t, ...(mutedBy ? { mutedBy } : {}), ...(digestAt === undefined ? {} : { digestAt }) };
    });
  }

  #lifecycleOptions(rule: LoadedRule): LifecycleOptions {
    // A kind with its own `for` (metric-threshold's series window) already waits in the series.
    const ownFor = ruleKind(rule.kind).ownsFor === true;
    // `for` counts a poll within half an interval (jitter never costs one more poll).
    const pollMs = periodMs(rule.schedule);
    return {
      forMs: ownFor ? 0 : (rule.for ?? 0),
      ...(pollMs === undefined ? {} : { pollMs }),
      keepFiringForMs: rule.keepFiringFor ?? 0,
      // The shortest interval among the condition's receivers; each then filters for its own.
      repeatMs: (c) => this.#shortestRepeat(rule, c.labels),
      sendResolved: rule.sendResolved ?? true,
    };
  }

  #shortestRepeat(rule: LoadedRule, labels: Record<string, string>): number {
    const targets = this.#deps.targetsFor(rule, labels);
    // No receiver (rule tests, a disabled receiver): the root route's interval still paces it.
    if (targets.length === 0) return rule.repeatInterval ?? this.#deps.repeatIntervalMs;
    const repeats = targets.map((t) => repeatOf(rule, t)).filter((ms) => ms > 0);
    return repeats.length > 0 ? Math.min(...repeats) : 0;
  }

  #loadActive(rule: LoadedRule, storeRule = rule.name): ActiveAlert[] {
    return this.#deps.store.loadActive(storeRule).map((row) => {
      const active = readActive(row);
      if ('invalid' in active) throw new StoreError(`stored alert "${row.key}" of rule "${rule.name}" is invalid: ${active.invalid}`);
      return active;
    });
  }

  /** The rule's committed states: kept from its last commit, or read (and checked) from the file. */
  #loadStates(rule: LoadedRule): CachedStates {
    const { store } = this.#deps;
    const version = store.dataVersion();
    const cached = this.#cache.get(rule.name);
    if (cached && cached.version === version) return cached;
    const kind = ruleKind(rule.kind);
    const states = new Map<string, unknown>();
    const json = new Map<string, string>();
    const { rows, revision } = store.stateRows(rule.name);
    const order = kind.entityOrder?.(rule.spec);
    for (const { entity, state } of order ? rowsInOrder(rows, order) : rows) {
      const parsed = kind.state.safeParse(JSON.parse(state));
      // Never guess: a state row that does not parse would replay or hide alerts.
      if (!parsed.success) throw new StoreError(`stored state of rule "${rule.name}" entity "${entity}" is invalid: ${parsed.error.message}`);
      states.set(entity, parsed.data);
      json.set(entity, state);
    }
    const loaded = { version, revision, states, json, exact: false };
    this.#cache.set(rule.name, loaded);
    return loaded;
  }
}

interface CachedStates {
  /** The file's data_version when read: another process's commit changes it. */
  version: number;
  /** The rule's revision the states are of: the commit checks it is still the stored one. */
  revision: number;
  states: Map<string, unknown>;
  /** Each entity's state as stored, to write only what changed. */
  json: Map<string, string>;
  /** Each state's JSON is exactly its stored text (kept from this process's commit, not parsed from the file). */
  exact: boolean;
}

interface RuleView {
  rule: LoadedRule;
  states: ReadonlyMap<string, unknown>;
  at: Date;
  /** Entities whose lookup failed at the last evaluation, with why. */
  failed?: Readonly<Record<string, string>>;
  byMetric?: Map<string, GaugeSample[]>;
}

/**
 * The one place news becomes a severity: an explicit severity wins; bad news (the default)
 * goes at the rule's; good and neutral at the rule's `severities`, else info. The
 * `severity` label is made from this, so a route for critical never gets good news.
 */
export function severityOf(rule: Pick<LoadedRule, 'severity' | 'severities'>, a: { severity?: Severity | undefined; news?: News | undefined }): Severity {
  if (a.severity) return a.severity;
  if (a.news === undefined || a.news === 'bad') return rule.severity;
  return rule.severities?.[a.news] ?? 'info';
}

/**
 * The rows in the order of `order`, then the rest as they came. At 100k entities a poll that
 * walks its states out of the order it looks them up in took half as long again.
 */
function rowsInOrder<R extends { entity: string }>(rows: readonly R[], order: readonly string[]): R[] {
  const byEntity = new Map(rows.map((r) => [r.entity, r]));
  const out: R[] = [];
  for (const entity of order) {
    const row = byEntity.get(entity);
    if (row === undefined) continue;
    out.push(row);
    byEntity.delete(entity);
  }
  for (const row of byEntity.values()) out.push(row);
  return out;
}

/** A rule's samples by gauge name, each labelled with the rule. */
function byMetric(rule: string, samples: GaugeSample[]): Map<string, GaugeSample[]> {
  const out = new Map<string, GaugeSample[]>();
  for (const s of samples) {
    const list = out.get(s.metric) ?? [];
    list.push({ ...s, labels: { rule, ...s.labels } });
    out.set(s.metric, list);
  }
  return out;
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * How often a firing alert reaches this receiver again: a receiver that forgets what it
 * stops hearing of (Alertmanager) at its resend interval; others at the rule's
 * repeatInterval, else the route's.
 */
function repeatOf(rule: LoadedRule, t: Target): number {
  return t.resendMs ?? rule.repeatInterval ?? t.repeatMs;
}
