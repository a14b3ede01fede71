import type Database from 'better-sqlite3';
import { outboxRowOf, textAlertRow } from './rows.js';
import { statement } from './statement.js';
import { DIGEST_GROUP, type DeadLetters, type NewAlert, type OutboxListRow, type OutboxRow, type OutboxState, type OutboxTarget, type ReceiverStats } from './types.js';

// Tables: alerts (every notification an evaluation produced) and outbox (one row per alert
// and receiver: pending, sent, dead or muted; leased while a sender has it).

/**
 * The most an urgent row (a critical, or the first news of its group) waits after its poll
 * began, whatever the route's groupWait: long enough for what the other rules of the same
 * poll say to join it, short enough that it reaches the receiver within the poll interval
 * + 1 s (the rest of the second is the sending's).
 */
export const URGENT_WAIT_MS = 800;
/** What an urgent row waits at least after it was queued (a slow poll's siblings still join it). */
export const URGENT_FLOOR_MS = 100;

/**
 * Within a commit's transaction: the alerts, and an outbox row per target (muted ones recorded
 * with why). `startedAt`: when the evaluation began. Returns their ids, in order. An alert whose
 * transition is stored already (the same news, committed before) is skipped with its outbox
 * rows: its id is the stored alert's.
 */
export function insertAlerts(db: Database.Database, alerts: readonly NewAlert[], now: number, startedAt = now): number[] {
  const insertAlert = statement(db, `INSERT INTO alerts (rule, kind, status, severity, subject, summary, labels, details, created_at, condition_key, reminder, transition)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (rule, kind, condition_key, transition) WHERE transition IS NOT NULL DO NOTHING
     RETURNING id`);
  const insertOutbox = statement(db, `INSERT INTO outbox (alert_id, receiver, next_attempt_at, created_at, updated_at, group_key, group_wait, group_interval, digest_at, urgent)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  return alerts.map((a) => {
    const inserted = insertAlert.get(a.rule, a.kind, a.status, a.severity, a.subject, a.summary, JSON.stringify(a.labels), JSON.stringify(a.details), now, a.conditionKey ?? null, a.reminder ? 1 : 0, a.transition ?? null) as { id: number } | undefined;
    if (inserted === undefined) return storedTransition(db, a);
    const id = inserted.id;
    for (const t of a.targets) {
      const urgent = t.digestAt === undefined && t.mutedBy === undefined && t.minWaitMs === undefined && (a.severity === 'critical' || firstNews(db, t, now));
      // Stored as what is left of it at the commit.
      const wait = urgent ? Math.min(t.groupWaitMs, Math.max(URGENT_WAIT_MS - (now - startedAt), URGENT_FLOOR_MS)) : t.groupWaitMs;
      // A digest row waits for its slot in the receiver's one digest group.
      const row = t.digestAt === undefined
        ? insertOutbox.run(id, t.receiver, now + (t.minWaitMs ?? 0), now, now, t.groupKey, wait, t.groupIntervalMs, null, urgent ? 1 : 0).lastInsertRowid
        : insertOutbox.run(id, t.receiver, t.digestAt, now, now, DIGEST_GROUP, 0, 0, t.digestAt, 0).lastInsertRowid;
      // Muted: recorded with why, never sent and never lost.
      if (t.mutedBy) statement(db, `UPDATE outbox SET state = 'muted', last_error = ? WHERE id = ?`).run(t.mutedBy, row);
    }
    return id;
  });
}

/** The id of the alert stored for this one's transition. */
function storedTransition(db: Database.Database, a: NewAlert): number {
  const row = statement(db, 'SELECT id FROM alerts WHERE rule = ? AND kind = ? AND condition_key = ? AND transition = ?').get(a.rule, a.kind, a.conditionKey, a.transition) as { id: number };
  return row.id;
}

/**
 * The first news of a group: nothing of it waits, and nothing of it was sent within its
 * groupInterval. Judged from the file, so a restart keeps the verdict.
 */
function firstNews(db: Database.Database, t: OutboxTarget, now: number): boolean {
  const seen = statement(db, `SELECT 1 FROM outbox
        WHERE receiver = ? AND group_key = ? AND (state = 'pending' OR (state = 'sent' AND updated_at > ?)) LIMIT 1`)
    .get(t.receiver, t.groupKey, now - t.groupIntervalMs);
  return seen === undefined;
}

/** An urgent row of the same group that this claim takes too: its group goes with it. */
const URGENT_IN_GROUP = `EXISTS (SELECT 1 FROM outbox u
   WHERE u.state = 'pending' AND u.receiver = outbox.receiver AND u.group_key = outbox.group_key AND u.urgent = 1
     AND u.created_at + u.group_wait <= @now AND u.next_attempt_at <= @now AND u.lease_until <= @now)`;

/** When the group's wait is over: groupWait counts from its first pending row. */
const GROUP_READY = `(SELECT MIN(g.created_at) FROM outbox g WHERE g.state = 'pending' AND g.receiver = outbox.receiver AND g.group_key = outbox.group_key) + group_wait`;

/**
 * Claims due rows of one receiver in the order they were created, for leaseMs: another process (a daemon
 * beside `once --send`) does not take them meanwhile; a crashed sender's lease expires.
 */
export function claimDue(db: Database.Database, receiver: string, now: number, limit: number, leaseMs: number, skipGroups: readonly string[] = []): OutboxRow[] {
  // groupWait counts from the group's first pending row; groups inside their groupInterval are
  // skipped, unless an urgent row (a critical, a group's first news) is due: it takes its group along.
  const claim = db.transaction(() => {
    const ids = statement(db, `UPDATE outbox SET lease_until = @until WHERE id IN (
           SELECT id FROM outbox
            WHERE state = 'pending' AND receiver = @receiver AND next_attempt_at <= @now AND lease_until <= @now
              AND (${URGENT_IN_GROUP}
                OR (${GROUP_READY} <= @now AND group_key NOT IN (SELECT value FROM json_each(@skip))))
            ORDER BY id LIMIT @limit)
         RETURNING id`)
      .all({ until: now + leaseMs, receiver, now, skip: JSON.stringify(skipGroups), limit }) as Array<{ id: number }>;
    return outboxRows(db, ids.map((r) => r.id));
  });
  return claim.immediate();
}

function outboxRows(db: Database.Database, ids: number[]): OutboxRow[] {
  const rows = statement(db, `SELECT o.id, o.receiver, o.attempts, o.created_at AS outbox_created_at, o.group_key, o.group_interval, o.digest_at, o.last_error, o.unknown_outcomes, a.id AS alert_id, a.rule, a.kind,
              a.status, a.severity, a.subject, a.summary, a.labels, a.details, a.created_at, a.condition_key
         FROM outbox o JOIN alerts a ON a.id = o.alert_id
        WHERE o.id IN (SELECT value FROM json_each(?))
        ORDER BY o.id`)
    .all(JSON.stringify(ids)) as Array<Record<string, unknown>>;
  return rows.map((row) => outboxRowOf(row, textAlertRow.parse(row)));
}

/** Holds rows this process has just claimed a while longer (a batch of groups sent one by one). */
export function extendLease(db: Database.Database, ids: readonly number[], until: number): void {
  const stmt = statement(db, 'UPDATE outbox SET lease_until = ? WHERE id = ? AND lease_until < ?');
  db.transaction(() => {
    for (const id of ids) stmt.run(until, id, until);
  })();
}

/** When the next pending row of a receiver can be claimed, if any: an urgent row even in a skipped (throttled) group. */
export function nextDue(db: Database.Database, receiver: string, skipGroups: readonly string[] = []): number | undefined {
  const row = statement(db, `SELECT MIN(at) AS at FROM (
           SELECT MAX(next_attempt_at, lease_until, ${GROUP_READY}) AS at
             FROM outbox WHERE state = 'pending' AND receiver = @receiver AND group_key NOT IN (SELECT value FROM json_each(@skip))
           UNION ALL
           SELECT MAX(next_attempt_at, lease_until, created_at + group_wait)
             FROM outbox WHERE state = 'pending' AND receiver = @receiver AND urgent = 1)`)
    .get({ receiver, skip: JSON.stringify(skipGroups) }) as { at: number | null };
  return row.at ?? undefined;
}

export function markSent(db: Database.Database, id: number, now: number): void {
  statement(db, `UPDATE outbox SET state = 'sent', attempts = attempts + 1, lease_until = 0, updated_at = ? WHERE id = ?`)
    .run(now, id);
}

/** A failed attempt, to be tried again; `unknownOutcome`: it was sent but got no answer. */
export function markRetry(db: Database.Database, id: number, nextAttemptAt: number, error: string, now: number, unknownOutcome = false): void {
  statement(db, `UPDATE outbox SET attempts = attempts + 1, unknown_outcomes = unknown_outcomes + ?, next_attempt_at = ?, last_error = ?, lease_until = 0, updated_at = ? WHERE id = ?`)
    .run(unknownOutcome ? 1 : 0, nextAttemptAt, error, now, id);
}

export function markDead(db: Database.Database, id: number, error: string, now: number): void {
  statement(db, `UPDATE outbox SET state = 'dead', attempts = attempts + 1, last_error = ?, lease_until = 0, updated_at = ? WHERE id = ?`)
    .run(error, now, id);
}

/** A pending row that is not to be sent after all (a silence made while it waited), with why. */
export function markMuted(db: Database.Database, id: number, reason: string, now: number): void {
  statement(db, `UPDATE outbox SET state = 'muted', last_error = ?, lease_until = 0, updated_at = ? WHERE id = ?`).run(reason, now, id);
}

/** Gives a claimed row back untouched (the attempt was cut short by shutdown). */
export function release(db: Database.Database, id: number): void {
  statement(db, `UPDATE outbox SET lease_until = 0 WHERE id = ?`).run(id);
}

export function pendingCount(db: Database.Database): number {
  return (statement(db, `SELECT COUNT(*) AS n FROM outbox WHERE state = 'pending'`).get() as { n: number }).n;
}

/** Rows per state (the index's leading column counts them). */
export function outboxCounts(db: Database.Database): Record<OutboxState, number> {
  const counts = { pending: 0, sent: 0, dead: 0, muted: 0 };
  for (const row of statement(db, `SELECT state, COUNT(*) AS n FROM outbox GROUP BY state`).all() as Array<{ state: string; n: number }>) {
    if (row.state in counts) counts[row.state as keyof typeof counts] = row.n;
  }
  return counts;
}

/** Outbox rows by state, newest first (for tests and `avawatch outbox`). */
export function listOutbox(db: Database.Database, state?: OutboxState): OutboxListRow[] {
  return statement(db, `SELECT o.id, o.receiver, o.state, o.attempts, o.last_error AS lastError, o.digest_at AS digestAt, a.summary
         FROM outbox o JOIN alerts a ON a.id = o.alert_id
        WHERE (? IS NULL OR o.state = ?) ORDER BY o.id DESC`)
    .all(state ?? null, state ?? null) as never;
}

/** Per receiver that has outbox rows: last success, pending, dead and its newest error (the status page). */
export function receiverStats(db: Database.Database): ReceiverStats[] {
  const rows = statement(db, `SELECT receiver,
              MAX(CASE WHEN state = 'sent' THEN updated_at END) AS lastSuccess,
              SUM(state = 'pending') AS pending,
              SUM(state = 'dead') AS dead,
              (SELECT e.last_error FROM outbox e WHERE e.receiver = o.receiver AND e.state IN ('pending', 'dead') AND e.last_error IS NOT NULL ORDER BY e.updated_at DESC, e.id DESC LIMIT 1) AS lastError,
              MAX(CASE WHEN state IN ('pending', 'dead') AND last_error IS NOT NULL THEN updated_at END) AS lastErrorAt
         FROM outbox o GROUP BY receiver ORDER BY receiver`)
    .all() as Array<{ receiver: string; lastSuccess: number | null; pending: number; dead: number; lastError: string | null; lastErrorAt: number | null }>;
  return rows.map((r) => ({ receiver: r.receiver, lastSuccess: r.lastSuccess ?? undefined, pending: r.pending, dead: r.dead, lastError: r.lastError ?? undefined, lastErrorAt: r.lastErrorAt ?? undefined }));
}

/**
 * Per receiver, the rows dead-lettered after its newest delivered one and not before `since`:
 * what keeps it failing across a restart.
 */
export function deadLetters(db: Database.Database, since: number): DeadLetters[] {
  return statement(db, `SELECT d.receiver, COUNT(*) AS count, MAX(d.updated_at) AS at,
              (SELECT e.last_error FROM outbox e WHERE e.receiver = d.receiver AND e.state = 'dead' ORDER BY e.updated_at DESC, e.id DESC LIMIT 1) AS error
         FROM outbox d
        WHERE d.state = 'dead' AND d.updated_at >= ?
          AND d.updated_at > COALESCE((SELECT MAX(s.updated_at) FROM outbox s WHERE s.state = 'sent' AND s.receiver = d.receiver), -1)
        GROUP BY d.receiver`)
    .all(since)
    .map((r) => {
      const row = r as { receiver: string; count: number; at: number; error: string | null };
      return { receiver: row.receiver, count: row.count, at: row.at, error: row.error ?? 'dead-lettered' };
    });
}
