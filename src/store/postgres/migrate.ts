import type pg from 'pg';
import { systemClock } from '../../base/clock.js';
import { StoreError } from '../errors.js';
import { catchClientErrors, describeUrl, quotedSchema } from './connect.js';
import { MIGRATIONS } from './migrations.js';

// Several instances start at once against one database: whichever takes the lock first
// applies what is missing, the others wait for it and then find nothing left to do. The lock
// is a row lock (SELECT … FOR UPDATE on schema_lock's one row) held by the migration's own
// transaction: it ends with the transaction, commit, rollback or a cut connection alike.
// Not a session advisory lock: that one outlives a transaction and is tied to a connection
// a pooler or a failover may not keep.

export interface Migrated {
  /** The version the database was at when this instance got the lock. */
  from: number;
  /** The version it is at now (every migration this avawatch knows). */
  to: number;
}

/** PostgreSQL's codes for "another session created it at the same moment". */
const RACED = new Set(['23505', '42P06', '42P07', '42710']);

/**
 * Brings the database (and `schema`, when given: created if missing) to the last of
 * `migrations`, all of them in one transaction under the lock. Refuses a database at a
 * version newer than this avawatch knows. `url` only names the database in an error.
 */
export async function migrate(pool: pg.Pool, o: { schema?: string; url?: string; migrations?: readonly string[] } = {}): Promise<Migrated> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await migrateOnce(pool, o);
    } catch (err) {
      if (err instanceof StoreError) throw err;
      // Its connection lost mid-way (the server restarting, the session ended by
      // idle_in_transaction_session_timeout while this process stalled): the transaction rolled
      // back, nothing is half done, and another connection tries again.
      if (attempt < MIGRATE_ATTEMPTS && connectionLost(err)) {
        await systemClock.sleep(250 * attempt);
        continue;
      }
      const where = o.url === undefined ? 'PostgreSQL' : describeUrl(o.url);
      throw new StoreError(`cannot migrate the state in ${where}: ${(err as Error).message}`);
    }
  }
}

const MIGRATE_ATTEMPTS = 5;

/** SQLSTATEs of a session the server ended (shutdown, crash, starting up, idle in transaction) and class 08, connection exceptions. */
const LOST = new Set(['57P01', '57P02', '57P03', '25P03']);

function connectionLost(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (LOST.has(code) || code.startsWith('08'))) return true;
  return /Connection terminated|ECONNRESET|ECONNREFUSED|EPIPE/.test(String((err as Error).message));
}

async function migrateOnce(pool: pg.Pool, o: { schema?: string; migrations?: readonly string[] }): Promise<Migrated> {
  let client: pg.PoolClient | undefined;
  let failed: Error | undefined;
  let unheard: (() => void) | undefined;
  try {
    client = await pool.connect();
    unheard = catchClientErrors(client, (err) => (failed ??= err));
    await createLock(client, o.schema);
    return await underLock(client, o.migrations ?? MIGRATIONS);
  } catch (err) {
    failed = err as Error;
    throw err;
  } finally {
    // A connection that failed goes, rather than back to the pool.
    unheard?.();
    client?.release(failed);
  }
}

/** The schema and the lock's one row, made by whoever comes first. */
async function createLock(client: pg.PoolClient, schema: string | undefined): Promise<void> {
  // CREATE … IF NOT EXISTS run by two sessions at once can still fail on the catalog's unique
  // index: the other one made it, and the next try finds it.
  await retryRace(async () => {
    if (schema !== undefined) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quotedSchema(schema)}`);
    await client.query('CREATE TABLE IF NOT EXISTS schema_lock (id integer PRIMARY KEY CHECK (id = 1))');
    await client.query('INSERT INTO schema_lock (id) VALUES (1) ON CONFLICT DO NOTHING');
  });
}

async function underLock(client: pg.PoolClient, migrations: readonly string[]): Promise<Migrated> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT id FROM schema_lock WHERE id = 1 FOR UPDATE');
    // Made under the lock: no race left.
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    integer PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: number }>('SELECT COALESCE(MAX(version), 0) AS version FROM schema_migrations');
    const from = rows[0]?.version ?? 0;
    if (from > migrations.length) {
      throw new StoreError(`PostgreSQL schema version ${from} is newer than this avawatch knows (${migrations.length}): upgrade avawatch`);
    }
    for (let v = from; v < migrations.length; v++) {
      await client.query(migrations[v] as string);
      await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [v + 1]);
    }
    await client.query('COMMIT');
    return { from, to: migrations.length };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

async function retryRace(step: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      if (attempt >= 5 || !RACED.has((err as { code?: string }).code ?? '')) throw err;
    }
  }
}
