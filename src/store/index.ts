import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import type { Target } from '../alerts/route.js';
import type { AlertMessage } from '../notify/types.js';
import { SEVERITIES } from '../rules/types.js';
import { MIGRATIONS } from './migrations.js';

// The only module with SQL. Every write that belongs together runs in one transaction here.

/** What changed in a rule's states since its last commit: rows to write (JSON) and to delete. */
export class StateDiff {
  constructor(
    readonly upsert: ReadonlyArray<readonly [string, string]>,
    readonly remove: readonly string[],
    /** The file's data_version the diff was made against, and the whole set to write instead if another process wrote since. */
    readonly against?: { version: number; all: ReadonlyMap<string, string> },
  ) {}
}

export class StoreError extends Error {
  override readonly name = 'StoreError';
}

/** The rule's stored state changed since the evaluation read it (another process committed): nothing was written. */
export class StateConflictError extends Error {
  override readonly name = 'StateConflictError';
}

export interface NewAlert extends Omit<AlertMessage, 'alertId' | 'at'> {
  /** Where to queue it; empty records it without sending. */
  targets: readonly Target[];
}

export interface OutboxRow {
  id: number;
  receiver: string;
  attempts: number;
  createdAt: number;
  groupKey: string;
  groupIntervalMs: number;
  message: AlertMessage;
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

interface RawActive {
  key: string;
  tier: string;
  state: string;
  started_at: number;
  notified_at: number | null;
  cleared_at: number | null;
  muted_at: number | null;
  muted_receivers: string;
  notified_receivers: string;
  condition: string;
}

function activeRow(r: RawActive): ActiveRow {
  return {
    key: r.key,
    tier: r.tier,
    state: r.state === 'pending' ? 'pending' : 'firing',
    startedAt: r.started_at,
    notifiedAt: r.notified_at,
    clearedAt: r.cleared_at,
    mutedAt: r.muted_at,
    mutedReceivers: JSON.parse(r.muted_receivers) as string[],
    notifiedReceivers: JSON.parse(r.notified_receivers) as Record<string, number>,
    condition: JSON.parse(r.condition) as unknown,
  };
}

const record = z.record(z.string(), z.string());
const alertRow = z.object({
  alert_id: z.number(),
  rule: z.string(),
  kind: z.string(),
  status: z.enum(['firing', 'resolved', 'event']),
  severity: z.enum(SEVERITIES),
  subject: z.string(),
  summary: z.string(),
  labels: z.string().transform((s) => record.parse(JSON.parse(s))),
  details: z.string().transform((s) => record.parse(JSON.parse(s))),
  created_at: z.number(),
});

export class Store {
  readonly #db: Database.Database;

  private constructor(db: Database.Database) {
    this.#db = db;
  }

  /**
   * Opens (creating the directory and file when missing), checks and migrates. Fails loudly,
   * naming the file and what to do, and never replaces or resets an existing file: a corrupt
   * file is refused before anything is written to it, a file another process holds a write
   * lock on (past the busy timeout) or that cannot be written is refused at once, instead of
   * every later commit failing.
   */
  static open(path: string, options: { write?: boolean } = {}): Store {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    let db: Database.Database | undefined;
    try {
      db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
      // Before anything writes (the journal mode lives in the header): a damaged file stays as it is.
      checkIntact(db, path);
      db.pragma('journal_mode = WAL');
      // NORMAL in WAL survives kill -9 without losing a committed transaction.
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      migrate(db);
      // The daemon must be able to commit; better to know now than at its first change.
      if (options.write !== false) {
        db.exec('BEGIN IMMEDIATE');
        db.exec('ROLLBACK');
      }
    } catch (err) {
      if (db?.open) db.close();
      if (err instanceof StoreError) throw err;
      throw new StoreError(`cannot open state file ${path}: ${explain(err)}`);
    }
    return new Store(db);
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }

