import type Database from 'better-sqlite3';
import { statement } from './statement.js';
import type { Matcher, Silence } from './types.js';

// Table: silences.

export function addSilence(db: Database.Database, s: Omit<Silence, 'id'>): number {
  const { lastInsertRowid } = statement(db, 'INSERT INTO silences (matchers, starts_at, ends_at, comment, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?)')
    .run(JSON.stringify(s.matchers), s.startsAt, s.endsAt, s.comment, s.createdBy, s.createdAt);
  return Number(lastInsertRowid);
}

/** Silences in force at `now`, or (all) every one, newest first. */
export function silences(db: Database.Database, now: number, all: boolean): Silence[] {
  const rows = statement(db, `SELECT * FROM silences WHERE (? OR (starts_at <= ? AND ends_at > ?)) ORDER BY id DESC`).all(all ? 1 : 0, now, now) as Array<Record<string, unknown>>;
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
export function expireSilence(db: Database.Database, id: number, now: number): boolean {
  return statement(db, 'UPDATE silences SET ends_at = ? WHERE id = ? AND ends_at > ?').run(now, id, now).changes > 0;
}
