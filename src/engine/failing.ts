import { FAILING_ALERTNAME } from '../alerts/pipeline/enqueue.js';
import type { LoadedRule } from '../config/load.js';
import type { Condition, Severity } from '../base/types.js';
import { nodeOfEntity } from '../inventory/name.js';

/**
 * A rule's rule-failing alert is kept in the store under this name (rule names cannot
 * start with "!"), apart from the rule's own alerts, so the rule's lifecycle never resolves it.
 */
export const FAILING_PREFIX = '!rule-failing:';
export { FAILING_ALERTNAME };

/** Why rules fail together: the same source outside them, named for a person (engine/cause.ts makes it). */
export interface Cause {
  /** Stable for the source (not the status): `data-service`, `budget:data`, `node-api:10.0.0.5:9650`. */
  key: string;
  /** The alert's labels beyond alertname, rule and severity: `source`, and `api` or `node_api`. */
  labels: Record<string, string>;
  /** `the data service` */
  subject: string;
  /** `the data service answers 503` */
  what: string;
}

export interface FailureRun {
  count: number;
  since: number;
  error: string;
  /** A cause outside the rule (engine/cause.ts): its rules share one alert. Undefined: the rule's own. */
  cause?: Cause | undefined;
}

/**
 * Consecutive failed evaluations per rule, and consecutive failed lookups per entity of a
 * rule (a node, an address), in memory: a restart starts counting again.
 */
export class FailureCounts {
  readonly #runs = new Map<string, FailureRun>();
  readonly #entities = new Map<string, Map<string, FailureRun>>();

  /** Counts a failure; `skipped` (a tick the last evaluation overran) keeps the run's real error when it has one. */
  failed(rule: string, error: string, now: number, skipped = false, cause?: Cause): FailureRun {
    const run = this.#runs.get(rule);
    const kept = skipped && run !== undefined;
    const next = { count: (run?.count ?? 0) + 1, since: run?.since ?? now, error: kept ? run.error : error, cause: kept ? run.cause : cause };
    this.#runs.set(rule, next);
    return next;
  }

  succeeded(rule: string): void {
    this.#runs.delete(rule);
  }

  count(rule: string): number {
    return this.#runs.get(rule)?.count ?? 0;
  }

  /** The rule's run, while its evaluations fail. */
  run(rule: string): FailureRun | undefined {
    return this.#runs.get(rule);
  }

  /** Rules failing at least `n` times in a row. */
  failing(n: number): Array<{ rule: string } & FailureRun> {
    return [...this.#runs].filter(([, r]) => r.count >= n).map(([rule, r]) => ({ rule, ...r }));
  }

  /**
   * After an evaluation that committed: each failed entity's run grows, every other
   * entity's ends. Returns the runs still going.
   */
  entitiesEvaluated(rule: string, failed: Readonly<Record<string, string>>, now: number): Array<{ entity: string } & FailureRun> {
    const before = this.#entities.get(rule);
    const runs = new Map<string, FailureRun>();
    for (const [entity, error] of Object.entries(failed)) {
      const run = before?.get(entity);
      runs.set(entity, { count: (run?.count ?? 0) + 1, since: run?.since ?? now, error });
    }
    if (runs.size > 0) this.#entities.set(rule, runs);
    else this.#entities.delete(rule);
    return this.entities(rule);
  }

  /** The entities of a rule whose lookups are failing now, with their runs. */
  entities(rule: string): Array<{ entity: string } & FailureRun> {
    return [...(this.#entities.get(rule) ?? [])].map(([entity, r]) => ({ entity, ...r }));
  }

  forget(rule: string): void {
    this.#runs.delete(rule);
    this.#entities.delete(rule);
  }
}

/** The condition of a rule that cannot see what it watches. */
export function failingCondition(rule: LoadedRule, run: FailureRun, severity: Severity): Condition {
  return {
    key: 'failing',
    subject: rule.name,
    severity,
    summary: `rule "${rule.name}" is blind: its last ${run.count} evaluations failed (${run.error})`,
    resolvedSummary: `rule "${rule.name}" evaluates again`,
    labels: { ...rule.labels, alertname: FAILING_ALERTNAME, rule: rule.name, severity },
    details: { Error: run.error, 'Failing since': new Date(run.since).toISOString(), Kind: rule.kind },
  };
}

/**
 * The condition of a rule that cannot see one of the entities it watches. One of an inventory
 * validator's entities (its NodeID, `NodeID…:c-chain`) carries its key as `node`: it is named by it.
 */
export function entityFailingCondition(rule: LoadedRule, run: { entity: string } & FailureRun, severity: Severity): Condition {
  const node = nodeOfEntity(rule.validators, run.entity);
  return {
    key: `entity:${run.entity}`,
    subject: run.entity,
    severity,
    summary: `rule "${rule.name}" cannot see ${run.entity}: its last ${run.count} lookups failed (${run.error})`,
    resolvedSummary: `rule "${rule.name}" sees ${run.entity} again`,
    labels: { ...rule.labels, alertname: FAILING_ALERTNAME, rule: rule.name, severity, entity: run.entity, ...(node === undefined ? {} : { node }) },
    details: { Entity: run.entity, Error: run.error, 'Failing since': new Date(run.since).toISOString(), Kind: rule.kind },
  };
}
