import type { AlertMessage, SEVERITIES } from '../base/types.js';

// What the rest of avawatch needs of its state, with no SQL in it: the engine, the alert
// pipeline, delivery, history, the status page, the commands and the App type against
// StateStore, never against an implementation. SqliteStore (sqlite.ts) is the one today;
// contract.ts holds the behaviour every implementation must have (docs/architecture.md).
// Every method returns a Promise: a database server (PostgreSQL, issue 43) can only answer so.

/** What an evaluation changed in a rule's states since its last commit: rows to write (JSON) and to delete. */
export class StateDiff {
  constructor(
    readonly upsert: ReadonlyArray<readonly [string, string]>,
    readonly remove: readonly string[],
    /** The store's dataVersion() the diff was made against, and the whole set to write instead if another process wrote since. */
    readonly against?: { version: number; all: ReadonlyMap<string, string> },
  ) {}
}

/** A rule's states as stored (JSON text per entity) and their revision, read together. */
export interface StateRows {
  rows: Array<{ entity: string; state: string }>;
  revision: number;
}

/** A part of a rule spread by entity (docs/design/entity-spread.md): its store rule `name#SSS`, its writes, the revision read. */
export interface CommitPart {
  rule: string;
  states: StateDiff | Record<string, unknown>;
  active?: readonly ActiveRow[];
  expectRevision?: number;
}

/** A state alert as stored: the condition stays raw JSON for the alerts module to parse. */
export interface ActiveRow {
  key: string;
  /** Escalation level (e.g. the warnBefore threshold crossed); a change notifies again. */
  tier: string;
  /** pending: holding, but not yet for `for`; firing: notified. */
  state: 'pending' | 'firing';
  /** When the condition started to hold (unix ms). */
  startedAt: number;
  /** When the last firing notification went out (unix ms). */
  notifiedAt: number | null;
  /** When it stopped holding while kept firing by keepFiringFor (unix ms). */
  clearedAt: number | null;
  /** Its last notification was muted (silence or mute window) at this time... */
  mutedAt: number | null;
  /** ...for these receivers: each is notified when its own mute ends. */
  mutedReceivers: string[];
  /** When each receiver last got a notification of it (unix ms): reminders are per receiver. */
  notifiedReceivers: Record<string, number>;
  condition: unknown;
}

/** The group key of a receiver's digest rows: they wait for their slot together. */
export const DIGEST_GROUP = 'digest';

/** Where a new alert is queued: one outbox row per target (routing builds these). */
export interface OutboxTarget {
  receiver: string;
  groupKey: string;
  groupWaitMs: number;
  groupIntervalMs: number;
  /** Recorded as muted, not sent. */
  mutedBy?: string;
  /** The digest slot (unix ms) the row waits for. */
  digestAt?: number;
  /** Waits at least this long, urgent or not: a child that may join an incident (incidents.wait). */
  minWaitMs?: number;
}

export interface NewAlert extends Omit<AlertMessage, 'alertId' | 'at'> {
  /** Where to queue it; empty records it without sending. */
  targets: readonly OutboxTarget[];
  /** A reminder of a state alert still firing, or its notification once a mute ends: left out of the history's timeline. */
  reminder?: boolean;
  /**
   * The state alert's transition this notifies (its firing, an escalation, its resolution:
   * alerts/lifecycle.ts `transitionKey`); none for reminders, events and what a reload moved.
   * The store keeps one alert per (rule, kind, conditionKey, transition): a commit that brings
   * one again (a second instance that committed the same news during a hand-over) skips it and
   * its outbox rows, and the commit still succeeds, returning the stored alert's id for it.
   */
  transition?: string;
}

/** A claimed outbox row with its alert, as delivery sends it. */
export interface OutboxRow {
  id: number;
  receiver: string;
  attempts: number;
  createdAt: number;
  groupKey: string;
  groupIntervalMs: number;
  /** The digest slot this row waited for, if it is part of a digest. */
  digestAt?: number;
  /** Why its last attempt failed. */
  lastError?: string;
  /** Attempts that were sent but got no answer: the receiver may have the message. */
  unknownOutcomes: number;
  message: AlertMessage;
}

export type OutboxState = 'pending' | 'sent' | 'dead' | 'muted';

