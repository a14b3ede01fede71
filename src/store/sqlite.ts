import type Database from 'better-sqlite3';
import { firingRows, loadActive, loadActiveOf, owedAfterMute, partsOf, writeActive } from './active.js';
import * as history from './history.js';
import { openDatabase } from './open.js';
import * as outbox from './outbox.js';
import { reanchor } from './reanchor.js';
import * as silences from './silences.js';
import { checkParts, partBases } from './parts.js';
import { bumpRevision, revisionsOf, stateRows, stateRowsOf, writeStates } from './states.js';
import { statement } from './statement.js';
import type {
  ActiveRow,
  CommitPart,
  DeadLetters,
  FileSpace,
  HistoryEntry,
  NewAlert,
  OutboxListRow,
  OutboxRow,
  OutboxState,
  ReceiverStats,
  Sample,
  Silence,
  StateDiff,
  StateRows,
  StateStore,
  TimelineQuery,
} from './types.js';

// The SQLite implementation of StateStore (types.ts): one file (WAL, so readers never block
// the daemon's writer; several processes may open it), one module per concern:
//   states.ts    entity_state, rule_revision
//   active.ts    active_alerts
//   outbox.ts    alerts, outbox
//   silences.ts  silences
//   history.ts   samples, and alerts read as a timeline
//   open.ts      opening, checking and migrating the file (migrations.ts)
//   reanchor.ts  the steady clock's times of a previous run, brought back to this run's
// Every write that belongs together runs in one transaction, opened here. better-sqlite3 is
// synchronous: each method runs whole before it returns its Promise (an exception becomes
// its rejection), so a transaction never spans an await.

export class SqliteStore implements StateStore {
  readonly #db: Database.Database;

  private constructor(db: Database.Database) {
    this.#db = db;
  }

  /** Opens, checks and migrates the file (`:memory:` for a store of one process); fails loudly naming it (open.ts). */
  static open(path: string, options: { write?: boolean } = {}): SqliteStore {
    return new SqliteStore(openDatabase(path, options.write !== false));
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }

  /** Rejects when the state file no longer answers (for /readyz). */
  async ping(): Promise<void> {
    statement(this.#db, 'SELECT 1').get();
  }

  /** Changes when another process commits to the file: what a caller keeps in memory is stale then. */
  async dataVersion(): Promise<number> {
    return this.#dataVersion();
  }

  #dataVersion(): number {
    return this.#db.pragma('data_version', { simple: true }) as number;
  }

  // ---- states

