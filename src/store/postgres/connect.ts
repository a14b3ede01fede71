import pg from 'pg';

// Connecting to PostgreSQL (node-postgres): a pool per store, its numbers as JavaScript
// numbers, and a URL that never prints its password.

/** A pool, a client checked out of one, or a lone client: what runs a statement. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/**
 * The pool, each statement answered within `ms` or failed: the pool then drops its connection
 * (a blackholed one would otherwise hold its place in the pool for the 30 s statement cap,
 * and still be there when the network heals). For what must answer within a period: leases.
 */
export function timed(pool: pg.Pool, ms: number): Queryable {
  const query_timeout = Math.max(1, Math.round(ms));
  // query_timeout per statement: node-postgres reads it (client.js) though its types leave it out.
  return { query: <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => pool.query<R>({ text, ...(values ? { values } : {}), query_timeout } as pg.QueryConfig) };
}

const INT8 = 20;

/**
 * bigint columns (ids, revisions, epochs) parsed as numbers: every one avawatch keeps is far
 * below 2^53, and node-postgres would give strings. Per pool, not pg.types: no module-wide setting.
 */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 && format !== 'binary' ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * A schema name avawatch accepts (lower-case letters, digits and _), quoted for search_path
 * and DDL: a word SQL keeps for itself (`limit`) is a name too.
 */
export function quotedSchema(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`PostgreSQL schema name "${schema}": use lower-case letters, digits and _`);
  return `"${schema}"`;
}

export interface PoolOptions {
  /** The schema the store's tables live in (created by migrate()); default: PostgreSQL's search_path (public). */
  schema?: string;
  /** Connections at most (default 4). */
  max?: number;
  /** Caps on a connection's and a statement's wait (defaults 10 s and 30 s). */
  connectTimeoutMs?: number;
  queryTimeoutMs?: number;
  /**
   * The server ends a session left idle inside a transaction this long (default 5 s): a
   * process paused or cut off mid-commit holds the rows it locked (a rule's revision, a
   * shard's lease) only this long. avawatch's transactions never wait between statements.
   */
  idleInTransactionMs?: number;
}

/** How long a connection (or a free one of the pool) is waited for. */
const CONNECT_TIMEOUT_MS = 10_000;
const IDLE_IN_TRANSACTION_MS = 5_000;
/** How long one statement's answer is waited for (a migration waiting for another's lock included). */
const QUERY_TIMEOUT_MS = 30_000;

/** A pool on `url`, every connection in `schema` when given. Connects lazily: the first query reaches the server. */
export function openPool(url: string, o: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: o.max ?? 4,
    types,
    application_name: 'avawatch',
    // Every wait has a cap: a server that does not answer (blackholed, hung) fails the call
    // instead of holding the evaluation, delivery or /readyz that made it for ever.
    connectionTimeoutMillis: o.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    query_timeout: o.queryTimeoutMs ?? QUERY_TIMEOUT_MS,
    keepAlive: true,
    options: [`-c idle_in_transaction_session_timeout=${Math.max(1, Math.round(o.idleInTransactionMs ?? IDLE_IN_TRANSACTION_MS))}`, ...(o.schema === undefined ? [] : [`-c search_path=${quotedSchema(o.schema)}`])].join(' '),
  });
  // An idle connection cut (a server restart, a failover, a killed backend) is dropped by the
  // pool and the next query opens another; without a listener the process would exit.
  pool.on('error', () => undefined);
  const out = new Set<pg.PoolClient>();
  pool.on('acquire', (client) => out.add(client));
  pool.on('release', (_err, client) => out.delete(client));
  checkedOut.set(pool, out);
  return pool;
}

/** Each pool's connections checked out now (a transaction's, or a statement's while it runs). */
const checkedOut = new WeakMap<pg.Pool, Set<pg.PoolClient>>();

/**
 * Ends the pool: its connections checked out now are closed at once, so what waits on one (a
 * statement sent into a blackhole) fails now rather than at its 30 s cap; node-postgres drops
 * the socket of a connection with a statement running. What they were doing is refused or
 * rolled back by the server when the connection goes, and is made again by its caller.
 */
export async function endNow(pool: pg.Pool): Promise<void> {
  for (const client of checkedOut.get(pool) ?? []) client.end().catch(() => undefined);
  await pool.end();
}

/** The URL as errors and logs may show it: user, host, port and database, never the password. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    const user = u.username === '' ? '' : `${decodeURIComponent(u.username)}@`;
    return `postgres://${user}${u.host}${u.pathname}`;
  } catch {
    return 'a PostgreSQL URL that does not parse';
  }
}

/**
 * Runs `work` in one transaction on one connection of the pool: committed when it returns,
 * rolled back when it throws. A connection that failed is closed rather than given back.
 */
export async function transaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const unheard = catchClientErrors(client, (err) => (broken ??= err));
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    // A connection that cannot even roll back is cut: the pool must not hand it out again.
    await client.query('ROLLBACK').catch((e: unknown) => (broken = e as Error));
    throw err;
  } finally {
    unheard();
    client.release(broken);
  }
}

/**
 * Listens for a checked-out client's 'error' until the returned function is called (before
 * its release: the pool listens again from there). node-postgres emits 'error' on a client
 * whose connection ends or fails while it is out of the pool (a server restart or crash, a
 * killed backend), besides failing its queries; unheard, the process would end on it.
 */
export function catchClientErrors(client: pg.PoolClient, onError: (err: Error) => void): () => void {
  client.on('error', onError);
  return () => client.removeListener('error', onError);
}
