import type pg from 'pg';
import { URGENT_FLOOR_MS, URGENT_WAIT_MS } from '../outbox.js';
import { DIGEST_GROUP, type NewAlert, type OutboxRow, type OutboxTarget } from '../types.js';
import { jsonAlertRow, outboxRowOf } from '../rows.js';
import type { Queryable } from './connect.js';

// Tables: alerts and outbox (as ../outbox.ts for SQLite): inserting, claiming and marking.
// What is only read (counts, stats, lists) is in outbox-read.ts.

/**
 * Within a commit's transaction: the alerts, and an outbox row per target (muted ones recorded
 * with why), in three statements whatever their number (a storm's thousand alerts are not
 * three thousand round trips). Returns their ids, in order. An alert whose transition is
 * stored already (the same news, committed by another instance) is skipped (`ON CONFLICT DO
 * NOTHING`) with its outbox rows: its id is the stored alert's, read by one statement more.
 */
export async function insertAlerts(db: pg.ClientBase, alerts: readonly NewAlert[], now: number, startedAt = now): Promise<number[]> {
  if (alerts.length === 0) return [];
  const { rows } = await db.query<{ id: number }>(`SELECT nextval(pg_get_serial_sequence('alerts', 'id')) AS id FROM generate_series(1, $1)`, [alerts.length]);
  const ids = rows.map((r) => r.id);
  const inserted = await db.query<{ id: number }>(
    `INSERT INTO alerts (id, rule, kind, status, severity, subject, summary, labels, details, created_at, condition_key, reminder, transition) OVERRIDING SYSTEM VALUE
     SELECT id, rule, kind, status, severity, subject, summary, labels, details, $2, condition_key, reminder, transition
       FROM jsonb_to_recordset($1::jsonb) AS x (id bigint, rule text, kind text, status text, severity text, subject text, summary text,
            labels jsonb, details jsonb, condition_key text, reminder boolean, transition text, n integer)
      ORDER BY n
     ON CONFLICT (rule, kind, condition_key, transition) WHERE transition IS NOT NULL DO NOTHING
     RETURNING id`,
    [JSON.stringify(alerts.map((a, i) => ({ n: i, id: ids[i], rule: a.rule, kind: a.kind, status: a.status, severity: a.severity, subject: a.subject, summary: a.summary, labels: a.labels, details: a.details, condition_key: a.conditionKey ?? null, reminder: a.reminder === true, transition: a.transition ?? null }))), now],
  );
  const stored = new Set(inserted.rows.map((r) => r.id));
  const fresh = ids.map((id) => stored.has(id));
  if (stored.size < alerts.length) await storedTransitions(db, alerts, ids, fresh);
  const busy = await busyGroups(db, alerts.flatMap((a, i) => (fresh[i] ? a.targets : [])), now);
  const outbox: unknown[] = [];
  alerts.forEach((a, i) => {
    if (!fresh[i]) return;
    for (const t of a.targets) {
      const key = `${t.receiver}\u0000${t.groupKey}`;
      // The first news of its group: nothing of it waits (in the store, or queued earlier in this commit), nothing was sent within its groupInterval.
      const urgent = t.digestAt === undefined && t.mutedBy === undefined && t.minWaitMs === undefined && (a.severity === 'critical' || !busy.has(key));
      // Stored as what is left of it at the commit.
      const wait = urgent ? Math.min(t.groupWaitMs, Math.max(URGENT_WAIT_MS - (now - startedAt), URGENT_FLOOR_MS)) : t.groupWaitMs;
      // A digest row waits for its slot in the receiver's one digest group; a muted one is recorded with why, never sent.
      const row = t.digestAt === undefined
        ? { next_attempt_at: now + (t.minWaitMs ?? 0), group_key: t.groupKey, group_wait: wait, group_interval: t.groupIntervalMs, digest_at: null, urgent }
        : { next_attempt_at: t.digestAt, group_key: DIGEST_GROUP, group_wait: 0, group_interval: 0, digest_at: t.digestAt, urgent: false };
      outbox.push({ n: outbox.length, alert_id: ids[i], receiver: t.receiver, ...row, state: t.mutedBy ? 'muted' : 'pending', last_error: t.mutedBy ?? null });
      if (!t.mutedBy) busy.add(`${t.receiver}\u0000${row.group_key}`);
    }
  });
  if (outbox.length === 0) return ids;
  await db.query(
    `INSERT INTO outbox (alert_id, receiver, next_attempt_at, created_at, updated_at, group_key, group_wait, group_interval, digest_at, urgent, state, last_error)
     SELECT alert_id, receiver, next_attempt_at, $2, $2, group_key, group_wait, group_interval, digest_at, urgent, state, last_error
       FROM jsonb_to_recordset($1::jsonb) AS x (alert_id bigint, receiver text, next_attempt_at double precision, group_key text,
            group_wait double precision, group_interval double precision, digest_at double precision, urgent boolean, state text, last_error text, n integer)
      ORDER BY n`,
    [JSON.stringify(outbox), now],
  );
  return ids;
}

