import type Database from 'better-sqlite3';

// SQLite compiles a statement each time it is prepared: the store's few dozen texts are
// compiled once per handle and kept (a profile of the fuzzer's daemon: 5% of its CPU in prepare).

const cache = new WeakMap<Database.Database, Map<string, Database.Statement>>();
/** Texts built from a query's options (the history's filters) are a small set; past this, start over. */
const MAX_STATEMENTS = 500;

/** The handle's prepared statement for this text. */
export function statement(db: Database.Database, text: string): Database.Statement {
  let kept = cache.get(db);
  if (!kept) cache.set(db, (kept = new Map()));
  let stmt = kept.get(text);
  if (!stmt) {
    if (kept.size >= MAX_STATEMENTS) kept.clear();
    kept.set(text, (stmt = db.prepare(text)));
  }
  return stmt;
}
