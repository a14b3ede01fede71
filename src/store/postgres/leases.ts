import { SHARDS } from '../../base/shard.js';
import type { Queryable } from './connect.js';

// Shard leases (table leases, migration 2). An instance holds a shard while its lease runs;
// the clock is PostgreSQL's alone (now(), clock_timestamp()), so a host whose clock jumps or
// a process paused past its lease cannot hold a shard longer than the database says.
//
// Taking and renewing is one statement. Its now() is the statement's start: a lease it sets
// ends no earlier than `ttlMs` after the holder sent the request, so a holder that counts
// ttlMs on its own steady clock from before the call stops believing first.

export { SHARDS };

/** A lease held: its shard, its fencing token, and when it ends (the database's time). */
export interface Lease {
  shard: number;
  epoch: number;
  expiresAt: Date;
}

/** What a fenced write carries: the shard, its holder, and the epoch it was taken at. */
export interface Fence {
  shard: number;
  holder: string;
  epoch: number;
}

function check(holder: string, shards: readonly number[]): void {
  if (holder === '') throw new Error('a lease holder needs a name');
  const bad = shards.find((s) => !Number.isInteger(s) || s < 0 || s >= SHARDS);
  if (bad !== undefined) throw new Error(`shard ${bad} is not one of 0…${SHARDS - 1}`);
}

/**
 * Renews the holder's own leases among `shards` and takes those that are free or expired,
 * each for `ttlMs` from the database's now(); returns the leases the holder has of them
 * (others' live leases are left alone). The epoch moves only when the holder changes, so a
 * renewal keeps the holder's writes valid and a takeover fences out the one before. A holder
 * name is one process's run (a restart is a new holder).
 */
export async function takeAndRenew(db: Queryable, holder: string, shards: readonly number[], ttlMs: number): Promise<Lease[]> {
  check(holder, shards);
  if (!Number.isInteger(ttlMs) || ttlMs < 0) throw new Error(`a lease's ttl is a whole number of ms ≥ 0, not ${ttlMs}`);
  // The CTE only orders the row locks (by shard): two instances taking overlapping sets wait
  // for each other instead of deadlocking. A fenced write in progress holds its shard's row
  // FOR SHARE: a takeover waits for it to commit, so that write lands before the new epoch.
  const { rows } = await db.query<{ shard: number; epoch: number; expires_at: Date }>(
    `WITH wanted AS (
       SELECT shard FROM leases
        WHERE shard = ANY($2::integer[]) AND (holder = $1 OR holder IS NULL OR expires_at <= now())
        ORDER BY shard
        FOR NO KEY UPDATE)
     UPDATE leases l
        SET epoch = CASE WHEN l.holder IS DISTINCT FROM $1 THEN l.epoch + 1 ELSE l.epoch END,
            holder = $1,
            expires_at = now() + make_interval(secs => $3::double precision / 1000)
       FROM wanted
      WHERE l.shard = wanted.shard
     RETURNING l.shard, l.epoch, l.expires_at`,
    [holder, [...shards], ttlMs],
  );
  return rows.map((r) => ({ shard: r.shard, epoch: r.epoch, expiresAt: r.expires_at })).sort((a, b) => a.shard - b.shard);
}

/** Gives the holder's leases among `shards` back at once (a shutdown, a surplus); returns the shards released. */
export async function release(db: Queryable, holder: string, shards: readonly number[]): Promise<number[]> {
  check(holder, shards);
  const { rows } = await db.query<{ shard: number }>(
    `UPDATE leases SET holder = NULL, expires_at = NULL WHERE holder = $1 AND shard = ANY($2::integer[]) RETURNING shard`,
    [holder, [...shards]],
  );
  return rows.map((r) => r.shard).sort((a, b) => a - b);
}

