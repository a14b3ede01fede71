import { linkedSignal } from '../base/abort.js';
import { Serial } from '../base/serial.js';
import type { Clock } from '../base/clock.js';
import { requestContext } from '../api/context.js';
import { advance } from '../alerts/lifecycle.js';
import type { Pipeline } from '../alerts/pipeline/index.js';
import { scrubResolution } from '../alerts/pipeline/scrub.js';
import type { DataApi } from '../api/data/index.js';
import type { MetricsApi } from '../api/metrics-api.js';
import type { NodeApi } from '../api/node-api.js';
import type { LoadedRule } from '../config/load.js';
import type { Logger } from '../base/log.js';
import type { Metrics } from '../metrics/registry.js';
import type { AlertMessage, GaugeSample, Severity } from '../base/types.js';
import { ruleKind } from '../rules/registry.js';
import type { ExpressionRunner } from '../rules/endpoint/runner.js';
import type { FailureCounts } from './failing.js';
import { FencedError, StateConflictError, StateDiff, type StateStore } from '../store/index.js';
import { periodMs } from '../base/schedule.js';
import type { Evaluation, RuleMemo } from '../rules/types.js';
import { ruleMemo } from './memo.js';
import type { IncidentTracker, NetworkBaseline } from './incidents.js';
import { withScopes } from './scope.js';
import { errorText, FailingAlerts } from './failing-alerts.js';
import { IncidentAlerts } from './incident-alerts.js';
import { lifecycleOptions } from './lifecycle-options.js';
import { loadActive, RuleStates } from './states.js';
import { activePart, diffParts, heldShare, Narrowing, type Narrowed } from './parts.js';
import { PartsCache } from './parts-cache.js';
import { mergeParts } from './partition.js';

export { errorText };

export interface EngineDeps {
  store: StateStore;
  data: DataApi;
  metricsApi: MetricsApi;
  /** The operator's own nodes' APIs (the kinds that read a node need it). */
  node?: NodeApi;
  metrics: Metrics;
  log: Logger;
  /** Enrich, route, mute, group, hold, plan, enqueue: the one way an alert is made and committed (alerts/pipeline/). */
  pipeline: Pipeline;
  /** Consecutive failures per rule; kept by the app across reloads. */
  failures: FailureCounts;
  /** Failures in a row that fire rule-failing. */
  failingAfter: number;
  failingSeverity: Severity;
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
  /** Shared state: whether this instance holds a shard now (a rule spread by entity is narrowed to those it holds); default all. */
  holdsShard?: (shard: number) => boolean;
}

/** Evaluations of one tick, when other processes keep committing the same rule. */
const MAX_CONFLICT_RETRIES = 3;

/**
 * fetch → evaluate (pure) → commit. A failure anywhere before the commit changes no state
 * and produces no alert: it is counted as a failed evaluation, never read as a change.
 */
export class Engine {
  readonly #deps: EngineDeps;
  /** Each rule's committed states, kept between evaluations while no other process writes the file. */
  readonly #states: RuleStates;
  /** What each rule's gauges are made from; the samples are made when /metrics asks. */
  readonly #views = new Map<string, RuleView>();
  /** What each rule's kind derived from its spec: per loaded rule, so a reload starts afresh. */
  readonly #memos = new WeakMap<LoadedRule, RuleMemo>();
  readonly #failing: FailingAlerts;
  readonly #incidents: IncidentAlerts | undefined;
  /**
   * What follows an observation (read, advance, commit, and the rule-failing, cause and
   * incident alerts that follow it) runs one at a time, as it did while the store was
   * synchronous: two rules never interleave on a cause's or an incident's shared alert.
   */
  readonly #commits = new Serial();
  readonly #narrowing = new Narrowing();
  readonly #parts = new PartsCache();

