// The shapes every layer shares: severities, what an evaluation produces (drafts and
// conditions) and what a channel renders (messages). A leaf: it imports nothing.

export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

/**
 * What a transition means to an operator. Bad news goes at the rule's severity; good and
 * neutral news at `info` unless the rule's `severities` says otherwise.
 */
export const NEWS = ['bad', 'good', 'neutral'] as const;
export type News = (typeof NEWS)[number];

/** What a condition that stops holding says instead of its firing text: the present. */
export interface Resolution {
  summary: string;
  /** The figures read now (shown first; the firing ones follow as "When it fired: …"). */
  details?: Record<string, string>;
}

/**
 * What an evaluation says happened. `event` is delivered once; `firing` and `resolved`
 * describe a condition that holds for a while (their lifecycle lives in alerts/).
 */
export interface AlertDraft {
  status: 'firing' | 'resolved' | 'event';
  /** Overrides the rule's severity (e.g. a warning about a misconfigured node). */
  severity?: Severity;
  /** Default bad: the rule's severity. */
  news?: News;
  /** The entity the alert is about: a NodeID, a message id, an operation id. */
  subject: string;
  /** One line a person reads first. Chain text in it is escaped by each channel. */
  summary: string;
  labels: Record<string, string>;
  /** Named facts shown under the summary, in order. */
  details: Record<string, string>;
  /** Set by the alerts module on state alert notifications: the condition's key. */
  conditionKey?: string;
  /** Only to these receivers (a notification owed to receivers whose mute has ended). */
  onlyReceivers?: string[];
  /** A reminder: each receiver gets it only when its own repeatInterval has passed. */
  reminder?: boolean;
  /**
   * Set by the lifecycle on a state alert's firing, escalation and resolved notifications
   * (never on reminders or events): which transition of its condition this is
   * (alerts/lifecycle.ts `transitionKey`). The store keeps one alert per transition.
   */
  transition?: string;
}

/**
 * Something that holds right now and should be firing while it does (a validation ending
 * soon, a balance too low). The alerts module turns changes in the set into firing and
 * resolved notifications.
 */
export interface Condition {
  /** Stable within the rule: the same condition at the next evaluation has the same key. */
  key: string;
  subject: string;
  severity?: Severity;
  /** Default bad: the rule's severity. */
  news?: News;
  summary: string;
  /** Said when it stops holding; default `resolved: <summary>`. */
  resolvedSummary?: string;
  /** Set by the alerts module: the present as the evaluation that saw it stop holding read it. */
  resolvedDetails?: Record<string, string>;
  labels: Record<string, string>;
  details: Record<string, string>;
  /** Escalation level: a change re-notifies (e.g. `3d` after `14d`). */
  tier?: string;
  /** Set by the alerts module: when it fired (passed `for:`), on the steady clock (unix ms). */
  firedAt?: number;
}

/** An alert as a channel renders it: everything comes from the outbox row. */
export interface AlertMessage {
  alertId: number;
  rule: string;
  kind: string;
  status: 'firing' | 'resolved' | 'event';
  severity: Severity;
  subject: string;
  summary: string;
  labels: Record<string, string>;
  details: Record<string, string>;
  /** When the evaluation produced it (ISO 8601). */
  at: string;
  /**
   * A state alert's condition key (stable across its firing, reminders and resolved
   * notifications; a channel that keeps incidents, PagerDuty, keys them by it). Unset for
   * events and for rows written before it was stored.
   */
  conditionKey?: string;
  /** A firing alert said again (its repeat or resend interval passed), not a change. */
  reminder?: boolean;
}

/** One gauge sample derived from committed state. */
export interface GaugeSample {
  metric: string;
  labels: Record<string, string>;
  value: number;
}

export interface GaugeDef {
  name: string;
  help: string;
  labelNames: readonly string[];
}
