import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { StoreError } from './errors.js';
import { MIGRATIONS } from './migrations.js';

/**
 * Opens (creating the directory and file when missing), checks and migrates. Fails loudly,
 * naming the file and what to do, and never replaces or resets an existing file: a corrupt
 * file is refused before anything is written to it, a file another process holds a write
 * lock on (past the busy timeout) or that cannot be written is refused at once, instead of
 * every later commit failing.
 */
export function openDatabase(path: string, write: boolean): Database.Database {
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
    // A new file is made able to shrink before its first table (then no VACUUM is needed).
    if ((db.pragma('user_version', { simple: true }) as number) === 0) db.pragma('auto_vacuum = INCREMENTAL');
    migrate(db);
    if (write) incrementalVacuum(db);
    // The daemon must be able to commit; better to know now than at its first change.
    if (write) {
      db.exec('BEGIN IMMEDIATE');
      db.exec('ROLLBACK');
    }
  } catch (err) {
    if (db?.open) db.close();
    if (err instanceof StoreError) throw err;
    throw new StoreError(`cannot open state file ${path}: ${explain(err)}`);
  }
  return db;
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

/** SQLite's auto_vacuum value for INCREMENTAL. */
const INCREMENTAL = 2;

/**
 * A file made by an older avawatch (auto_vacuum off) is rebuilt once with VACUUM so that
 * pruning can give its pages back (history/prune.ts): a pause at that one start, as long as
 * copying the file takes.
 */
function incrementalVacuum(db: Database.Database): void {
  if (db.pragma('auto_vacuum', { simple: true }) === INCREMENTAL) return;
  db.pragma('auto_vacuum = INCREMENTAL');
  db.exec('VACUUM');
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