  constructor(deps: EngineDeps) {
    this.#deps = deps;
    this.#states = new RuleStates(deps.store);
    const { incidents } = deps;
    this.#incidents = incidents && new IncidentAlerts({ store: deps.store, pipeline: deps.pipeline, clock: deps.clock, log: deps.log, incidents, sweepFirst: deps.sweepFirst, committed: (rule) => this.#states.committed(rule) });
    this.#failing = new FailingAlerts({ ...deps, hold: this.#incidents?.hold, heldShards: (rule) => this.#narrowed(rule)?.shards });
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
  restore(rule: LoadedRule): Promise<void> {
    return this.#commits.run(() => this.#restore(rule));
  }

  async #restore(rule: LoadedRule): Promise<void> {
    const { metrics } = this.#deps;
    // Counters exist at 0 from the start, so increase() sees the first failure.
    for (const c of [metrics.ruleEvaluations, metrics.ruleFailures, metrics.ruleEntityFailures]) c.inc({ rule: rule.name }, 0);
    metrics.ruleFailingEntities.set({ rule: rule.name }, this.#deps.failures.entities(rule.name).length);
    const n = this.#narrowed(rule);
    const parts = n && (await this.#parts.load(this.#deps.store, n));
    const states = parts ? parts.states : (await this.#states.load(rule)).states;
    this.#views.set(rule.name, { rule: n?.rule ?? rule, states, at: this.#now() });
    await this.#failing.restore(rule);
    const incidents = this.#deps.incidents;
    if (incidents) {
      incidents.restored(ruleKind(rule.kind).baselines?.((n?.rule ?? rule).spec, states) ?? []);
      incidents.update(rule.name, incidents.childrenOf(rule, parts ? parts.active : await loadActive(this.#deps.store, rule.name)));
    }
    this.#deps.metrics.ruleConsecutiveFailures.set({ rule: rule.name }, this.#deps.failures.count(rule.name));
  }

  /** The rule's committed states and its entities that failed, as of its last evaluation. */
  view(ruleName: string): { states: ReadonlyMap<string, unknown>; failed: Readonly<Record<string, string>> } | undefined {
    const view = this.#views.get(ruleName);
    return view && { states: view.states, failed: view.failed ?? {} };
  }

  /** Nothing kept of the rule's states: read from the store next time. */
  #drop(ruleName: string): void {
    this.#states.drop(ruleName);
    this.#parts.drop(ruleName);
  }

  forget(ruleName: string): void {
    this.#views.delete(ruleName);
    this.#drop(ruleName);
    this.#failing.forget(ruleName);
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

  /**
   * A tick skipped because the rule's last evaluation is still running: counted as a failed
   * evaluation (engine/failing-alerts.ts), so a held rule is never silently blind.
   */
  skipped(rule: LoadedRule, runningForMs: number): Promise<void> {
    return this.#commits.run(() => this.#failing.skipped(rule, runningForMs));
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
          this.#drop(rule.name);
          log.info({ rule: rule.name, attempt }, 'another process committed this rule meanwhile; its alerts are dropped and it is evaluated again');
        }
      }
    } catch (err) {
      // Shared state: the rule's shard moved to another instance (or its lease ended) while it
      // was evaluated here. Nothing was written or queued; the new holder evaluates it.
      if (err instanceof FencedError) {
        this.#states.drop(rule.name);
        log.info({ rule: rule.name, error: err.message }, 'lost the shard; the evaluation is dropped');
        return [];
      }
      // Shutdown or reload aborted it: not the rule's fault.
      if (!signal.aborted) {
        metrics.ruleFailures.inc({ rule: rule.name });
        log.warn({ rule: rule.name, error: errorText(err) }, 'rule evaluation failed; state unchanged');
        await this.#commits.run(() => this.#failing.failed(rule, err)).catch((e: unknown) => {
          if (!(e instanceof FencedError)) throw e;
        });
      }
      throw err;
    } finally {
      own.abort();
      own.dispose();
    }
  }

  /** The rule narrowed to the entities of the shards held here, when it is spread by entity (engine/parts.ts). */
  #narrowed(rule: LoadedRule): Narrowed | undefined {
    return this.#narrowing.of(this.#deps.store, rule, this.#deps.holdsShard ?? (() => true));
  }