  /** A rule's states as stored (JSON text) and their revision, for a caller that keeps them between evaluations. */
  async stateRows(rule: string): Promise<StateRows> {
    return stateRows(this.#db, rule);
  }

  /** Each store rule's states and revision (a spread rule's parts), in one query. */
  async stateRowsOf(rules: readonly string[]): Promise<Map<string, StateRows>> {
    return stateRowsOf(this.#db, rules);
  }

  async revisionsOf(rules: readonly string[]): Promise<Map<string, number>> {
    return revisionsOf(this.#db, rules);
  }

  /** Rules with state or active alerts in the file (rule-failing ones under their own name). */
  async ruleNames(): Promise<string[]> {
    const rows = statement(this.#db, 'SELECT rule FROM entity_state UNION SELECT rule FROM active_alerts').all() as Array<{ rule: string }>;
    return rows.map((r) => r.rule);
  }

  /** Forgets removed rules' state and active alerts, with their parts; their alerts and outbox rows stay (nothing queued is lost). */
  async forgetExactly(storeRules: readonly string[]): Promise<void> {
    this.#db.transaction(() => {
      for (const rule of storeRules) {
        for (const table of ['entity_state', 'active_alerts']) statement(this.#db, `DELETE FROM ${table} WHERE rule = ?`).run(rule);
        bumpRevision(this.#db, rule);
      }
    })();
  }

  async pruneRule(...rules: string[]): Promise<void> {
    this.#db.transaction(() => {
      for (const table of ['entity_state', 'active_alerts']) {
        for (const rule of rules) statement(this.#db, `DELETE FROM ${table} WHERE rule = ?`).run(rule);
        for (const base of partBases(rules)) statement(this.#db, `DELETE FROM ${table} WHERE ${partsOf('@base')}`).run({ base });
      }
    })();
  }

  // ---- active alerts

  /** The rule's state alerts (pending and firing) as of its last evaluation. */
  async loadActive(rule: string): Promise<ActiveRow[]> {
    return loadActive(this.#db, rule);
  }

  /** Each store rule's state alerts (a spread rule's parts), in one query. */
  async loadActiveOf(rules: readonly string[]): Promise<Map<string, ActiveRow[]>> {
    return loadActiveOf(this.#db, rules);
  }

  /** Every state alert firing now (not pending), oldest first. */
  async activeAlerts(): Promise<Array<ActiveRow & { rule: string }>> {
    return firingRows(this.#db);
  }

  /**
   * Commits an evaluation, all or nothing: the rule's new entity states (the whole set, or
   * what changed), its state alerts, and its alerts with their outbox rows. With
   * `expectRevision`, refused (StateConflictError) when another commit of the rule came
   * since the evaluation read its states. `startedAt`: when the evaluation began (an urgent
   * alert's short wait counts from it). Returns the alerts' ids.
   */
  async commitEvaluation(
    rule: string,
    states: Record<string, unknown> | StateDiff,
    alerts: readonly NewAlert[],
    now: number,
    active?: readonly ActiveRow[],
    expectRevision?: number,
    startedAt = now,
  ): Promise<number[]> {
    return this.commitParts([{ rule, states, active, expectRevision }], alerts, now, startedAt);
  }

  /** Several parts' commits and the alerts in one transaction: the first part whose revision moved refuses them all (no fences: one machine holds all). */
  async commitParts(parts: readonly CommitPart[], alerts: readonly NewAlert[], now: number, startedAt = now): Promise<number[]> {
    checkParts(parts);
    const db = this.#db;
    const tx = db.transaction(() => {
      const version = this.#dataVersion();
      for (const p of parts) {
        writeStates(db, p.rule, p.states, now, version, p.expectRevision);
        if (p.active) writeActive(db, p.rule, p.active);
      }
      return outbox.insertAlerts(db, alerts, now, startedAt);
    });
    // IMMEDIATE: the revision checks and the writes hold the write lock together.
    return tx.immediate();
  }

  // ---- outbox

  /**
   * Claims due rows of one receiver in the order they were created, for leaseMs: another process (a daemon
   * beside `once --send`) does not take them meanwhile; a crashed sender's lease expires.
   */
  async claimDue(receiver: string, now: number, limit: number, leaseMs: number, skipGroups: readonly string[] = []): Promise<OutboxRow[]> {
    return outbox.claimDue(this.#db, receiver, now, limit, leaseMs, skipGroups);
  }

  /** Holds rows this process has just claimed a while longer (a batch of groups sent one by one). */
  async extendLease(ids: readonly number[], until: number): Promise<void> {
    outbox.extendLease(this.#db, ids, until);
  }

  /** When the next pending row of a receiver can be claimed, if any. */
  async nextDue(receiver: string, skipGroups: readonly string[] = []): Promise<number | undefined> {
    return outbox.nextDue(this.#db, receiver, skipGroups);
  }

  async markSent(id: number, now: number): Promise<void> {
    outbox.markSent(this.#db, id, now);
  }

  /** A failed attempt, to be tried again; `unknownOutcome`: it was sent but got no answer. */
  async markRetry(id: number, nextAttemptAt: number, error: string, now: number, unknownOutcome = false): Promise<void> {
    outbox.markRetry(this.#db, id, nextAttemptAt, error, now, unknownOutcome);
  }

  async markDead(id: number, error: string, now: number): Promise<void> {
    outbox.markDead(this.#db, id, error, now);
  }

  /** Gives a claimed row back untouched (the attempt was cut short by shutdown). */
  async release(id: number): Promise<void> {
    outbox.release(this.#db, id);
  }

  /**
   * A row muted at delivery (a silence added while it waited): marked muted and, for a firing
   * notification of a state alert still firing, owed to its receiver when the mute ends (the
   * rule's revision moves, so an evaluation that read the alert before commits again).
   */
  async muteWaiting(row: Pick<OutboxRow, 'id' | 'receiver' | 'message'>, reason: string, now: number): Promise<void> {
    const db = this.#db;
    db.transaction(() => {
      outbox.markMuted(db, row.id, reason, now);
      const { rule, status, conditionKey } = row.message;
      if (status !== 'firing' || conditionKey === undefined) return;
      for (const owed of owedAfterMute(db, rule, conditionKey, row.receiver, now)) bumpRevision(db, owed);
    }).immediate();
  }

  async pendingCount(): Promise<number> {
    return outbox.pendingCount(this.#db);
  }

  /** How many outbox rows are in each state (the status page). */
  async outboxCounts(): Promise<Record<OutboxState, number>> {
    return outbox.outboxCounts(this.#db);
  }

  /** Per receiver: last success, pending, dead and its newest error (the status page). */
  async receiverStats(): Promise<ReceiverStats[]> {
    return outbox.receiverStats(this.#db);
  }

  /** Per receiver: rows dead-lettered since its last delivery, from `since` on (delivery's health at start). */
  async deadLetters(since: number): Promise<DeadLetters[]> {
    return outbox.deadLetters(this.#db, since);
  }

  /** Outbox rows by state, newest first (for tests and `avawatch outbox`). */
  async outbox(state?: OutboxState): Promise<OutboxListRow[]> {
    return outbox.listOutbox(this.#db, state);
  }

  // ---- silences

  async addSilence(s: Omit<Silence, 'id'>): Promise<number> {
    return silences.addSilence(this.#db, s);
  }

  /** Silences in force at `now`, or (all) every one, newest first. */
  async silences(now: number, all = false): Promise<Silence[]> {
    return silences.silences(this.#db, now, all);
  }

  /** Ends a silence now; false when there is none with that id still in force. */
  async expireSilence(id: number, now: number): Promise<boolean> {
    return silences.expireSilence(this.#db, id, now);
  }

  // ---- history

  /** Events and state alerts firing or resolving (no reminders), newest first. */
  async timeline(q: TimelineQuery): Promise<HistoryEntry[]> {
    return history.timeline(this.#db, q);
  }

  /** The newest event about each node since `since`, newest first. */
  async lastEvents(since: number, limit?: number): Promise<HistoryEntry[]> {
    return history.lastEvents(this.#db, since, limit);
  }

  async addSamples(samples: readonly Sample[]): Promise<void> {
    history.addSamples(this.#db, samples);
  }

  /** Each entity's newest sample time in a series. */
  async lastSampleAt(series: string): Promise<Map<string, number>> {
    return history.lastSampleAt(this.#db, series);
  }

  /** One entity's samples of a series since `since`, oldest first. */
  async samples(series: string, entity: string, since: number, o: { until?: number; points?: number } = {}): Promise<Sample[]> {
    return history.samples(this.#db, series, entity, since, o);
  }

  /** Steady times of a previous run more than `toleranceMs` ahead of `now`: shifted back together; the shift (reanchor.ts). */
  async reanchor(now: number, toleranceMs: number): Promise<number> {
    return reanchor(this.#db, now, toleranceMs);
  }

  /** Forgets samples and alerts older than `before` (never one a pending notification waits for). */
  async pruneHistory(before: number, limit?: number): Promise<{ samples: number; alerts: number }> {
    return history.pruneHistory(this.#db, before, limit);
  }

  /** SQLite keeps the pages deletes free until an incremental vacuum gives them back (history/prune.ts). */
  readonly fileSpace: FileSpace = {
    freePages: async () => history.freePages(this.#db),
    vacuumStep: async (pages) => history.vacuumStep(this.#db, pages),
  };
}
