import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresForFile } from '../../../test/helpers/postgres-file.js';
import { openPool } from './connect.js';
import { migrate } from './migrate.js';
import { MIGRATIONS } from './migrations.js';

// On a real PostgreSQL cluster of this file's own; each test in a fresh database of its own,
// or (cheaper) a schema of its own.
const cluster = postgresForFile();

const pools: pg.Pool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.end()));
});
function pool(url: string, schema?: string): pg.Pool {
  const p = openPool(url, schema === undefined ? {} : { schema });
  pools.push(p);
  return p;
}

async function versions(p: pg.Pool): Promise<number[]> {
  return (await p.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).rows.map((r) => r.version);
}

describe('PostgreSQL schema migrations', () => {
  it('three instances migrating a fresh database at once: each migration applied once, all at the last version', async () => {
    const url = await cluster.database('three');
    // Each migration leaves a mark. real wait: the first sleeps 0.2 s in PostgreSQL, so that
    // the other two instances are surely queued on the lock meanwhile.
    const counted = [
      'CREATE TABLE marks (version integer NOT NULL); SELECT pg_sleep(0.2); INSERT INTO marks VALUES (1)',
      'INSERT INTO marks VALUES (2)',
      'INSERT INTO marks VALUES (3)',
    ];
    const instances = [pool(url), pool(url), pool(url)];
    const results = await Promise.all(instances.map((p) => migrate(p, { migrations: counted })));
    expect(results.map((r) => r.to)).toEqual([3, 3, 3]);
    expect(results.map((r) => r.from).sort()).toEqual([0, 3, 3]);
    const marks = await instances[0]!.query<{ version: number }>('SELECT version FROM marks ORDER BY version');
    expect(marks.rows.map((r) => r.version)).toEqual([1, 2, 3]);
    expect(await versions(instances[0]!)).toEqual([1, 2, 3]);
  });

  it("avawatch's own migrations, by three instances at once, make every table once", async () => {
    const url = await cluster.database('own');
    const instances = [pool(url), pool(url), pool(url)];
    const results = await Promise.all(instances.map((p) => migrate(p)));
    const last = MIGRATIONS.length;
    expect(results.map((r) => r.to)).toEqual([last, last, last]);
    expect(results.map((r) => r.from).sort()).toEqual([0, last, last]);
    expect(await versions(instances[1]!)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    const tables = await instances[2]!.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
    );
    expect(tables.rows.map((r) => r.table_name)).toEqual([
      'active_alerts', 'alerts', 'compute_units', 'data_version', 'entity_state', 'leases', 'members', 'outbox', 'rule_revision', 'samples', 'schema_lock', 'schema_migrations', 'silences',
    ]);
    const shards = await instances[0]!.query<{ n: number; low: number; high: number }>('SELECT count(*)::integer AS n, min(shard) AS low, max(shard) AS high FROM leases');
    expect(shards.rows[0]).toEqual({ n: 256, low: 0, high: 255 });
  });

  it('a database already at the last version is left as it is, its data kept', async () => {
    const url = cluster.url;
    const schema = 'again';
    const p = pool(url, schema);
    await migrate(p, { schema });
    await p.query("INSERT INTO rule_revision VALUES ('r', 7)");
    expect(await migrate(p, { schema })).toEqual({ from: MIGRATIONS.length, to: MIGRATIONS.length });
    expect((await p.query('SELECT revision FROM rule_revision')).rows).toEqual([{ revision: 7 }]);
  });

  it('a migration that fails leaves nothing of the run behind: the version stays, the next start tries again', async () => {
    const url = cluster.url;
    const schema = 'fails';
    const p = pool(url, schema);
    await expect(migrate(p, { schema, migrations: ['CREATE TABLE first (x integer)', 'SELECT * FROM no_such_table'] })).rejects.toThrow(
      'cannot migrate the state in PostgreSQL: relation "no_such_table" does not exist',
    );
    const left = await p.query("SELECT to_regclass('first') AS t, to_regclass('schema_migrations') AS m");
    expect(left.rows).toEqual([{ t: null, m: null }]);
    expect(await migrate(p, { schema, migrations: ['CREATE TABLE first (x integer)'] })).toEqual({ from: 0, to: 1 });
  });

  it('refuses a database a newer avawatch migrated, naming both versions', async () => {
    const url = cluster.url;
    const schema = 'newer';
    const p = pool(url, schema);
    await migrate(p, { schema });
    await p.query('INSERT INTO schema_migrations (version) VALUES (99)');
    await expect(migrate(p, { schema })).rejects.toThrow(`PostgreSQL schema version 99 is newer than this avawatch knows (${MIGRATIONS.length}): upgrade avawatch`);
  });

  it('keeps each schema apart: two stores in one database', async () => {
    const url = cluster.url;
    const a = pool(url, 'store_a');
    const b = pool(url, 'limit'); // a word SQL keeps for itself is a name too
    await Promise.all([migrate(a, { schema: 'store_a' }), migrate(b, { schema: 'limit' })]);
    await a.query("INSERT INTO rule_revision VALUES ('only-in-a', 1)");
    expect((await b.query('SELECT * FROM rule_revision')).rows).toEqual([]);
    expect((await a.query('SELECT rule FROM store_a.rule_revision')).rows).toEqual([{ rule: 'only-in-a' }]);
  });

  it('the lock ends with its connection: an instance cut off mid-migration does not hold the others', async () => {
    const url = cluster.url;
    const schema = 'cut';
    const stuck = pool(url, schema);
    await migrate(stuck, { schema, migrations: [] }); // makes the lock's row
    const holder = await stuck.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM schema_lock WHERE id = 1 FOR UPDATE');
    const pid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    holder.on('error', () => undefined);
    // The other instance queues on the row lock; were the lock to outlive its backend, it would wait for ever.
    const migrated = migrate(pool(url, schema), { schema });
    await pool(url).query('SELECT pg_terminate_backend($1)', [pid]);
    expect(await migrated).toEqual({ from: 0, to: MIGRATIONS.length });
    holder.release(true);
  });

  it('an instance whose own connection the server ends mid-migration tries again on another and applies each migration once', async () => {
    const url = cluster.url;
    const schema = 'ended_once';
    const p = pool(url, schema);
    await migrate(p, { schema, migrations: [] });
    // A sequence is not rolled back: the first try ends its own session (as a server shutting
    // down or idle_in_transaction_session_timeout would, 57P01 / 25P03), the second goes through.
    await p.query('CREATE SEQUENCE tries');
    const migrations = ['CREATE TABLE first (x integer)', "SELECT CASE WHEN nextval('tries') = 1 THEN pg_terminate_backend(pg_backend_pid()) ELSE true END"];
    expect(await migrate(p, { schema, migrations })).toEqual({ from: 0, to: 2 });
    expect(await versions(p)).toEqual([1, 2]);
    expect((await p.query<{ n: number }>("SELECT last_value AS n FROM tries")).rows).toEqual([{ n: 2 }]);
  });

  it('names the database without its password when it cannot be reached', async () => {
    const url = `postgres://postgres:s3cret-Passw0rd@127.0.0.1:${cluster.port}/no_such_database`;
    const err = await migrate(pool(url), { url }).then(
      () => new Error('migrated'),
      (e: unknown) => e as Error,
    );
    expect(err.message).toBe(`cannot migrate the state in postgres://postgres@127.0.0.1:${cluster.port}/no_such_database: database "no_such_database" does not exist`);
    expect(String(err.stack)).not.toContain('s3cret');
  });
});
