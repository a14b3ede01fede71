import type { DeadLetters, OutboxListRow, OutboxState, ReceiverStats } from '../types.js';
import type { Queryable } from './connect.js';

// The outbox read (as ../outbox.ts for SQLite): counts, lists and each receiver's health.

export async function pendingCount(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT COUNT(*) AS n FROM outbox WHERE state = 'pending'`);
  return rows[0]?.n ?? 0;
}

/** Rows per state. */
export async function outboxCounts(db: Queryable): Promise<Record<OutboxState, number>> {
  const counts = { pending: 0, sent: 0, dead: 0, muted: 0 };
  const { rows } = await db.query<{ state: string; n: number }>('SELECT state, COUNT(*) AS n FROM outbox GROUP BY state');
  for (const row of rows) if (row.state in counts) counts[row.state as keyof typeof counts] = row.n;
  return counts;
}

/** Outbox rows by state, newest first (`avawatch outbox`). */
export async function listOutbox(db: Queryable, state?: OutboxState): Promise<OutboxListRow[]> {
  const { rows } = await db.query<{ id: number; receiver: string; state: string; attempts: number; last_error: string | null; digest_at: number | null; summary: string }>(
    `SELECT o.id, o.receiver, o.state, o.attempts, o.last_error, o.digest_at, a.summary
       FROM outbox o JOIN alerts a ON a.id = o.alert_id
      WHERE ($1::text IS NULL OR o.state = $1) ORDER BY o.id DESC`,
    [state ?? null],
  );
  return rows.map((r) => ({ id: r.id, receiver: r.receiver, state: r.state, attempts: r.attempts, lastError: r.last_error, digestAt: r.digest_at, summary: r.summary }));
}

/** Per receiver that has outbox rows: last success, pending, dead and its newest error (the status page). */
export async function receiverStats(db: Queryable): Promise<ReceiverStats[]> {
  const { rows } = await db.query<{ receiver: string; last_success: number | null; pending: number; dead: number; last_error: string | null; last_error_at: number | null }>(
    `SELECT receiver,
            MAX(updated_at) FILTER (WHERE state = 'sent') AS last_success,
            COUNT(*) FILTER (WHERE state = 'pending') AS pending,
            COUNT(*) FILTER (WHERE state = 'dead') AS dead,
            (SELECT e.last_error FROM outbox e WHERE e.receiver = o.receiver AND e.state IN ('pending', 'dead') AND e.last_error IS NOT NULL
              ORDER BY e.updated_at DESC, e.id DESC LIMIT 1) AS last_error,
            MAX(updated_at) FILTER (WHERE state IN ('pending', 'dead') AND last_error IS NOT NULL) AS last_error_at
       FROM outbox o GROUP BY receiver ORDER BY receiver`,
  );
  return rows.map((r) => ({
    receiver: r.receiver,
    lastSuccess: r.last_success ?? undefined,
    pending: r.pending,
    dead: r.dead,
    lastError: r.last_error ?? undefined,
    lastErrorAt: r.last_error_at ?? undefined,
  }));
}

/** Per receiver, the rows dead-lettered after its newest delivered one and not before `since`. */
export async function deadLetters(db: Queryable, since: number): Promise<DeadLetters[]> {
  const { rows } = await db.query<{ receiver: string; count: number; at: number; error: string | null }>(
    `SELECT d.receiver, COUNT(*) AS count, MAX(d.updated_at) AS at,
            (SELECT e.last_error FROM outbox e WHERE e.receiver = d.receiver AND e.state = 'dead' ORDER BY e.updated_at DESC, e.id DESC LIMIT 1) AS error
       FROM outbox d
      WHERE d.state = 'dead' AND d.updated_at >= $1
        AND d.updated_at > COALESCE((SELECT MAX(s.updated_at) FROM outbox s WHERE s.state = 'sent' AND s.receiver = d.receiver), -1)
      GROUP BY d.receiver`,
    [since],
  );
  return rows.map((r) => ({ receiver: r.receiver, count: r.count, at: r.at, error: r.error ?? 'dead-lettered' }));
}