/** An outbox row as `avawatch outbox` lists it. */
export interface OutboxListRow {
  id: number;
  receiver: string;
  state: string;
  attempts: number;
  lastError: string | null;
  digestAt: number | null;
  summary: string;
}

export interface ReceiverStats {
  receiver: string;
  /** Unix ms of the newest row sent. */
  lastSuccess: number | undefined;
  pending: number;
  dead: number;
  /** The newest error of a row still pending or dead (muted rows' reasons are not errors). */
  lastError: string | undefined;
  lastErrorAt: number | undefined;
}

/** A receiver's rows dead-lettered since its last delivery. */
export interface DeadLetters {
  receiver: string;
  count: number;
  /** Unix ms of the newest. */
  at: number;
  error: string;
}

export interface Matcher {
  name: string;
  value: string;
  /** `name=~value`: an anchored regular expression. */
  regex: boolean;
}

export interface Silence {
  id: number;
  matchers: Matcher[];
  startsAt: number;
  endsAt: number;
  comment: string;
  createdBy: string;
  createdAt: number;
}

/** One happening: an event, a state alert firing or resolving (reminders left out). */
export interface HistoryEntry {
  id: number;
  /** Unix ms. */
  at: number;
  rule: string;
  kind: string;
  status: 'firing' | 'resolved' | 'event';
  severity: (typeof SEVERITIES)[number];
  subject: string;
  summary: string;
  labels: Record<string, string>;
  details: Record<string, string>;
}

export interface Sample {
  series: string;
  entity: string;
  /** Unix ms. */
  at: number;
  value: number;
}

export interface TimelineQuery {
  /** Unix ms: entries at or after. */
  since: number;
  /** Only entries about this NodeID (label `node`, or the subject) or inventory name (label `validator`). */
  validator?: string;
  /** Newest first, at most this many. */
  limit?: number;
}

/**
 * Space a file-backed store frees by deleting and gives back in steps (SQLite's free pages).
 * Optional: a database server reclaims its own (PostgreSQL's autovacuum) and leaves it out.
 */
export interface FileSpace {
  /** Pages freed by deletes and not yet given back to the file system. */
  freePages(): Promise<number>;
  /** Gives up to `pages` free pages back: the file shrinks (a short write). */
  vacuumStep(pages: number): Promise<void>;
}

/** A shard's lease as its holder keeps it: the fencing token its writes carry. */
export interface ShardFence {
  shard: number;
  holder: string;
  epoch: number;
}

/**
 * Work shared by several instances (PostgreSQL): 256 shards on leases timed by the database
 * (store/postgres/leases.ts). Absent on a store one machine keeps (SQLite): it holds all.
 */
export interface SharedShards {
  /** One round: membership and leases renewed, free shards taken up to a fair share, a surplus given back. */
  balance(holder: string, ttlMs: number, start?: number): Promise<{ leases: Array<{ shard: number; epoch: number }>; members: number; released: number[] }>;
  /** Gives every lease of the holder back and ends its membership (a clean stop). */
  leave(holder: string): Promise<void>;
  /**
   * From now on every commit of a rule (commitEvaluation) carries the fence this gives for
   * its store name, and is refused (FencedError, nothing written) without one, or once the
   * lease moved on or ended by the database's clock.
   */
  fenceBy(fenceOf: (storeRule: string) => ShardFence | undefined): void;
  /**
   * Every connection of the work opened anew (the database answers again after a step-down):
   * one opened before a network fault may have lost what it sent, and would wait for its cap.
   */
  afresh(): void;
}

/** Units reserved in a second of the ledger (unix seconds of the database's clock) and not spent. */
export interface BudgetReturn {
  second: number;
  units: number;
}

/** A reservation asked of the shared compute-unit ledger (api/shared-budget.ts LedgerAsk). */
export interface BudgetAsk {
  /** Fewer units than this free: nothing is granted. */
  min: number;
  /** As many as this, if free. */
  want: number;
  /** Units of the window left to others: not granted. */
  keep: number;
  /** Spent while the ledger did not answer: recorded first. */
  owed: number;
  /** The window, in seconds, whose reservations stay within limits.perMinute. */
  windowS: number;
  /** Given back first. */
  back: readonly BudgetReturn[];
  limits: { perMinute: number; perDay: number };
}

