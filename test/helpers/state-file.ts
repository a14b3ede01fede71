import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';

/**
 * What a running daemon's state file says, read beside it (WAL: readers never block the
 * writer): the positive signals a test waits for before it asserts that nothing more came.
 */
export function stateFile(path: string): { entities(): number; alerts(): string[]; pending(): number; sent(): number } {
  const read = <T>(sql: string, empty: T): T => {
    if (!existsSync(path)) return empty;
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      return db.prepare(sql).all() as T;
    } catch {
      return empty; // not migrated yet
    } finally {
      db.close();
    }
  };
  const count = (sql: string) => read<Array<{ n: number }>>(sql, [{ n: 0 }])[0]?.n ?? 0;
  return {
    /** Entities with committed state (a baseline). */
    entities: () => count('SELECT COUNT(*) AS n FROM entity_state'),
    /** Each alert's subject and status, oldest first. */
    alerts: () => read<Array<{ s: string }>>("SELECT subject || ' ' || status AS s FROM alerts ORDER BY id", []).map((r) => r.s),
    /** Outbox rows still to send (pending, whatever their next attempt). */
    pending: () => count("SELECT COUNT(*) AS n FROM outbox WHERE state = 'pending'"),
    sent: () => count("SELECT COUNT(*) AS n FROM outbox WHERE state = 'sent'"),
  };
}
