import type { LoadedRule } from '../config/load.js';
import type { Condition, Severity } from '../rules/types.js';

/**
 * A rule's rule-failing alert is kept in the store under this name (rule names cannot
 * start with "!"), apart from the rule's own alerts, so the rule's lifecycle never resolves it.
 */
export const FAILING_PREFIX = '!rule-failing:';
export const FAILING_ALERTNAME = 'rule-failing';

export interface FailureRun {
  count: number;
  since: number;
  error: string;
}

/** Consecutive failed evaluations per rule, in memory: a restart starts counting again. */
export class FailureCounts {
  readonly #runs = new Map<string, FailureRun>();

  failed(rule: string, error: string, now: number): FailureRun {
    const run = this.#runs.get(rule);
    const next = { count: (run?.count ?? 0) + 1, since: run?.since ?? now, error };
    this.#runs.set(rule, next);
    return next;
  }

  succeeded(rule: string): void {
    this.#runs.delete(rule);
  }

  count(rule: string): number {
    return this.#runs.get(rule)?.count ?? 0;
  }

  /** Rules failing at least `n` times in a row. */
  failing(n: number): Array<{ rule: string } & FailureRun> {
    return [...this.#runs].filter(([, r]) => r.count >= n).map(([rule, r]) => ({ rule, ...r }));
  }

  forget(rule: string): void {
    this.#runs.delete(rule);
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