export interface BudgetGrant {
  /** The second (database's clock, unix s) the units are reserved in. */
  second: number;
  granted: number;
  /** Reserved in the window and in the UTC day, this grant included. */
  window: number;
  day: number;
  /** Instances alive now (members whose lease runs). */
  members: number;
}

/**
 * One compute-unit budget per API key shared by every instance (PostgreSQL: the ledger
 * compute_units, store/postgres/budget.ts). `budget` names the key by a digest, never the key.
 * Absent on a store one machine keeps (SQLite): its limiter alone counts.
 */
export interface SharedBudget {
  /**
   * One round trip, serialized per budget: gives `back` back, records `owed`, then reserves
   * up to `want` units (at least `min`, else none) at the database's clock, as many as keep
   * every window of `windowS` seconds within limits.perMinute less `keep` and the UTC day
   * within limits.perDay.
   */
  reserve(budget: string, ask: BudgetAsk): Promise<BudgetGrant>;
  /** Units reserved and not spent, given back. */
  giveBack(budget: string, back: readonly BudgetReturn[]): Promise<void>;
}

/**
 * avawatch's state: rules' states and state alerts, alerts and their outbox, silences, and
 * history. Every time is unix ms on the daemon's steady clock, except silences' (a person's
 * wall times). Writes that belong together are atomic; several processes (a daemon beside
 * `once --send`) may share one store, which is why commits carry revisions and claims leases.
 */
export interface StateStore {
  // ---- states

  /** A rule's states as stored (JSON text) and their revision, for a caller that keeps them between evaluations. */
  stateRows(rule: string): Promise<StateRows>;
  /** Changes whenever another process commits: what a caller keeps in memory (and a StateDiff made against it) is stale then. */
  dataVersion(): Promise<number>;
  /** Rules with state or active alerts in the store (rule-failing ones under their own name). */
  ruleNames(): Promise<string[]>;
  /** stateRows of each store rule (a spread rule's parts), in one query; every one asked is in the map. */
  stateRowsOf(rules: readonly string[]): Promise<Map<string, StateRows>>;
  /** Each store rule's revision alone (0 for one never committed): whether parts kept in memory are still the stored ones. */
  revisionsOf(rules: readonly string[]): Promise<Map<string, number>>;
  /** Forgets removed rules' state and active alerts, with their parts (`name#SSS`, `!rule-failing:name#SSS`); alerts and outbox rows stay. */
  pruneRule(...rules: string[]): Promise<void>;
  /** Forgets exactly these store rules' state and active alerts, not their parts, and moves their revisions (app/layout.ts). */
  forgetExactly(storeRules: readonly string[]): Promise<void>;

  // ---- alerts

  /** The rule's state alerts (pending and firing) as of its last evaluation. */
  loadActive(rule: string): Promise<ActiveRow[]>;
  /** loadActive of each store rule (a spread rule's parts), in one query; every one asked is in the map. */
  loadActiveOf(rules: readonly string[]): Promise<Map<string, ActiveRow[]>>;
  /** Every state alert firing now (not pending), oldest first. */
  activeAlerts(): Promise<Array<ActiveRow & { rule: string }>>;
  /**
   * Commits an evaluation, all or nothing: the rule's new entity states (the whole set, or
   * what changed), its state alerts, and its alerts with their outbox rows; bumps the rule's
   * revision. With `expectRevision`, refused (StateConflictError, nothing written) when
   * another commit of the rule came since the evaluation read its states. `startedAt`: when
   * the evaluation began (an urgent alert's short wait counts from it). Returns the alerts' ids,
   * in order; an alert whose transition is stored already is skipped and gets the stored one's.
   */
  commitEvaluation(
    rule: string,
    states: Record<string, unknown> | StateDiff,
    alerts: readonly NewAlert[],
    now: number,
    active?: readonly ActiveRow[],
    expectRevision?: number,
    startedAt?: number,
  ): Promise<number[]>;
  /**
   * commitEvaluation of several parts and the alerts, in one transaction: all or nothing.
   * Every part is fenced (shared store), any stale → FencedError; any part's revision moved → StateConflictError.
   */
  commitParts(parts: readonly CommitPart[], alerts: readonly NewAlert[], now: number, startedAt?: number): Promise<number[]>;

