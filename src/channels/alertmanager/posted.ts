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

/** The alert ended at `at`; its start no later (Alertmanager refuses an alert that ends before it starts, and `at` may be set back to its clock). */
export function endedAt(alert: PostableAlert, at: number): PostableAlert {
  return { ...alert, startsAt: new Date(Math.min(Date.parse(alert.startsAt), at)).toISOString(), endsAt: new Date(at).toISOString() };
}

/**
 * What this process last posted of each state alert (by rule, alertname and condition key):
 * with which labels, to end a label set its condition left (an escalation changes
 * `threshold`). In memory: after a restart the first post of each alert is the reference again.
 */
export class PostedAlerts {
  readonly #posted = new Map<string, Posted>();
  #sweptAt = 0;

  /** `sweepEveryMs`: how often alerts past their endsAt are dropped (the receiver's resendInterval). */
  constructor(private readonly sweepEveryMs: number) {}

  /**
   * The label sets a post leaves behind, each ended at `now`: for each state alert in it,
   * the one last posted and any earlier one in the same batch (rows queued during an outage)
   * that are not its final labels. Posted after the batch, so they are the newest.
   */
  replaced(messages: readonly AlertMessage[], postable: readonly PostableAlert[], now: number): PostableAlert[] {
    const states = stateAlerts(messages, postable);
    // Each condition's last label set in the batch: the one that stays firing.
    const final = new Map(states.map((s) => [s.id, s.fingerprint]));
    const ended = new Map<string, PostableAlert>();
    const end = (alert: PostableAlert, fp: string) => ended.set(fp, endedAt(alert, now));
    for (const [id, fp] of final) {
      const posted = this.#posted.get(id);
      if (posted && posted.fingerprint !== fp && posted.endsAt > now) end(posted.alert, posted.fingerprint);
    }
    for (const s of states) if (s.firing && final.get(s.id) !== s.fingerprint) end(s.alert, s.fingerprint);
    return [...ended.values()];
  }

  /** After Alertmanager accepted a post that started at `at`: firing alerts are remembered, resolved ones forgotten. */
  record(messages: readonly AlertMessage[], postable: readonly PostableAlert[], at: number): void {
    this.#sweep(at);
    for (const s of stateAlerts(messages, postable)) {
      // A slow post that ends after a newer one does not overwrite it.
      if ((this.#posted.get(s.id)?.at ?? -Infinity) > at) continue;
      if (s.firing) this.#posted.set(s.id, { fingerprint: s.fingerprint, alert: s.alert, at, endsAt: Date.parse(s.alert.endsAt) });
      else this.#posted.delete(s.id);
    }
  }

  /** Alerts past their endsAt are gone from Alertmanager: nothing to end. Also drops removed rules' alerts. */
  #sweep(now: number): void {
    if (now - this.#sweptAt < this.sweepEveryMs) return;
    this.#sweptAt = now;
    for (const [id, p] of this.#posted) if (p.endsAt <= now) this.#posted.delete(id);
  }
}

/** A state alert of a post, with its identity across posts and its label set. */
interface StateAlert {
  /** The rule, the alertname (the rule, or rule-failing) and the condition key. */
  id: string;
  alert: PostableAlert;
  fingerprint: string;
  firing: boolean;
}

/** The state alerts of a post: events (and rows stored before condition keys were) have no identity. */
function stateAlerts(messages: readonly AlertMessage[], postable: readonly PostableAlert[]): StateAlert[] {
  const states: StateAlert[] = [];
  messages.forEach((m, i) => {
    const alert = postable[i];
    if (alert !== undefined && m.conditionKey !== undefined) {
      const id = JSON.stringify([m.rule, alert.labels['alertname'], m.conditionKey]);
      states.push({ id, alert, fingerprint: fingerprint(alert.labels), firing: m.status === 'firing' });
    }
  });
  return states;
}

/** The label set, whatever the order of its labels. */
function fingerprint(labels: Record<string, string>): string {
  return JSON.stringify(labels, Object.keys(labels).sort());
}