/**
 * The skipped alerts' ids (in `ids`) replaced by those of the alerts stored for their
 * transitions: a statement of its own, so it sees one that another instance's commit, which
 * the insert waited for, stored after the insert began.
 */
async function storedTransitions(db: pg.ClientBase, alerts: readonly NewAlert[], ids: number[], fresh: readonly boolean[]): Promise<void> {
  const skipped = alerts.map((a, i) => ({ a, i })).filter(({ i }) => !fresh[i]);
  const { rows } = await db.query<{ n: number; id: number }>(
    `SELECT k.n, a.id FROM unnest($1::integer[], $2::text[], $3::text[], $4::text[], $5::text[]) AS k (n, rule, kind, condition_key, transition)
       JOIN alerts a ON a.rule = k.rule AND a.kind = k.kind AND a.condition_key = k.condition_key AND a.transition = k.transition`,
    [skipped.map((s) => s.i), skipped.map((s) => s.a.rule), skipped.map((s) => s.a.kind), skipped.map((s) => s.a.conditionKey ?? null), skipped.map((s) => s.a.transition ?? null)],
  );
  for (const r of rows) ids[r.n] = r.id;
}

/** The receivers' groups among these targets that are not first news: a row of them waits, or one was sent within the target's groupInterval. */
async function busyGroups(db: pg.ClientBase, targets: readonly OutboxTarget[], now: number): Promise<Set<string>> {
  const asked = targets.filter((t) => t.digestAt === undefined && t.mutedBy === undefined && t.minWaitMs === undefined);
  if (asked.length === 0) return new Set();
  const { rows } = await db.query<{ receiver: string; group_key: string }>(
    `SELECT DISTINCT k.receiver, k.group_key FROM unnest($1::text[], $2::text[], $3::double precision[]) AS k (receiver, group_key, since)
      WHERE EXISTS (SELECT 1 FROM outbox o WHERE o.receiver = k.receiver AND o.group_key = k.group_key AND (o.state = 'pending' OR (o.state = 'sent' AND o.updated_at > k.since)))`,
    [asked.map((t) => t.receiver), asked.map((t) => t.groupKey), asked.map((t) => now - t.groupIntervalMs)],
  );
  return new Set(rows.map((r) => `${r.receiver}\u0000${r.group_key}`));
}

/** An urgent row of the same group that this claim takes too: its group goes with it. */
const URGENT_IN_GROUP = `EXISTS (SELECT 1 FROM outbox u
   WHERE u.state = 'pending' AND u.receiver = o.receiver AND u.group_key = o.group_key AND u.urgent
     AND u.created_at + u.group_wait <= $2 AND u.next_attempt_at <= $2 AND u.lease_until <= $2)`;

/** When the group's wait is over: groupWait counts from its first pending row. */
const GROUP_READY = `(SELECT MIN(g.created_at) FROM outbox g WHERE g.state = 'pending' AND g.receiver = o.receiver AND g.group_key = o.group_key) + o.group_wait`;

/**
 * Claims due rows of one receiver in the order they were created, for leaseMs. Rows another
 * claim has locked meanwhile are skipped, not waited for (SKIP LOCKED), and one whose lease
 * another claim has just set is no longer due: no row goes to two senders.
 */