  /** Every entity's stored state for a rule, as raw JSON values for the kind to parse. */
  loadStates(rule: string): Record<string, unknown> {
    const rows = this.#db.prepare('SELECT entity, state FROM entity_state WHERE rule = ?').all(rule) as Array<{
      entity: string;
      state: string;
    }>;
    return Object.fromEntries(rows.map((r) => [r.entity, JSON.parse(r.state) as unknown]));
  }

  /** A rule's states as stored (JSON text) and their revision, read together, for a caller that keeps them between evaluations. */
  stateRows(rule: string): { rows: Array<{ entity: string; state: string }>; revision: number } {
    return this.#db.transaction(() => ({
      rows: this.#db.prepare('SELECT entity, state FROM entity_state WHERE rule = ?').all(rule) as Array<{ entity: string; state: string }>,
      revision: this.#revision(rule),
    }))();
  }

  #revision(rule: string): number {
    const row = this.#db.prepare('SELECT revision FROM rule_revision WHERE rule = ?').get(rule) as { revision: number } | undefined;
    return row?.revision ?? 0;
  }

  /** Changes when another process commits to the file: what a caller keeps in memory is stale then. */
  dataVersion(): number {
    return this.#db.pragma('data_version', { simple: true }) as number;
  }

  /**
   * Commits an evaluation: the rule's new entity states (replacing the old set) and its
   * alerts with their outbox rows, all or nothing. Returns the alerts' ids.
   */
  /** Every state alert firing now (not pending), oldest first. */
  activeAlerts(): Array<ActiveRow & { rule: string }> {
    const rows = this.#db
      .prepare(`SELECT rule, key, tier, state, started_at, notified_at, cleared_at, muted_at, muted_receivers, notified_receivers, condition FROM active_alerts WHERE state = 'firing' ORDER BY started_at, rule, key`)
      .all() as Array<RawActive & { rule: string }>;
    return rows.map((r) => ({ rule: r.rule, ...activeRow(r) }));
  }

  /** Throws when the state file no longer answers (for /readyz). */
  ping(): void {
    this.#db.prepare('SELECT 1').get();
  }

  /** Rules with state or active alerts in the file (rule-failing ones under their own name). */
  ruleNames(): string[] {
    const rows = this.#db.prepare('SELECT rule FROM entity_state UNION SELECT rule FROM active_alerts').all() as Array<{ rule: string }>;
    return rows.map((r) => r.rule);
  }

  /** Forgets removed rules' state and active alerts; their alerts and outbox rows stay (nothing queued is lost). */
  pruneRule(...rules: string[]): void {
    const tx = this.#db.transaction(() => {
      for (const rule of rules) {
        this.#db.prepare('DELETE FROM entity_state WHERE rule = ?').run(rule);
        this.#db.prepare('DELETE FROM active_alerts WHERE rule = ?').run(rule);
      }
    });
    tx();
  }

  /** The rule's state alerts (pending and firing) as of its last evaluation. */
  loadActive(rule: string): ActiveRow[] {
    const rows = this.#db
      .prepare('SELECT key, tier, state, started_at, notified_at, cleared_at, muted_at, muted_receivers, notified_receivers, condition FROM active_alerts WHERE rule = ?')
      .all(rule) as RawActive[];
    return rows.map(activeRow);
  }

  commitEvaluation(
    rule: string,
    /** The whole new set (replacing the old), or only what changed. */
    states: Record<string, unknown> | StateDiff,
    alerts: readonly NewAlert[],
    now: number,
    active?: readonly ActiveRow[],
    /** The revision the evaluation read: another commit since refuses this one (StateConflictError). */
    expectRevision?: number,
  ): number[] {
    const db = this.#db;
    const upsert = db.prepare(
      `INSERT INTO entity_state (rule, entity, state, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (rule, entity) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at
       WHERE state <> excluded.state`,
    );
    const insertAlert = db.prepare(
      `INSERT INTO alerts (rule, kind, status, severity, subject, summary, labels, details, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertOutbox = db.prepare(
      `INSERT INTO outbox (alert_id, receiver, next_attempt_at, created_at, updated_at, group_key, group_wait, group_interval)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const tx = db.transaction(() => {
      const revision = this.#revision(rule);
      if (expectRevision !== undefined && revision !== expectRevision) {
        throw new StateConflictError(`the state of rule "${rule}" changed since it was read (revision ${expectRevision} → ${revision})`);
      }
      db.prepare('INSERT INTO rule_revision (rule, revision) VALUES (?, ?) ON CONFLICT (rule) DO UPDATE SET revision = excluded.revision').run(rule, revision + 1);
      if (active) {
        db.prepare('DELETE FROM active_alerts WHERE rule = ?').run(rule);
        const insert = db.prepare(
          `INSERT INTO active_alerts (rule, key, tier, state, started_at, notified_at, cleared_at, muted_at, muted_receivers, notified_receivers, condition)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        );
        for (const a of active) {
          const muted = JSON.stringify(a.mutedReceivers);
          insert.run(rule, a.key, a.tier, a.state, a.startedAt, a.notifiedAt, a.clearedAt, a.mutedAt, muted, JSON.stringify(a.notifiedReceivers), JSON.stringify(a.condition));
        }
      }
      if (states instanceof StateDiff && states.against && this.dataVersion() !== states.against.version) {
        // Another process wrote since the diff was made: write the whole set, as it stands.
        db.prepare('DELETE FROM entity_state WHERE rule = ?').run(rule);
        for (const [entity, json] of states.against.all) upsert.run(rule, entity, json, now);
      } else if (states instanceof StateDiff) {
        // Only what changed: at 100k entities, rewriting every row is most of a cycle.
        const remove = db.prepare('DELETE FROM entity_state WHERE rule = ? AND entity = ?');
        for (const entity of states.remove) remove.run(rule, entity);
        for (const [entity, json] of states.upsert) upsert.run(rule, entity, json, now);
      } else {
        const keep = Object.keys(states);
        db.prepare(`DELETE FROM entity_state WHERE rule = ? AND entity NOT IN (SELECT value FROM json_each(?))`).run(rule, JSON.stringify(keep));
        for (const [entity, state] of Object.entries(states)) upsert.run(rule, entity, JSON.stringify(state), now);
      }
      return alerts.map((a) => {
        const { lastInsertRowid } = insertAlert.run(
          a.rule,
          a.kind,
          a.status,
          a.severity,
          a.subject,
          a.summary,
          JSON.stringify(a.labels),
          JSON.stringify(a.details),
          now,
        );
        const id = Number(lastInsertRowid);
        for (const t of a.targets) {
          const { lastInsertRowid: row } = insertOutbox.run(id, t.receiver, now, now, now, t.groupKey, t.groupWaitMs, t.groupIntervalMs);
          // Muted: recorded with why, never sent and never lost.
          if (t.mutedBy) db.prepare(`UPDATE outbox SET state = 'muted', last_error = ? WHERE id = ?`).run(t.mutedBy, row);
        }
        return id;
      });
    });
    // IMMEDIATE: the revision check and the writes hold the write lock together.
    return tx.immediate();
  }

  /**
   * Claims due rows of one receiver in the order they were created, for leaseMs: another process (a daemon
   * beside `once --send`) does not take them meanwhile; a crashed sender's lease expires.
   */
  claimDue(receiver: string, now: number, limit: number, leaseMs: number, skipGroups: readonly string[] = []): OutboxRow[] {
    // groupWait counts from the group's first pending row; groups inside their groupInterval are skipped.
    const claim = this.#db.transaction(() => {
      const ids = this.#db
        .prepare(
          `UPDATE outbox SET lease_until = ? WHERE id IN (
             SELECT id FROM outbox
              WHERE state = 'pending' AND receiver = ? AND next_attempt_at <= ? AND lease_until <= ?
                AND (SELECT MIN(g.created_at) FROM outbox g WHERE g.state = 'pending' AND g.receiver = outbox.receiver AND g.group_key = outbox.group_key) + group_wait <= ?
                AND group_key NOT IN (SELECT value FROM json_each(?))
              ORDER BY id LIMIT ?)
           RETURNING id`,
        )
        .all(now + leaseMs, receiver, now, now, now, JSON.stringify(skipGroups), limit) as Array<{ id: number }>;
      return this.#outboxRows(ids.map((r) => r.id));
    });
    return claim.immediate();
  }

  #outboxRows(ids: number[]): OutboxRow[] {
    const rows = this.#db
      .prepare(
        `SELECT o.id, o.receiver, o.attempts, o.created_at AS outbox_created_at, o.group_key, o.group_interval, a.id AS alert_id, a.rule, a.kind,
                a.status, a.severity, a.subject, a.summary, a.labels, a.details, a.created_at
           FROM outbox o JOIN alerts a ON a.id = o.alert_id
          WHERE o.id IN (SELECT value FROM json_each(?))
          ORDER BY o.id`,
      )
      .all(JSON.stringify(ids)) as Array<Record<string, unknown>>;
    return rows.map((row) => {
      const a = alertRow.parse(row);
      return {
        id: row['id'] as number,
        receiver: row['receiver'] as string,
        attempts: row['attempts'] as number,
        createdAt: row['outbox_created_at'] as number,
        groupKey: row['group_key'] as string,
        groupIntervalMs: row['group_interval'] as number,
        message: {
          alertId: a.alert_id,
          rule: a.rule,
          kind: a.kind,
          status: a.status,
          severity: a.severity,
          subject: a.subject,
          summary: a.summary,
          labels: a.labels,
          details: a.details,
          at: new Date(a.created_at).toISOString(),
        },
      };
    });
  }

  /** Holds rows this process has just claimed a while longer (a batch of groups sent one by one). */
  extendLease(ids: readonly number[], until: number): void {
    const stmt = this.#db.prepare('UPDATE outbox SET lease_until = ? WHERE id = ? AND lease_until < ?');
    this.#db.transaction(() => {
      for (const id of ids) stmt.run(until, id, until);
    })();
  }

  /** When the next pending row of a receiver can be claimed, if any. */
  nextDue(receiver: string, skipGroups: readonly string[] = []): number | undefined {
    const row = this.#db
      .prepare(
        `SELECT MIN(MAX(next_attempt_at, lease_until, (SELECT MIN(g.created_at) FROM outbox g WHERE g.state = 'pending' AND g.receiver = outbox.receiver AND g.group_key = outbox.group_key) + group_wait)) AS at
           FROM outbox WHERE state = 'pending' AND receiver = ? AND group_key NOT IN (SELECT value FROM json_each(?))`,
      )
      .get(receiver, JSON.stringify(skipGroups)) as { at: number | null };
    return row.at ?? undefined;
  }

  markSent(id: number, now: number): void {
    this.#db
      .prepare(`UPDATE outbox SET state = 'sent', attempts = attempts + 1, lease_until = 0, updated_at = ? WHERE id = ?`)
      .run(now, id);
  }

  markRetry(id: number, nextAttemptAt: number, error: string, now: number): void {
    this.#db
      .prepare(
        `UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?, last_error = ?, lease_until = 0, updated_at = ? WHERE id = ?`,
      )
      .run(nextAttemptAt, error, now, id);
  }

  markDead(id: number, error: string, now: number): void {
    this.#db
      .prepare(`UPDATE outbox SET state = 'dead', attempts = attempts + 1, last_error = ?, lease_until = 0, updated_at = ? WHERE id = ?`)
      .run(error, now, id);
  }

  /** Gives a claimed row back untouched (the attempt was cut short by shutdown). */
  release(id: number): void {
    this.#db.prepare(`UPDATE outbox SET lease_until = 0 WHERE id = ?`).run(id);
  }

  pendingCount(): number {
    return (this.#db.prepare(`SELECT COUNT(*) AS n FROM outbox WHERE state = 'pending'`).get() as { n: number }).n;
  }

  addSilence(s: Omit<Silence, 'id'>): number {
    const { lastInsertRowid } = this.#db
      .prepare('INSERT INTO silences (matchers, starts_at, ends_at, comment, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(JSON.stringify(s.matchers), s.startsAt, s.endsAt, s.comment, s.createdBy, s.createdAt);
    return Number(lastInsertRowid);
  }

  /** Silences in force at `now`, or (all) every one, newest first. */
  silences(now: number, all = false): Silence[] {
    const rows = this.#db
      .prepare(`SELECT * FROM silences WHERE (? OR (starts_at <= ? AND ends_at > ?)) ORDER BY id DESC`)
      .all(all ? 1 : 0, now, now) as Array<Record<string, unknown>>;
    return rows.map((r) => ({
      id: r['id'] as number,
      matchers: JSON.parse(r['matchers'] as string) as Matcher[],
      startsAt: r['starts_at'] as number,
      endsAt: r['ends_at'] as number,
      comment: r['comment'] as string,
      createdBy: r['created_by'] as string,
      createdAt: r['created_at'] as number,
    }));
  }

  /** Ends a silence now; false when there is none with that id still in force. */
  expireSilence(id: number, now: number): boolean {
    return this.#db.prepare('UPDATE silences SET ends_at = ? WHERE id = ? AND ends_at > ?').run(now, id, now).changes > 0;
  }

  /** Outbox rows by state, newest first (for tests and `avawatch outbox`). */
  outbox(state?: 'pending' | 'sent' | 'dead' | 'muted'): Array<{ id: number; receiver: string; state: string; attempts: number; lastError: string | null; summary: string }> {
    return this.#db
      .prepare(
        `SELECT o.id, o.receiver, o.state, o.attempts, o.last_error AS lastError, a.summary
           FROM outbox o JOIN alerts a ON a.id = o.alert_id
          WHERE (? IS NULL OR o.state = ?) ORDER BY o.id DESC`,
      )
      .all(state ?? null, state ?? null) as never;
  }
}

/** How long a statement waits for another process's lock before it fails (SQLITE_BUSY). */
const BUSY_TIMEOUT_MS = 5_000;

const RESTORE = 'restore it from a backup (docs/operations.md), or move it away to start afresh (every watched entity is then a new baseline); avawatch never replaces it by itself';

/** SQLite's own words, and what they mean for an operator. */
function explain(err: unknown): string {
  const e = err as { code?: string; message?: string };
  const said = e.message ?? String(err);
  const code = e.code ?? '';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return `${said}: another process has held a write lock on it for more than ${BUSY_TIMEOUT_MS / 1000}s (another avawatch with the same state file? a backup or an sqlite3 shell?)`;
  }
  if (code.startsWith('SQLITE_READONLY') || code === 'EACCES' || code === 'EROFS') {
    return `${said}: avawatch must be able to write the file and create files beside it (-wal, -shm): check the permissions of the file and of its directory`;
  }
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return `${said}: the file is damaged or not an avawatch state file; ${RESTORE}`;
  if (code.startsWith('SQLITE_CANTOPEN')) return `${said}: check that its directory exists and that avawatch may write there`;
  return said;
}

/** PRAGMA quick_check: refuses a damaged file before anything reads it as state. */
function checkIntact(db: Database.Database, path: string): void {
  let rows: Array<{ quick_check: string }>;
  try {
    rows = db.pragma('quick_check') as Array<{ quick_check: string }>;
  } catch (err) {
    // Damage bad enough that the check itself cannot walk the file.
    if (!String((err as { code?: string }).code).startsWith('SQLITE_CORRUPT')) throw err;
    rows = [{ quick_check: (err as Error).message }];
  }
  const problems = rows.map((r) => r.quick_check.replace(/\*\*\* in database \w+ \*\*\*/g, '').replace(/\s+/g, ' ').trim()).filter((r) => r !== 'ok');
  if (problems.length === 0) return;
  const more = problems.length > 1 ? ` (+${problems.length - 1} more)` : '';
  throw new StoreError(`state file ${path} is corrupt (${problems[0]}${more}); ${RESTORE}`);
}

function migrate(db: Database.Database): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > MIGRATIONS.length) {
    throw new StoreError(
      `state file schema version ${version} is newer than this avawatch knows (${MIGRATIONS.length}): upgrade avawatch or restore a backup`,
    );
  }
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v] as string);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}