/** Every lease as the database has it (free ones with holder null), by shard. */
export async function leases(db: Queryable): Promise<Array<{ shard: number; holder: string | null; epoch: number; expiresAt: Date | null; live: boolean }>> {
  const { rows } = await db.query<{ shard: number; holder: string | null; epoch: number; expires_at: Date | null; live: boolean }>(
    `SELECT shard, holder, epoch, expires_at, (holder IS NOT NULL AND expires_at > now()) AS live FROM leases ORDER BY shard`,
  );
  return rows.map((r) => ({ shard: r.shard, holder: r.holder, epoch: r.epoch, expiresAt: r.expires_at, live: r.live }));
}

/**
 * The condition a fenced write puts in its own statement: the lease is still the writer's,
 * at the epoch the write carries, and has not ended. `$n`, `$n+1`, `$n+2` are the fence's
 * shard, holder and epoch (fenceParams). It locks the lease row FOR SHARE until the write's
 * transaction ends (a takeover waits for it), and reads clock_timestamp(), not now(): a long
 * transaction's start is no proof that the lease still runs.
 */
export function fenceSql(n: number): string {
  return `EXISTS (SELECT 1 FROM leases WHERE shard = $${n} AND holder = $${n + 1} AND epoch = $${n + 2} AND expires_at > clock_timestamp() FOR SHARE)`;
}

/** The values of fenceSql's three parameters, in its order. */
export function fenceParams(f: Fence): [number, string, number] {
  return [f.shard, f.holder, f.epoch];
}

/** What one round of balance() found and holds. */
export interface Balance {
  /** The holder's leases now, by shard. */
  leases: Lease[];
  /** Live instances, the holder among them. */
  members: number;
  /** Shards the holder gave back as more than its share. */
  released: number[];
}

/**
 * One round of an instance's membership and shards (every ttl/3): its membership renewed,
 * its leases renewed, free or expired shards taken up to its fair share (all shards over the
 * live instances, rounded up) and what it holds beyond that given back, for a newcomer to
 * take. Instances that join or die move shards with no one deciding: each moves towards its
 * share on its own. `start` spreads where a newcomer looks first, so two joining at once
 * mostly reach for different shards.
 */
export async function balance(db: Queryable, holder: string, ttlMs: number, start = 0): Promise<Balance> {
  check(holder, []);
  // The CTE's insert is not visible to the count beside it (one snapshot): the others, plus itself.
  const { rows: counted } = await db.query<{ n: number }>(
    `WITH me AS (
       INSERT INTO members (holder, expires_at) VALUES ($1, now() + make_interval(secs => $2::double precision / 1000))
       ON CONFLICT (holder) DO UPDATE SET expires_at = EXCLUDED.expires_at RETURNING holder)
     SELECT count(*)::integer + 1 AS n FROM members WHERE expires_at > now() AND holder <> $1 AND EXISTS (SELECT 1 FROM me)`,
    [holder, ttlMs],
  );
  const members = Math.max(1, counted[0]?.n ?? 1);
  const share = Math.ceil(SHARDS / members);
  const all = await leases(db);
  const mine = all.filter((l) => l.holder === holder && l.live).map((l) => l.shard);
  const surplus = mine.slice(share);
  const kept = mine.slice(0, share);
  const free = all.filter((l) => !l.live).map((l) => l.shard);
  const from = ((start % SHARDS) + SHARDS) % SHARDS;
  const wanted = [...free.filter((s) => s >= from), ...free.filter((s) => s < from)].slice(0, Math.max(0, share - kept.length));
  const held = await takeAndRenew(db, holder, [...kept, ...wanted], ttlMs);
  const released = surplus.length > 0 ? await release(db, holder, surplus) : [];
  return { leases: held, members, released };
}

/** An instance leaves: its leases given back and its membership ended, so the others take its share at once. */
export async function leave(db: Queryable, holder: string): Promise<void> {
  await db.query('UPDATE leases SET holder = NULL, expires_at = NULL WHERE holder = $1', [holder]);
  await db.query('DELETE FROM members WHERE holder = $1 OR expires_at < now() - interval \'1 day\'', [holder]);
}