  /** The kind's observation and its pure evaluation against `previous`; when the poll began on the steady clock. */
  async #observed(rule: LoadedRule, previous: ReadonlyMap<string, unknown>, signal: AbortSignal, ownSignal: AbortSignal): Promise<{ startedAt: number; now: Date; evaluation: Evaluation<unknown> }> {
    const { data, metricsApi, clock } = this.#deps;
    const kind = ruleKind(rule.kind);
    const observedAt = this.#now();
    // An urgent alert's short wait (store/outbox.ts) counts from here, the poll, not the commit.
    const startedAt = clock.mono();
    // A shared answer must be fresh for this rule too: younger than half its interval.
    const context = { severity: rule.severity, maxAgeMs: (periodMs(rule.schedule) ?? Infinity) / 2 };
    const observation: unknown = await requestContext.run(context, () =>
      kind.observe(rule.spec, { data, metrics: metricsApi, ...(this.#deps.node ? { node: this.#deps.node } : {}), signal: ownSignal, now: observedAt, steadyMs: clock.mono(), previous, memo: this.#memoOf(rule), ...this.#expressionsOf(rule) }),
    );
    signal.throwIfAborted();
    const now = this.#now();
    return { startedAt, now, evaluation: kind.evaluate(previous, observation, now, rule.spec) };
  }

  async #evaluateOnce(rule: LoadedRule, signal: AbortSignal, ownSignal: AbortSignal): Promise<AlertMessage[]> {
    const narrowed = this.#narrowed(rule);
    if (narrowed) return narrowed.shards.length === 0 ? [] : this.#evaluateParts(narrowed, signal, ownSignal);
    const { metrics, pipeline, clock, store } = this.#deps;
    const cached = await this.#states.load(rule);
    const revision = cached.revision;
    const previous = cached.states;
    const { startedAt, now, evaluation } = await this.#observed(rule, previous, signal, ownSignal);
    // Not `states`: read only when needed (a kind that says what changed makes it only if read).
    const { changed, alerts: events, conditions, failed = {}, resolvedAs } = evaluation;
    // State alerts: what holds now, diffed against what was firing. Each condition is
    // enriched before its lifecycle, so a stored alert reads whole.
    const effective = conditions?.map((c) => pipeline.enrich(rule, c));
    const resolved = resolvedAs && ((key: string) => scrubResolution(resolvedAs(key), pipeline.redact));
    // `for:`, keepFiringFor and reminders count on the steady clock; the kind judged on the wall.
    const before = effective ? await loadActive(store, rule.name) : [];
    if (effective && this.#incidents) await this.#incidents.askNetwork(rule, effective, before, ownSignal);
    // A commit of this rule since `before` was read moved its revision: the check below sees it.
    return this.#commits.run(async () => {
      const advanced = effective && advance(before, effective, clock.mono(), lifecycleOptions(rule, pipeline), resolved);
      const lifecycle = advanced && this.#deps.incidents ? withScopes(this.#deps.incidents, rule, advanced, before, clock.mono()) : advanced;
      // An evaluation of the same rule in this process committed meanwhile (`once` beside the
      // schedule): the kept states changed under this one, which is evaluated again.
      if (!this.#states.current(rule.name, cached, revision)) throw new StateConflictError(`the state of rule "${rule.name}" changed since it was read (revision ${revision} → ${cached.revision})`);
      let messages: AlertMessage[];
      try {
        // The kind told which states are new (every other is the very one kept, none left out; see
        // rules/next-states.ts), and each kept one's stored text is its JSON: those alone are
        // encoded, compared and written, and nothing is removed. Otherwise every state is.
        const partial = changed !== undefined && cached.exact;
        const diff = this.#states.diff(cached, partial ? changed : evaluation.states, partial, pipeline.redact);
        messages = await pipeline.commit({ rule, storeRule: rule.name, states: diff, events, notifications: lifecycle?.notifications ?? [], active: lifecycle?.active, now, expectRevision: revision, startedAt, hold: this.#incidents?.hold });
      } catch (err) {
        this.#states.drop(rule.name);
        throw err;
      }
      // Another process wrote meanwhile: read the file again next time.
      await this.#states.committed(rule.name, cached);
      const { states } = cached;
      this.#views.set(rule.name, { rule, states, at: now, failed: redacted(failed, pipeline.redact) });
      metrics.ruleLastSuccess.set({ rule: rule.name }, now.getTime() / 1000);
      // The incidents' alerts are this evaluation's news too (`once` and rule tests show them).
      if (this.#incidents) messages.push(...(await this.#incidents.after(rule, lifecycle?.active, states, startedAt, now, () => [...this.#views.values()].map((v) => v.rule))));
      await this.#failing.settled(rule, failed, now);
      return messages;
    });
  }

  /**
   * #evaluateOnce of a rule spread by entity: observed and evaluated once over the held
   * entities, then each owner's share committed to its part, every part in one transaction.
   */
  async #evaluateParts(n: Narrowed, signal: AbortSignal, ownSignal: AbortSignal): Promise<AlertMessage[]> {
    const { metrics, pipeline, clock, store, log } = this.#deps;
    const { rule } = n;
    const loaded = await this.#parts.load(store, n);
    const previous = loaded.states;
    const { startedAt, now, evaluation } = await this.#observed(rule, previous, signal, ownSignal);
    const share = heldShare(n, evaluation, previous, (shards) => log.debug({ rule: rule.name, shards }, 'found entities of shards held elsewhere; their holder commits them'));
    const effective = share.conditions?.map((c) => pipeline.enrich(rule, c));
    const resolved = evaluation.resolvedAs && ((key: string) => scrubResolution(evaluation.resolvedAs!(key), pipeline.redact));
    if (effective && this.#incidents) await this.#incidents.askNetwork(rule, effective, loaded.active, ownSignal);
    return this.#commits.run(async () => {
      const advanced = effective && advance(loaded.active, effective, clock.mono(), lifecycleOptions(rule, pipeline), resolved);
      const lifecycle = advanced && this.#deps.incidents ? withScopes(this.#deps.incidents, rule, advanced, loaded.active, clock.mono()) : advanced;
      const stateOf = (key: string): unknown => evaluation.states.get(key) ?? previous.get(key);
      const parts = { writes: diffParts(loaded, share.states, pipeline.redact), partOf: activePart(n, loaded, stateOf) };
      let messages: AlertMessage[];
      try {
        messages = await pipeline.commit({ rule, storeRule: rule.name, states: new StateDiff([], []), events: share.events, notifications: lifecycle?.notifications ?? [], active: lifecycle?.active, now, startedAt, hold: this.#incidents?.hold, parts });
      } catch (err) {
        // Not known whether it was written: the parts are read again. A failed observation keeps them.
        this.#parts.drop(rule.name);
        throw err;
      }
      const states = mergeParts(n.spread, share.states.values());
      this.#parts.committed(rule.name, loaded, parts.writes, states);
      this.#views.set(rule.name, { rule, states, at: now, failed: redacted(share.failed, pipeline.redact) });
      metrics.ruleLastSuccess.set({ rule: rule.name }, now.getTime() / 1000);
      if (this.#incidents) messages.push(...(await this.#incidents.after(rule, lifecycle?.active, states, startedAt, now, () => [...this.#views.values()].map((v) => v.rule))));
      await this.#failing.settled(n.full, share.failed, now);
      return messages;
    });
  }
}

/** The service's error text per entity, as once --json shows it: scrubbed as the log's is. */
function redacted(failed: Readonly<Record<string, string>>, redact: (text: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(failed).map(([id, why]) => [id, redact(why)]));
}

interface RuleView {
  rule: LoadedRule;
  states: ReadonlyMap<string, unknown>;
  at: Date;
  /** Entities whose lookup failed at the last evaluation, with why. */
  failed?: Readonly<Record<string, string>>;
  byMetric?: Map<string, GaugeSample[]>;
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

