import { FencedError } from '../store/index.js';
import { advance, reminderDraft, type ActiveAlert } from '../alerts/lifecycle.js';
import type { Hold, Pipeline } from '../alerts/pipeline/index.js';
import type { Clock } from '../base/clock.js';
import { formatElapsed } from '../base/duration.js';
import type { Logger } from '../base/log.js';
import type { Condition, Severity } from '../base/types.js';
import type { LoadedRule } from '../config/load.js';
import type { Metrics } from '../metrics/registry.js';
import { StateDiff, type StateStore } from '../store/index.js';
import { CAUSE_PREFIX, CAUSE_RULE, causeCondition, causeKey, causeOf, listedRules, type CauseRun } from './cause.js';
import { entityFailingCondition, FAILING_ALERTNAME, FAILING_PREFIX, failingCondition, type FailureCounts } from './failing.js';
import { lifecycleOptions, ownOptions } from './lifecycle-options.js';
import { partName } from './parts.js';
import { shardOf } from '../base/shard.js';
import { loadActive, loadActiveOf } from './states.js';

export interface FailingDeps {
  store: StateStore;
  pipeline: Pipeline;
  clock: Clock;
  metrics: Metrics;
  log: Logger;
  /** Consecutive failures per rule; kept by the app across reloads. */
  failures: FailureCounts;
  /** Failures in a row that fire rule-failing. */
  failingAfter: number;
  failingSeverity: Severity;
  /** The rules configured now (default: those restored): a cause's alert waits for those it listed that have not evaluated here yet. */
  configured?: (() => Iterable<string>) | undefined;
  /** The incidents' part in every commit (engine/incident-alerts.ts), when incidents are on. */
  hold?: Hold | undefined;
  /** A rule spread by entity: the shards of its entities held here, ascending (engine/parts.ts); undefined for a rule-level one. */
  heldShards?: ((rule: LoadedRule) => readonly number[] | undefined) | undefined;
}

/**
 * avawatch's own alerts about its rules: a rule's rule-failing alert (its evaluations, or
 * an entity's lookups, failed failingAfter times in a row), and each cause's one alert
 * (engine/cause.ts: the service down is one alert, not one per rule).
 */
export class FailingAlerts {
  readonly #deps: FailingDeps;
  /** Rules with a rule-failing alert in the store (firing, or pending its resolution). */
  readonly #stored = new Set<string>();
  /** Causes with an alert in the store; read from the store at first use. */
  #causesStored: Set<string> | undefined;
  /** Rules restored (configured in the daemon), and those evaluated since: a cause's alert from before a restart waits for its rules. */
  readonly #restored = new Set<string>();
  readonly #evaluated = new Set<string>();
  /** The receivers each rule names itself (a cause's alert falls back to them when the route tree has none). */
  readonly #ownReceivers = new Map<string, readonly string[]>();

  constructor(deps: FailingDeps) {
    this.#deps = deps;
  }

