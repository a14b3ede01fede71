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
  /** The label set, as Alertmanager identifies the alert. */
  fingerprint: string;
  alert: PostableAlert;
  /** When the post that carried it started (unix ms). */
  at: number;
  endsAt: number;
}

/**
 * What this process last posted of each state alert (by rule, then alertname and condition
 * key): with which labels, to end a label set its condition left (an escalation changes
 * `threshold`). In memory: after a restart the first
 * post of each alert is the reference again.
 */
export class PostedAlerts {
  readonly #byRule = new Map<string, Map<string, Posted>>();
  #sweptAt = 0;

  /** `sweepEveryMs`: how often alerts past their endsAt are dropped (the receiver's resendInterval). */
  constructor(private readonly sweepEveryMs: number) {}

  /**
   * The label sets a post leaves behind, each ended at `now`: for each state alert in it,
   * the one last posted and any earlier one in the same batch (rows queued during an outage)
   * that are not its final labels. Posted after the batch, so they are the newest.
   */
  replaced(messages: readonly AlertMessage[], postable: readonly PostableAlert[], now: number): PostableAlert[] {
    const final = new Map<string, { rule: string; key: string; fingerprint: string }>();
    const states = messages.flatMap((m, i) => {
      const alert = postable[i];
      const key = alert ? identity(m, alert.labels) : undefined;
      if (!alert || key === undefined) return [];
      const state = { rule: m.rule, key, fingerprint: fingerprint(alert.labels), alert, firing: m.status === 'firing' };
      final.set(`${m.rule}\u0000${key}`, state);
      return [state];
    });
    const ended = new Map<string, PostableAlert>();
    const end = (alert: PostableAlert, fp: string) => ended.set(fp, { ...alert, endsAt: new Date(now).toISOString() });
    for (const { rule, key, fingerprint: fp } of final.values()) {
      const posted = this.#byRule.get(rule)?.get(key);
      if (posted && posted.fingerprint !== fp && posted.endsAt > now) end(posted.alert, posted.fingerprint);
    }
    for (const s of states) {
      if (s.firing && final.get(`${s.rule}\u0000${s.key}`)?.fingerprint !== s.fingerprint) end(s.alert, s.fingerprint);
    }
    return [...ended.values()];
  }

  /** After Alertmanager accepted a post that started at `at`: firing alerts are remembered, resolved ones forgotten. */
  record(messages: readonly AlertMessage[], postable: readonly PostableAlert[], at: number): void {
    this.#sweep(at, this.sweepEveryMs);
    messages.forEach((m, i) => {
      const alert = postable[i];
      const key = alert ? identity(m, alert.labels) : undefined;
      if (!alert || key === undefined) return;
      const rule = this.#byRule.get(m.rule) ?? new Map<string, Posted>();
      // A slow post that ends after a newer one does not overwrite it.
      if ((rule.get(key)?.at ?? -Infinity) > at) return;
      if (m.status === 'firing') rule.set(key, { fingerprint: fingerprint(alert.labels), alert, at, endsAt: Date.parse(alert.endsAt) });
      else rule.delete(key);
      if (rule.size > 0) this.#byRule.set(m.rule, rule);
      else this.#byRule.delete(m.rule);
    });
  }

  /** Alerts past their endsAt are gone from Alertmanager: nothing to end. Also drops removed rules' alerts. */
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

function fingerprint(labels: Record<string, string>): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
