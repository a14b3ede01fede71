import { SqliteStore } from './sqlite.js';
import type { StateStore } from './types.js';

/** Where the state lives: a SQLite file (one machine), or PostgreSQL when `url` is set. */
export interface StateLocation {
  path: string;
  /** `postgres://…` (its password revealed here only: the caller holds it as a Secret). */
  url?: string | undefined;
  /** With url: the shards' lease (state.lease): a session idle mid-transaction ends within a third of it. */
  leaseMs?: number;
}

/**
 * Opens the configured store: PostgreSQL when a URL is given (connected and migrated before
 * this returns, failing with the database named and never the password), else the SQLite file
 * (`write: false`: a reader beside a running daemon; PostgreSQL has no such mode to ask for).
 */
export async function openStore(at: StateLocation, o: { write?: boolean } = {}): Promise<StateStore> {
  if (at.url !== undefined) {
    // node-postgres loads only here: evaluating it costs every command 0.04 s of CPU at its start (SQLite's too).
    const { PgStore } = await import('./postgres/store.js');
    return PgStore.open(at.url, at.leaseMs === undefined ? {} : { idleInTransactionMs: Math.min(5_000, at.leaseMs / 3) });
  }
  return SqliteStore.open(at.path, o);
}