  // ---- outbox

  /** Claims due rows of one receiver, oldest first, for leaseMs: no other process takes them until it ends. */
  claimDue(receiver: string, now: number, limit: number, leaseMs: number, skipGroups?: readonly string[]): Promise<OutboxRow[]>;
  /** Holds rows this process has just claimed a while longer (a batch of groups sent one by one). */
  extendLease(ids: readonly number[], until: number): Promise<void>;
  /** When the next pending row of a receiver can be claimed, if any. */
  nextDue(receiver: string, skipGroups?: readonly string[]): Promise<number | undefined>;
  /** Delivered. */
  markSent(id: number, now: number): Promise<void>;
  /** A failed attempt, to be tried again; `unknownOutcome`: it was sent but got no answer. */
  markRetry(id: number, nextAttemptAt: number, error: string, now: number, unknownOutcome?: boolean): Promise<void>;
  /** Given up on (dead-lettered), with why. */
  markDead(id: number, error: string, now: number): Promise<void>;
  /** Gives a claimed row back untouched (the attempt was cut short by shutdown). */
  release(id: number): Promise<void>;
  /** A row muted at delivery: marked muted and, for a state alert still firing, owed to its receiver when the mute ends. */
  muteWaiting(row: Pick<OutboxRow, 'id' | 'receiver' | 'message'>, reason: string, now: number): Promise<void>;
  /** Rows still to send. */
  pendingCount(): Promise<number>;
  /** How many outbox rows are in each state (the status page). */
  outboxCounts(): Promise<Record<OutboxState, number>>;
  /** Per receiver: last success, pending, dead and its newest error (the status page). */
  receiverStats(): Promise<ReceiverStats[]>;
  /** Per receiver: rows dead-lettered since its last delivery, from `since` on (delivery's health at start). */
  deadLetters(since: number): Promise<DeadLetters[]>;
  /** Outbox rows by state, newest first (`avawatch outbox`). */
  outbox(state?: OutboxState): Promise<OutboxListRow[]>;

  // ---- silences (wall times)

  /** Returns the new silence's id. */
  addSilence(s: Omit<Silence, 'id'>): Promise<number>;
  /** Silences in force at `now`, or (all) every one, newest first. */
  silences(now: number, all?: boolean): Promise<Silence[]>;
  /** Ends a silence now; false when there is none with that id still in force. */
  expireSilence(id: number, now: number): Promise<boolean>;

  // ---- history

  /** Events and state alerts firing or resolving (no reminders), newest first. */
  timeline(q: TimelineQuery): Promise<HistoryEntry[]>;
  /** The newest event about each node since `since`, newest first. */
  lastEvents(since: number, limit?: number): Promise<HistoryEntry[]>;
  /** One figure per series, entity and moment (a later one replaces it; NaN and infinities are dropped). */
  addSamples(samples: readonly Sample[]): Promise<void>;
  /** Each entity's newest sample time in a series. */
  lastSampleAt(series: string): Promise<Map<string, number>>;
  /** One entity's samples of a series since `since`, oldest first; with until and points, at most points + 1 (each slice's lowest, then the latest). */
  samples(series: string, entity: string, since: number, o?: { until?: number; points?: number }): Promise<Sample[]>;
  /** Forgets samples and alerts older than `before`, at most `limit` of each (never one a pending notification waits for). */
  pruneHistory(before: number, limit?: number): Promise<{ samples: number; alerts: number }>;

  // ---- maintenance

  /** Steady times of a previous run more than `toleranceMs` ahead of `now`: shifted back together; returns the shift. */
  reanchor(now: number, toleranceMs: number): Promise<number>;
  /** Rejects when the store no longer answers (for /readyz). */
  ping(): Promise<void>;
  /** Present when the store keeps freed space until it is given back (history/prune.ts then shrinks it). */
  readonly fileSpace?: FileSpace;
  /** Present when several instances share the store and spread its rules over leases. */
  readonly shards?: SharedShards;
  /** Present when several instances share the store and spend one compute-unit budget per API key. */
  readonly budget?: SharedBudget;
  /** Lets the store go; a second close does nothing. */
  close(): Promise<void>;
}
