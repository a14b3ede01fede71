import type { z } from 'zod';
import type { DataApi } from '../api/data-api.js';
import type { MetricsApi } from '../api/metrics-api.js';
import type { ApiCall } from '../api/catalog.js';

export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

/**
 * What an evaluation says happened. `event` is delivered once; `firing` and `resolved`
 * describe a condition that holds for a while (their lifecycle lives in alerts/).
 */
export interface AlertDraft {
  status: 'firing' | 'resolved' | 'event';
  /** Overrides the rule's severity (e.g. a warning about a misconfigured node). */
  severity?: Severity;
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
  summary: string;
  /** Said when it stops holding; default `resolved: <summary>`. */
  resolvedSummary?: string;
  labels: Record<string, string>;
  details: Record<string, string>;
  /** Escalation level: a change re-notifies (e.g. `3d` after `14d`). */
  tier?: string;
}

export interface Evaluation<S> {
  /** The complete new state of every entity the rule tracks; entities left out are dropped. */
  states: Record<string, S>;
  /** Events: delivered once each. */
  alerts: AlertDraft[];
  /** What holds now (state alerts); omitted by kinds that only send events. */
  conditions?: Condition[];
  /**
   * Entities whose lookup failed (entity → why). Each keeps its previous state in `states`
   * and raises nothing; the engine counts them and fires rule-failing for one that keeps failing.
   */
  failed?: Record<string, string>;
}

export interface ObserveContext {
  data: DataApi;
  metrics: MetricsApi;
  signal: AbortSignal;
  /** The evaluation's clock (simulated in rule tests). */
  now: Date;
  /** The states committed by the last evaluation (what the rule is tracking). */
  previous: Readonly<Record<string, unknown>>;
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

/**
 * A rule kind: its YAML keys, how it observes the chain, and a pure evaluation.
 * observe() does all I/O; a lookup that fails for one entity fails only that entity
 * (see lookup.ts), and observe() throws only when it saw nothing. evaluate() does no I/O.
 */
export interface RuleKind<Spec, Obs, S> {
  kind: string;
  /** The kind's own keys (the common ones are added by the config loader). */
  spec: z.ZodObject;
  /**
   * The kind reads the rule's `for` itself (metric-threshold: a window of the series), so the
   * lifecycle does not wait it out a second time.
   */
  ownsFor?: boolean;
  /** Parses one entity's state as stored in SQLite. */
  state: z.ZodType<S>;
  gauges: readonly GaugeDef[];
  observe(spec: Spec, ctx: ObserveContext): Promise<Obs>;
  /** Pure. `previous` is never changed in place: the engine keeps it between evaluations. */
  evaluate(previous: Readonly<Record<string, S>>, observation: Obs, now: Date, spec: Spec): Evaluation<S>;
  /** Gauges from committed state; `now` is the evaluation time (or the start, when restoring). */
  samples(spec: Spec, states: Readonly<Record<string, S>>, now: Date): GaugeSample[];
  /** One line for `avawatch check`. */
  describe(spec: Spec): string;
  /** The calls of one evaluation in steady state, for `avawatch check`'s budget estimate. */
  cost(spec: Spec): Cost;
}

/** The calls of one evaluation: the least it makes (first pages), and what may add to it. */
export interface Cost {
  calls: ApiCall[];
  /** What the estimate leaves out, e.g. further pages. */
  more?: string;
}
