import type { AlertMessage } from '../types.js';

/** One alert in Alertmanager's API v2 shape. */
export interface PostableAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL: string;
}

interface Posted {
  /** When the post that carried it started (unix ms). */
  at: number;
  endsAt: number;
}

/**
 * What this process last posted of each state alert (by rule, then alertname and condition
 * key), and when, to re-post on time. In memory: after a restart each alert is posted at
 * its rule's first evaluation.
 */
export class PostedAlerts {
  readonly #byRule = new Map<string, Map<string, Posted>>();
  #sweptAt = 0;

  /**
   * The rule's firing alerts to post now: never posted, or last posted at least
   * `resendMs` ago. The rule's alerts not in `firing` (resolved, muted) are forgotten.
   */
  due(rule: string, firing: readonly AlertMessage[], labelsOf: (m: AlertMessage) => Record<string, string>, now: number, resendMs: number): AlertMessage[] {
    this.#sweep(now, resendMs);
    const before = this.#byRule.get(rule);
    const kept = new Map<string, Posted>();
    const due: AlertMessage[] = [];
    for (const m of firing) {
      const labels = labelsOf(m);
      const key = identity(m, labels);
      const posted = key === undefined ? undefined : before?.get(key);
      if (key !== undefined && posted) kept.set(key, posted);
      if (!posted || now - posted.at >= resendMs) due.push(m);
    }
    if (kept.size > 0) this.#byRule.set(rule, kept);
    else this.#byRule.delete(rule);
    return due;
  }

  /** After Alertmanager accepted a post that started at `at`: firing alerts are remembered, resolved ones forgotten. */
  record(messages: readonly AlertMessage[], postable: readonly PostableAlert[], at: number): void {
    messages.forEach((m, i) => {
      const alert = postable[i];
      const key = alert ? identity(m, alert.labels) : undefined;
      if (!alert || key === undefined) return;
      const rule = this.#byRule.get(m.rule) ?? new Map<string, Posted>();
      // A slow post that ends after a newer one does not overwrite it.
      if ((rule.get(key)?.at ?? -Infinity) > at) return;
      if (m.status === 'firing') rule.set(key, { at, endsAt: Date.parse(alert.endsAt) });
      else rule.delete(key);
      if (rule.size > 0) this.#byRule.set(m.rule, rule);
      else this.#byRule.delete(m.rule);
    });
  }

  /** Alerts past their endsAt are gone from Alertmanager. Also drops removed rules' alerts. */
  #sweep(now: number, everyMs: number): void {
    if (now - this.#sweptAt < everyMs) return;
    this.#sweptAt = now;
    for (const [rule, alerts] of this.#byRule) {
      for (const [key, p] of alerts) if (p.endsAt <= now) alerts.delete(key);
      if (alerts.size === 0) this.#byRule.delete(rule);
    }
  }
}

/** A state alert's identity across posts: its alertname (the rule, or rule-failing) and condition key. */
function identity(m: AlertMessage, labels: Record<string, string>): string | undefined {
  return m.conditionKey === undefined ? undefined : `${labels['alertname'] ?? ''}\u0000${m.conditionKey}`;
}