  async restore(rule: LoadedRule): Promise<void> {
    const parts = this.#parts(rule);
    const rows = parts ? [...(await this.#deps.store.loadActiveOf(parts.failing)).values()].flat() : await this.#deps.store.loadActive(FAILING_PREFIX + rule.name);
    if (rows.length > 0) this.#stored.add(rule.name);
    this.#restored.add(rule.name);
  }

  /**
   * A rule spread by entity keeps its rule-failing alerts per part (`!rule-failing:name#SSS`),
   * written only by the holder of the part: an entity's in its entity's part (it moves with the
   * entity), the rule's own `failing` in the anchor part, the lowest held.
   */
  #parts(rule: LoadedRule): { own: string[]; failing: string[]; anchor: string } | undefined {
    const shards = this.#deps.heldShards?.(rule);
    if (shards === undefined) return undefined;
    const own = shards.map((s) => partName(rule.name, s));
    const failing = own.map((p) => FAILING_PREFIX + p);
    return { own, failing, anchor: failing[0] ?? FAILING_PREFIX + rule.name };
  }

  /**
   * A spread rule's entity rows that fire and whose entity still fails here, though not yet
   * failingAfter times: a row its last holder raised, come with a part this instance gained.
   * Kept firing: it is resolved only once its entity is seen to pass.
   */
  #carried(rule: LoadedRule, before: readonly ActiveAlert[], raised: readonly Condition[]): Condition[] {
    const failing = new Set(this.#deps.failures.entities(rule.name).map((e) => `entity:${e.entity}`));
    const have = new Set(raised.map((c) => c.key));
    return before.filter((a) => a.state === 'firing' && failing.has(a.condition.key) && !have.has(a.condition.key)).map((a) => a.condition);
  }

  forget(rule: string): void {
    this.#stored.delete(rule);
    this.#restored.delete(rule);
  }

  /**
   * A tick skipped because the rule's last evaluation is still running (held by a
   * rate-limit pause, or a slow API): counted as a failed evaluation, so a held rule is
   * never silently blind.
   */
  async skipped(rule: LoadedRule, runningForMs: number): Promise<void> {
    const { metrics } = this.#deps;
    metrics.ruleEvaluations.inc({ rule: rule.name });
    metrics.ruleFailures.inc({ rule: rule.name });
    await this.failed(rule, new Error(`evaluation skipped: the previous one has been running for ${formatElapsed(Math.max(1000, runningForMs))}, past the rule's interval`), true);
  }

  /** Counts the failure; at failingAfter in a row, rule-failing fires (or reminds). */
  async failed(rule: LoadedRule, err: unknown, skipped = false): Promise<void> {
    const { failures, failingAfter, failingSeverity, metrics, log, pipeline } = this.#deps;
    const now = new Date(this.#deps.clock.now());
    const run = failures.failed(rule.name, pipeline.redact(errorText(err)), now.getTime(), skipped, skipped ? undefined : causeOf(err));
    metrics.ruleConsecutiveFailures.set({ rule: rule.name }, run.count);
    this.#seen(rule);
    try {
      await this.#resend(rule, now);
    } catch (e) {
      failedWrite(log, e, { rule: rule.name }, 'could not queue the firing alerts again for the receivers that expire them');
    }
    await this.#syncCauses(now);
    // Failing for a cause outside the rule: the cause's one alert says it (an alert of the
    // rule's own, from before, stays until the rule evaluates again).
    if (run.count < failingAfter || run.cause !== undefined) return;
    try {
      // Entities that were failing before stay as they were: this evaluation saw none of them.
      await this.#advance(rule, [failingCondition(rule, run, failingSeverity), ...this.#entityConditions(rule, failures.entities(rule.name))], now);
    } catch (e) {
      failedWrite(log, e, { rule: rule.name }, 'could not record the rule-failing alert');
    }
  }

  /**
   * After a committed evaluation: the rule's own failure run ends; each entity whose lookup
   * failed is counted, named in a warning, and fires rule-failing at failingAfter in a row.
   */
  async settled(rule: LoadedRule, failed: Readonly<Record<string, string>>, now: Date): Promise<void> {
    const { failures, metrics, log, pipeline } = this.#deps;
    const ids = Object.keys(failed);
    const reasons = Object.fromEntries(ids.map((id) => [id, pipeline.redact(failed[id] ?? '')]));
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
    await this.#syncCauses(now);
    if (conditions.length === 0 && !wasFailing && !this.#stored.has(rule.name)) return;
    try {
      await this.#advance(rule, conditions, now);
    } catch (e) {
      failedWrite(log, e, { rule: rule.name }, 'could not update the rule-failing alert');
    }
  }

  /**
   * A failed poll is no resolution: what fires still reaches, on time, the receivers that
   * forget a firing alert they stop hearing of (Alertmanager's resendInterval), as reminder
   * rows. Nothing else changes.
   */
  async #resend(rule: LoadedRule, now: Date): Promise<void> {
    const { store, pipeline } = this.#deps;
    const parts = this.#parts(rule);
    for (const storeRule of parts ? [...parts.own, ...parts.failing] : [rule.name, FAILING_PREFIX + rule.name]) {
      const active = await loadActive(store, rule.name, storeRule);
      const notifications = active.flatMap((a) => {
        if (a.state !== 'firing') return [];
        const receivers = pipeline.receivers(rule, a.condition.labels).filter((t) => t.resendMs !== undefined).map((t) => t.receiver);
        return receivers.length > 0 ? [{ ...reminderDraft(a.condition, a.startedAt), onlyReceivers: receivers }] : [];
      });
      if (notifications.length > 0) await pipeline.commit({ rule, storeRule, states: new StateDiff([], []), notifications, active, now, hold: this.#deps.hold });
    }
  }

  #entityConditions(rule: LoadedRule, runs: ReturnType<FailureCounts['entities']>): Condition[] {
    const { failingAfter, failingSeverity } = this.#deps;
    return runs.filter((r) => r.count >= failingAfter).map((r) => entityFailingCondition(rule, r, failingSeverity));
  }

  async #advance(rule: LoadedRule, conditions: Condition[], now: Date): Promise<void> {
    const { store, pipeline, clock } = this.#deps;
    const parts = this.#parts(rule);
    if (parts?.failing.length === 0) return;
    const storeRule = FAILING_PREFIX + rule.name;
    const { forMs: _f, keepFiringForMs: _k, ...o } = lifecycleOptions(rule, pipeline);
    const enriched = conditions.map((c) => pipeline.enrich(rule, c));
    const before = parts ? await loadActiveOf(store, rule.name, parts.failing) : await loadActive(store, rule.name, storeRule);
    const lifecycle = advance(before, parts ? [...enriched, ...this.#carried(rule, before, enriched)] : enriched, clock.mono(), { ...o, forMs: 0, keepFiringForMs: 0, sendResolved: true });
    // Spread: an entity's row in its entity's part, the rest in the anchor (a part that stopped being the anchor is emptied of them).
    const spread = parts && { writes: parts.failing.map((p) => ({ storeRule: p, states: new StateDiff([], []) })), partOf: (a: ActiveAlert) => entityPart(rule.name, a.condition.key, parts.failing) ?? parts.anchor };
    await pipeline.commit({ rule, storeRule, states: new StateDiff([], []), notifications: lifecycle.notifications, active: lifecycle.active, now, hold: this.#deps.hold, ...(spread ? { parts: spread } : {}) });
    if (lifecycle.active.length > 0) this.#stored.add(rule.name);
    else this.#stored.delete(rule.name);
  }

  /**
   * Each cause's one alert (engine/cause.ts), after any rule's evaluation: it fires when one
   * of its rules has failed failingAfter times in a row, lists every rule failing for it, and
   * resolves once none is: a rule joining or recovering meanwhile only updates its details.
   */
  async #syncCauses(now: Date): Promise<void> {
    const { failures, store, log } = this.#deps;
    this.#causesStored ??= new Set((await store.ruleNames()).filter((n) => n.startsWith(CAUSE_PREFIX)).map((n) => n.slice(CAUSE_PREFIX.length)));
    const groups = new Map<string, CauseRun[]>();
    for (const f of failures.failing(1)) {
      if (f.cause === undefined) continue;
      const list = groups.get(f.cause.key) ?? [];
      list.push({ ...f, cause: f.cause });
      groups.set(f.cause.key, list);
    }
    for (const key of new Set([...groups.keys(), ...this.#causesStored])) {
      try {
        await this.#advanceCause(key, groups.get(key) ?? [], now);
      } catch (e) {
        failedWrite(log, e, { cause: key }, 'could not update the alert of rules that cannot see');
      }
    }
  }

  /** The rule was evaluated here (a cause's alert waits for no more of it), with the receivers it names now. */
  #seen(rule: LoadedRule): void {
    this.#evaluated.add(rule.name);
    if (rule.receivers) this.#ownReceivers.set(rule.name, rule.receivers);
    else this.#ownReceivers.delete(rule.name);
  }

  async #advanceCause(key: string, runs: readonly CauseRun[], now: Date): Promise<void> {
    const { failingAfter, failingSeverity, store, pipeline, clock } = this.#deps;
    const storeRule = CAUSE_PREFIX + key;
    // avawatch's own alert: routed by its labels (the route tree), not by one rule's receivers.
    let rule = { name: CAUSE_RULE, kind: FAILING_ALERTNAME, severity: failingSeverity, labels: {} } as unknown as LoadedRule;
    const active: ActiveAlert[] = await loadActive(store, rule.name, storeRule);
    const was = active.find((a) => a.key === causeKey(key));
    // Fires at the threshold; once firing, it holds until every rule of it evaluates again. Its
    // rules' runs are in memory: after a restart (or in `once` beside the daemon), those it
    // listed are waited for, not read as recovered.
    const configured = new Set(this.#deps.configured?.() ?? this.#restored);
    const waiting = listedRules(was?.condition).filter((r) => configured.has(r) && !this.#evaluated.has(r));
    const holds = runs.some((r) => r.count >= failingAfter) || (was?.state === 'firing' && (runs.length > 0 || waiting.length > 0));
    if (!holds && active.length === 0) return;
    const condition = runs.length > 0 ? pipeline.enrich(rule, causeCondition(runs, listedRules(was?.condition), failingSeverity)) : was?.condition;
    const conditions = holds && condition ? [condition] : [];
    // A tree that routes it nowhere (every rule names its receivers, the root none): the receivers its rules name, so an outage is never heard by no one.
    if (condition && pipeline.receivers(rule, condition.labels).length === 0) {
      const own = [...new Set([...runs.map((r) => r.rule), ...listedRules(was?.condition)].flatMap((r) => this.#ownReceivers.get(r) ?? []))];
      if (own.length > 0) rule = { ...rule, receivers: own };
    }
    const lifecycle = advance(active, conditions, clock.mono(), ownOptions(rule, pipeline));
    await pipeline.commit({ rule, storeRule, states: new StateDiff([], []), notifications: lifecycle.notifications, active: lifecycle.active, now, hold: this.#deps.hold });
    if (lifecycle.active.length > 0) this.#causesStored?.add(key);
    else this.#causesStored?.delete(key);
  }
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A write of these alerts failed: an error, but a commit refused because the shard is another daemon's is that daemon's to make (debug). */
function failedWrite(log: Logger, e: unknown, fields: Record<string, unknown>, msg: string): void {
  if (e instanceof FencedError) log.debug({ ...fields, error: errorText(e) }, msg);
  else log.error({ ...fields, error: errorText(e) }, msg);
}

/** The held rule-failing part of an entity row (`entity:<id>`, the id up to a `:`), or undefined. */
function entityPart(rule: string, key: string, held: readonly string[]): string | undefined {
  if (!key.startsWith('entity:')) return undefined;
  const id = key.slice('entity:'.length).split(':')[0] ?? '';
  const part = FAILING_PREFIX + partName(rule, shardOf(id));
  return held.includes(part) ? part : undefined;
}
