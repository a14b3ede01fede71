import { createServer, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresForFile } from '../../../test/helpers/postgres-file.js';
import { StateConflictError, StoreError } from '../errors.js';
import type { NewAlert } from '../types.js';
import { openPool, transaction } from './connect.js';
import { PgStore } from './store.js';

// What only the PostgreSQL store has to show: several instances on one database at once, and
// the server going away (the StateStore contract runs against it in ../postgres.spec.ts).
// One cluster for the file, a schema per test.
const cluster = postgresForFile();

const opened: PgStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});
async function store(schema: string): Promise<PgStore> {
  const s = await PgStore.open(cluster.url, { schema });
  opened.push(s);
  return s;
}

const alert = (summary: string): NewAlert => ({
  rule: 'r',
  kind: 'a-kind',
  status: 'event',
  severity: 'info',
  subject: 'NodeID-1',
  summary,
  labels: { node: 'NodeID-1' },
  details: {},
  targets: [{ receiver: 'slack', groupKey: summary, groupWaitMs: 0, groupIntervalMs: 0 }],
});

describe('PgStore: instances sharing one database', () => {
  it('two instances committing one rule from the same revision at once: one commits, the other is refused and writes nothing', async () => {
    const [a, b] = [await store('race_commit'), await store('race_commit')];
    await a.commitEvaluation('r', { x: 0 }, [], 1);
    const { revision } = await a.stateRows('r');
    const outcomes = await Promise.allSettled([
      a.commitEvaluation('r', { x: 'a' }, [alert('from a')], 2, undefined, revision),
      b.commitEvaluation('r', { x: 'b' }, [alert('from b')], 2, undefined, revision),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(StateConflictError);
    const winner = outcomes[0]?.status === 'fulfilled' ? 'a' : 'b';
    expect(await b.stateRows('r')).toEqual({ rows: [{ entity: 'x', state: `"${winner}"` }], revision: revision + 1 });
    expect((await a.outbox()).map((r) => r.summary)).toEqual([`from ${winner}`]);
  });

  it('two instances committing overlapping parts from the same revisions at once: one commits, the other is refused whole (no deadlock)', async () => {
    const [a, b] = [await store('race_parts'), await store('race_parts')];
    const rules = ['r#001', 'r#002', 'r#003'];
    await a.commitParts(rules.map((rule) => ({ rule, states: { x: 0 } })), [], 1);
    const read = await a.stateRowsOf(rules);
    const commit = (s: PgStore, who: string, mine: readonly string[]) =>
      s.commitParts(mine.map((rule) => ({ rule, states: { x: who }, expectRevision: read.get(rule)!.revision })), [alert(`from ${who}`)], 2);
    // Opposite orders: the revision rows are locked in rule order whatever the parts' order.
    const outcomes = await Promise.allSettled([commit(a, 'a', ['r#001', 'r#002', 'r#003']), commit(b, 'b', ['r#003', 'r#002'])]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(StateConflictError);
    const winner = outcomes[0]?.status === 'fulfilled' ? 'a' : 'b';
    const after = await b.stateRowsOf(rules);
    const x = (rule: string) => after.get(rule)!.rows[0]?.state;
    expect([x('r#001'), x('r#002'), x('r#003')]).toEqual(winner === 'a' ? ['"a"', '"a"', '"a"'] : ['0', '"b"', '"b"']);
    expect((await a.outbox()).map((r) => r.summary)).toEqual([`from ${winner}`]);
  });

  it('two instances committing the same transition at once (no revision asked): both commits succeed, one alert and one row per target, its id to both', async () => {
    const [a, b] = [await store('race_transition'), await store('race_transition')];
    const firing: NewAlert = { ...alert('N fired'), status: 'firing', conditionKey: 'N', transition: 'firing||1000', targets: [{ receiver: 'slack', groupKey: 'g', groupWaitMs: 0, groupIntervalMs: 0 }, { receiver: 'mail', groupKey: 'g', groupWaitMs: 0, groupIntervalMs: 0 }] };
    const [fromA, fromB] = await Promise.all([a.commitEvaluation('r', { x: 'a' }, [firing, alert('a')], 2), b.commitEvaluation('r', { x: 'b' }, [alert('b'), firing], 2)]);
    expect(fromA?.[0]).toBe(fromB?.[1]);
    expect((await a.outbox()).map((r) => `${r.receiver} ${r.summary}`).sort()).toEqual(['mail N fired', 'slack N fired', 'slack a', 'slack b']);
  });

  it('two instances claiming one receiver at once never get the same row, and take them all between them', async () => {
    const [a, b] = [await store('race_claim'), await store('race_claim')];
    await a.commitEvaluation('r', {}, Array.from({ length: 40 }, (_, i) => alert(`n${i}`)), 1_000);
    const claims = await Promise.all([0, 1, 2, 3].map((i) => (i % 2 === 0 ? a : b).claimDue('slack', 1_000, 15, 60_000)));
    const ids = claims.flat().map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(40);
  });

  it("moves its data version for another instance's commit, never for its own", async () => {
    const [a, b] = [await store('version'), await store('version')];
    const before = await a.dataVersion();
    await a.commitEvaluation('r', { x: 1 }, [], 1);
    await a.pruneRule('gone');
    expect(await a.dataVersion()).toBe(before);
    await b.commitEvaluation('r', { x: 2 }, [], 2);
    expect(await a.dataVersion()).not.toBe(before);
  });
});

describe('PgStore: the server', () => {
  it('keeps every commit through a crash of PostgreSQL, and commits again once it is back', async () => {
    const s = await store('restart');
    await s.commitEvaluation('r', { x: 1 }, [alert('before')], 1);
    await cluster.restart('immediate');
    await s.commitEvaluation('r', { x: 2 }, [alert('after')], 2);
    expect((await s.stateRows('r')).rows).toEqual([{ entity: 'x', state: '2' }]);
    expect((await s.outbox()).map((r) => r.summary)).toEqual(['after', 'before']);
  });

  it('a crash of PostgreSQL while a transaction holds its connection fails that transaction, not the process; the pool then connects again', async () => {
    const pool = openPool(cluster.url);
    try {
      // Between two statements of the transaction: the connection is checked out of the pool,
      // idle, when the server cuts it (node-postgres then emits 'error' on that client).
      const cut = transaction(pool, async (db) => {
        await db.query('SELECT 1');
        await cluster.restart('immediate');
        await db.query('SELECT 1');
      });
      await expect(cut).rejects.toThrow();
      expect(await transaction(pool, async (db) => (await db.query<{ one: number }>('SELECT 1 AS one')).rows)).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it('fails to open naming the database, never its password', async () => {
    const url = `postgres://postgres:s3cret-Passw0rd@127.0.0.1:${cluster.port}/nowhere`;
    const err = await PgStore.open(url).then(
      () => new Error('opened'),
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(StoreError);
    expect(err.message).toBe(`cannot migrate the state in postgres://postgres@127.0.0.1:${cluster.port}/nowhere: database "nowhere" does not exist`);
    expect(String(err.stack)).not.toContain('s3cret');
  });

  it('gives up on a server that takes the connection and never answers, at its connect cap, naming the database and never its password', async () => {
    // A blackholed database: the TCP connection is accepted, not a byte comes back.
    const held: Socket[] = [];
    const silent = createServer((socket) => held.push(socket));
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    const { port } = silent.address() as AddressInfo;
    try {
      const err = await PgStore.open(`postgres://postgres:s3cret-Passw0rd@127.0.0.1:${port}/avawatch`, { connectTimeoutMs: 300 }).then(
        () => new Error('opened'),
        (e: unknown) => e as Error,
      );
      expect(err).toBeInstanceOf(StoreError);
      expect(err.message).toMatch(new RegExp(`^cannot migrate the state in postgres://postgres@127\\.0\\.0\\.1:${port}/avawatch: .*timeout`, 'i'));
      expect(String(err.stack)).not.toContain('s3cret');
    } finally {
      for (const socket of held) socket.destroy();
      silent.close();
    }
  });

  it('rejects a ping once closed; a second close does nothing', async () => {
    const s = await PgStore.open(cluster.url, { schema: 'closed' });
    await s.ping();
    await s.close();
    await expect(s.ping()).rejects.toThrow();
    await s.close();
  });
});
