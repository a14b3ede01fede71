import type { Queryable } from './connect.js';
import type { Matcher, Silence } from '../types.js';

// Table: silences (as ../silences.ts for SQLite).

export async function addSilence(db: Queryable, s: Omit<Silence, 'id'>): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    'INSERT INTO silences (matchers, starts_at, ends_at, comment, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id',
    [JSON.stringify(s.matchers), s.startsAt, s.endsAt, s.comment, s.createdBy, s.createdAt],
  );
  return rows[0]!.id;
}

/** Silences in force at `now`, or (all) every one, newest first. */
export async function silences(db: Queryable, now: number, all: boolean): Promise<Silence[]> {
  const { rows } = await db.query<{ id: number; matchers: Matcher[]; starts_at: number; ends_at: number; comment: string; created_by: string; created_at: number }>(
    'SELECT * FROM silences WHERE ($1 OR (starts_at <= $2 AND ends_at > $2)) ORDER BY id DESC',
    [all, now],
  );
  return rows.map((r) => ({ id: r.id, matchers: r.matchers, startsAt: r.starts_at, endsAt: r.ends_at, comment: r.comment, createdBy: r.created_by, createdAt: r.created_at }));
}

/** Ends a silence now; false when there is none with that id still in force. */
export async function expireSilence(db: Queryable, id: number, now: number): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE silences SET ends_at = $2 WHERE id = $1 AND ends_at > $2', [id, now]);
  return (rowCount ?? 0) > 0;
}
