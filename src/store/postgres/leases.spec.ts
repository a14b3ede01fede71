import type pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { postgresForFile } from '../../../test/helpers/postgres-file.js';
import { openPool } from './connect.js';
import { balance, fenceParams, fenceSql, leases, leave, release, SHARDS, takeAndRenew, type Fence } from './leases.js';
import { migrate } from './migrate.js';
import { FencedError } from '../errors.js';
import type { ShardFence } from '../types.js';
import { PgStore } from './store.js';

// On a real PostgreSQL cluster of this file's own; each test in a schema of its own (a
// database each costs as much again), each instance a pool of its own (its own connections,
// as separate processes would have).
const cluster = postgresForFile();

const pools: pg.Pool[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(pools.splice(0).map((p) => p.end()));
});

/** A migrated schema and `n` instances on it. */
async function instances(schema: string, n: number): Promise<pg.Pool[]> {
  const all = Array.from({ length: n }, () => openPool(cluster.url, { schema }));
  pools.push(...all);
  await migrate(all[0]!, { schema });
  return all;
}

const ALL = Array.from({ length: SHARDS }, (_, i) => i);
const MINUTE = 60_000;

/** A state write fenced by its shard's lease, as a store's would be: inserted only while the fence holds. */
async function fencedWrite(db: pg.Pool, fence: Fence, entity: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO entity_state (rule, entity, state, updated_at) SELECT 'r', $4, '{}', 0 WHERE ${fenceSql(1)}`,
    [...fenceParams(fence), entity],
  );
  return rowCount === 1;
}

describe('shard leases on PostgreSQL', () => {
  it('three instances racing for every shard: each shard goes to exactly one, and renewing keeps it with it', async () => {
    const [a, b, c] = await instances('race', 3);
    const names = ['a', 'b', 'c'];
    const first = await Promise.all([a!, b!, c!].map((db, i) => takeAndRenew(db, names[i]!, ALL, MINUTE)));
    const held = first.flatMap((got, i) => got.map((l) => `${l.shard}:${names[i]}`));
    expect(held).toHaveLength(SHARDS);
    expect(new Set(first.flat().map((l) => l.shard)).size).toBe(SHARDS);
    const stored = await leases(a!);
    expect(stored.map((l) => `${l.shard}:${l.holder}`).sort()).toEqual(held.sort());
    expect(stored.every((l) => l.live && l.epoch === 1)).toBe(true);

    const again = await Promise.all([a!, b!, c!].map((db, i) => takeAndRenew(db, names[i]!, ALL, MINUTE)));
    expect(again.map((got) => got.map((l) => [l.shard, l.epoch]))).toEqual(first.map((got) => got.map((l) => [l.shard, l.epoch])));
  });

  it("an expired lease is taken by another holder at a higher epoch; the former holder's renewal gets nothing", async () => {
    const [a, b] = await instances('expiry', 2);
    // A ttl of 0 ends the lease at the database's now(): expired by the next statement.
    expect((await takeAndRenew(a!, 'a', [0, 1], 0)).map((l) => [l.shard, l.epoch])).toEqual([[0, 1], [1, 1]]);
    expect((await takeAndRenew(b!, 'b', [0, 1, 2], MINUTE)).map((l) => [l.shard, l.epoch])).toEqual([[0, 2], [1, 2], [2, 1]]);
    expect(await takeAndRenew(a!, 'a', [0, 1], MINUTE)).toEqual([]);
  });

  it('a renewal keeps the epoch and moves the end; a lease given back is taken again at a new epoch', async () => {
    const [a] = await instances('renew', 1);
    const [taken] = await takeAndRenew(a!, 'a', [7], 1_000);
    const [renewed] = await takeAndRenew(a!, 'a', [7], MINUTE);
    expect(renewed!.epoch).toBe(taken!.epoch);
    expect(renewed!.expiresAt.getTime()).toBeGreaterThan(taken!.expiresAt.getTime());
    expect(await release(a!, 'a', [7, 8])).toEqual([7]);
    expect((await leases(a!))[7]).toMatchObject({ holder: null, expiresAt: null, live: false });
    expect((await takeAndRenew(a!, 'a', [7], MINUTE))[0]!.epoch).toBe(taken!.epoch + 1);
  });

  it('a write fenced by an old epoch, or by a lease that ran out, is refused; the holder at the current epoch writes', async () => {
    const [a, b] = await instances('fence', 2);
    const [old] = await takeAndRenew(a!, 'a', [3], 0);
    expect(await fencedWrite(a!, { shard: 3, holder: 'a', epoch: old!.epoch }, 'late')).toBe(false); // ran out
    const [current] = await takeAndRenew(b!, 'b', [3], MINUTE);
    expect(current!.epoch).toBeGreaterThan(old!.epoch);
    expect(await fencedWrite(a!, { shard: 3, holder: 'a', epoch: old!.epoch }, 'stale')).toBe(false);
    expect(await fencedWrite(b!, { shard: 3, holder: 'b', epoch: old!.epoch }, 'old-epoch')).toBe(false);
    expect(await fencedWrite(b!, { shard: 3, holder: 'b', epoch: current!.epoch }, 'current')).toBe(true);
    const written = await b!.query<{ entity: string }>('SELECT entity FROM entity_state');
    expect(written.rows).toEqual([{ entity: 'current' }]);
  });

  it('holds the lease row while a fenced write is in flight: no takeover or release lands before the write commits', async () => {
    const [a, admin] = await instances('in_flight', 2);
    const [lease] = await takeAndRenew(a!, 'a', [9], MINUTE);
    const writer = await a!.connect();
    const other = await admin!.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(`INSERT INTO entity_state (rule, entity, state, updated_at) SELECT 'r', 'e', '{}', 0 WHERE ${fenceSql(1)}`, fenceParams({ shard: 9, holder: 'a', epoch: lease!.epoch }));
      // Blocked, so it gives up at the lock timeout (not a measure of speed: unblocked, it would succeed).
      await other.query('SET lock_timeout = 200');
      await expect(release(other, 'a', [9])).rejects.toThrow('canceling statement due to lock timeout');
      await writer.query('COMMIT');
      expect(await release(other, 'a', [9])).toEqual([9]);
    } finally {
      writer.release();
      other.release();
    }
  });

  it("keeps the database's time whatever the host's clock says", async () => {
    const [a, b] = await instances('clock', 2);
    const db = (await a!.query<{ now: Date }>('SELECT now()')).rows[0]!.now;
    // The host's clock a day ahead: a lease on it would look long over.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(db.getTime() + 86_400_000);
    const [lease] = await takeAndRenew(a!, 'a', [5], MINUTE);
    const left = await a!.query<{ ms: number }>('SELECT (extract(epoch FROM expires_at - now()) * 1000)::float8 AS ms FROM leases WHERE shard = 5');
    expect(left.rows[0]!.ms).toBeGreaterThan(0);
    expect(left.rows[0]!.ms).toBeLessThanOrEqual(MINUTE);
    expect(lease!.expiresAt.getTime()).toBeLessThan(Date.now());
    expect(await takeAndRenew(b!, 'b', [5], MINUTE)).toEqual([]);
    expect(await fencedWrite(a!, { shard: 5, holder: 'a', epoch: lease!.epoch }, 'still-mine')).toBe(true);
    // A day behind: a lease that ran out in the database is over, however far ahead its end looks here.
    vi.setSystemTime(db.getTime() - 86_400_000);
    const [short] = await takeAndRenew(a!, 'a', [6], 0);
    expect(short!.expiresAt.getTime()).toBeGreaterThan(Date.now());
    expect((await takeAndRenew(b!, 'b', [6], MINUTE)).map((l) => l.epoch)).toEqual([short!.epoch + 1]);
  });

  it('refuses a shard outside 0…255, a holder without a name and a negative ttl before asking the database', async () => {
    const never = { query: () => Promise.reject(new Error('asked the database')) } as unknown as pg.Pool;
    await expect(takeAndRenew(never, 'a', [256], MINUTE)).rejects.toThrow('shard 256 is not one of 0…255');
    await expect(takeAndRenew(never, '', [1], MINUTE)).rejects.toThrow('a lease holder needs a name');
    await expect(takeAndRenew(never, 'a', [1], -1)).rejects.toThrow("a lease's ttl is a whole number of ms ≥ 0, not -1");
  });

  it('survives a restart of PostgreSQL: no two holders of a shard after it, epochs kept', async () => {
    const [a, b] = await instances('restart', 2);
    const before = await takeAndRenew(a!, 'a', [0, 1, 2], MINUTE);
    await cluster.restart('immediate');
    // The pools' connections were cut: each instance's next statement opens another.
    expect(await takeAndRenew(b!, 'b', [0, 1, 2, 3], MINUTE)).toEqual([expect.objectContaining({ shard: 3, epoch: 1 })]);
    expect((await takeAndRenew(a!, 'a', [0, 1, 2], MINUTE)).map((l) => [l.shard, l.epoch])).toEqual(before.map((l) => [l.shard, l.epoch]));
  });

  it('balance: instances that join spread the shards evenly, each shard to one; one that leaves or dies hands its share on', async () => {
    const [a, b, c] = await instances('balance', 3);
    const held = async (db: pg.Pool, name: string) => (await balance(db, name, MINUTE, 0)).leases.length;
    expect(await held(a!, 'a')).toBe(SHARDS); // alone: every shard
    expect(await held(b!, 'b')).toBe(0); // a's are live: b only joins
    expect((await balance(a!, 'a', MINUTE)).released).toHaveLength(SHARDS / 2); // a sees two: gives half back
    expect(await held(b!, 'b')).toBe(SHARDS / 2);
    await balance(c!, 'c', MINUTE, 100); // joins
    await balance(a!, 'a', MINUTE);
    await balance(b!, 'b', MINUTE);
    expect(await held(c!, 'c')).toBe(SHARDS - 2 * 86);
    const owners = (await leases(a!)).map((l) => l.holder);
    expect(owners.filter((h) => h === 'a')).toHaveLength(86);
    expect(owners.filter((h) => h === 'b')).toHaveLength(86);
    expect(owners.filter((h) => h === null)).toHaveLength(0);
    // c leaves cleanly: its shards and membership at once, the others take its share.
    await leave(c!, 'c');
    expect(await held(a!, 'a')).toBe(SHARDS / 2);
    expect(await held(b!, 'b')).toBe(SHARDS / 2);
    // b dies (its leases and membership run out): a takes every shard, each at a new epoch.
    const before = new Map((await leases(a!)).map((l) => [l.shard, l.epoch]));
    await balance(b!, 'b', 0);
    const after = (await balance(a!, 'a', MINUTE)).leases;
    expect(after).toHaveLength(SHARDS);
    expect(after.filter((l) => l.epoch === before.get(l.shard)! + 1)).toHaveLength(SHARDS / 2);
  });

  it("PgStore fenced: a commit of a rule whose shard moved on writes nothing and queues nothing; the new holder's commits land", async () => {
    const old = await PgStore.open(cluster.url, { schema: 'fenced' });
    const next = await PgStore.open(cluster.url, { schema: 'fenced' });
    try {
      const fences: { old?: ShardFence } = {};
      old.shards.fenceBy(() => fences.old);
      const newer: ShardFence[] = [];
      next.shards.fenceBy(() => newer[0]);
      const alert = { rule: 'r', kind: 'k', status: 'event' as const, severity: 'info' as const, subject: 'N', summary: 's', labels: {}, details: {}, targets: [{ receiver: 'slack', groupKey: 'g', groupWaitMs: 0, groupIntervalMs: 0 }] };
      // Not held at all: refused before anything is written.
      await expect(old.commitEvaluation('r', { a: 1 }, [alert], 1_000)).rejects.toThrow(FencedError);
      const taken = (await old.shards.balance('old', 0)).leases.find((l) => l.shard === 7)!;
      fences.old = { shard: 7, holder: 'old', epoch: taken.epoch };
      // Its lease ran out by the database's clock (ttl 0), and the next holder took the shard.
      const mine = (await next.shards.balance('next', MINUTE)).leases.find((l) => l.shard === 7)!;
      newer.push({ shard: 7, holder: 'next', epoch: mine.epoch });
      await expect(old.commitEvaluation('r', { a: 2 }, [alert], 2_000)).rejects.toThrow('moved on from epoch');
      await next.commitEvaluation('r', { a: 3 }, [alert], 3_000);
      expect((await next.stateRows('r')).rows).toEqual([{ entity: 'a', state: '3' }]);
      expect(await next.outboxCounts()).toMatchObject({ pending: 1 });
    } finally {
      await old.close();
      await next.close();
    }
  });
});