export async function claimDue(db: Queryable, receiver: string, now: number, limit: number, leaseMs: number, skipGroups: readonly string[] = []): Promise<OutboxRow[]> {
  const { rows } = await db.query<{ id: number }>(
    `UPDATE outbox SET lease_until = $3 WHERE id IN (
       SELECT o.id FROM outbox o
        WHERE o.state = 'pending' AND o.receiver = $1 AND o.next_attempt_at <= $2 AND o.lease_until <= $2
          AND (${URGENT_IN_GROUP} OR (${GROUP_READY} <= $2 AND NOT (o.group_key = ANY($4::text[]))))
        ORDER BY o.id LIMIT $5
        FOR UPDATE SKIP LOCKED)
     RETURNING id`,
    [receiver, now, now + leaseMs, [...skipGroups], limit],
  );
  return outboxRows(db, rows.map((r) => r.id));
}

/** The claimed rows with their alerts, in the order of their ids. */
async function outboxRows(db: Queryable, ids: number[]): Promise<OutboxRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT o.id, o.receiver, o.attempts, o.created_at AS outbox_created_at, o.group_key, o.group_interval, o.digest_at, o.last_error, o.unknown_outcomes,
            a.id AS alert_id, a.rule, a.kind, a.status, a.severity, a.subject, a.summary, a.labels, a.details, a.created_at, a.condition_key
       FROM outbox o JOIN alerts a ON a.id = o.alert_id
      WHERE o.id = ANY($1::bigint[])
      ORDER BY o.id`,
    [ids],
  );
  return rows.map((row) => outboxRowOf(row, jsonAlertRow.parse(row)));
}

/** Holds rows just claimed a while longer (never shortens a lease). */
export async function extendLease(db: Queryable, ids: readonly number[], until: number): Promise<void> {
  await db.query('UPDATE outbox SET lease_until = $2 WHERE id = ANY($1::bigint[]) AND lease_until < $2', [[...ids], until]);
}

/** When the next pending row of a receiver can be claimed, if any: an urgent row even in a skipped (throttled) group. */
export async function nextDue(db: Queryable, receiver: string, skipGroups: readonly string[] = []): Promise<number | undefined> {
  const { rows } = await db.query<{ at: number | null }>(
    `SELECT MIN(at) AS at FROM (
       SELECT GREATEST(o.next_attempt_at, o.lease_until, ${GROUP_READY}) AS at
         FROM outbox o WHERE o.state = 'pending' AND o.receiver = $1 AND NOT (o.group_key = ANY($2::text[]))
       UNION ALL
       SELECT GREATEST(o.next_attempt_at, o.lease_until, o.created_at + o.group_wait)
         FROM outbox o WHERE o.state = 'pending' AND o.receiver = $1 AND o.urgent) AS due`,
    [receiver, [...skipGroups]],
  );
  return rows[0]?.at ?? undefined;
}

export async function markSent(db: Queryable, id: number, now: number): Promise<void> {
  await db.query(`UPDATE outbox SET state = 'sent', attempts = attempts + 1, lease_until = 0, updated_at = $2 WHERE id = $1`, [id, now]);
}

/** A failed attempt, to be tried again; `unknownOutcome`: it was sent but got no answer. */
export async function markRetry(db: Queryable, id: number, nextAttemptAt: number, error: string, now: number, unknownOutcome = false): Promise<void> {
  await db.query(
    `UPDATE outbox SET attempts = attempts + 1, unknown_outcomes = unknown_outcomes + $2, next_attempt_at = $3, last_error = $4, lease_until = 0, updated_at = $5 WHERE id = $1`,
    [id, unknownOutcome ? 1 : 0, nextAttemptAt, error, now],
  );
}

export async function markDead(db: Queryable, id: number, error: string, now: number): Promise<void> {
  await db.query(`UPDATE outbox SET state = 'dead', attempts = attempts + 1, last_error = $2, lease_until = 0, updated_at = $3 WHERE id = $1`, [id, error, now]);
}

/** A pending row that is not to be sent after all (a silence made while it waited), with why. */
export async function markMuted(db: Queryable, id: number, reason: string, now: number): Promise<void> {
  await db.query(`UPDATE outbox SET state = 'muted', last_error = $2, lease_until = 0, updated_at = $3 WHERE id = $1`, [id, reason, now]);
}

/** Gives a claimed row back untouched (the attempt was cut short by shutdown). */
export async function release(db: Queryable, id: number): Promise<void> {
  await db.query('UPDATE outbox SET lease_until = 0 WHERE id = $1', [id]);
}
