import type pg from 'pg';
import { systemClock } from '../../base/clock.js';
import type { BudgetAsk, BudgetGrant, BudgetReturn, SharedBudget } from '../types.js';
import type { Queryable } from './connect.js';

// The compute-unit ledger every instance on one API key shares (table compute_units,
// migration 3): units reserved per budget and second of the database's clock. An instance
// reserves a block of units here and spends it locally (api/shared-budget.ts); the ledger is
// what keeps the instances together within the plan.
//
// A reservation must see every reservation committed before it: two instances summing the
// window at once would both grant the same free units. So reservations of one budget are
// serialized by a lock, and the sums are read by a statement that starts after the lock is
// held (READ COMMITTED: each statement sees what was committed when it began). All of it is one
// message of several statements (the simple query protocol: one implicit transaction, one
// round trip): the lock is held only while the server runs them, never while it waits for
// a client, so an instance cut off mid-way holds no one up. The lock is transaction-scoped
// (pg_advisory_xact_lock): it ends with the transaction, commit, rollback or a killed
// backend, unlike a session's advisory lock that outlives it on a pooled connection. The
// simple protocol takes no parameters: every value is checked (a budget name of letters,
// digits and :._-, whole numbers) before it is written into the statements.
//
// Time is the database's alone, read after the lock is held (clock_timestamp(), not the
// transaction's now()): reservations are then stamped in the order they were granted, and a
// window summed from a grant's second back covers every grant before it that it must count.
// The window has no upper end: seconds ahead of the clock (it was set back) count too.

/** The lock's first key: "avaw", apart from other users of advisory locks in the database. */
const LOCK_CLASS = 0x61766177 | 0;
/** Rows older than a day are deleted (the UTC day needs at most 24 h of them), at most this often per store. */
const PRUNE_EVERY_MS = 3_600_000;

function name(budget: string): string {
  if (!/^[a-z][a-z0-9:._-]{0,127}$/.test(budget)) throw new Error(`a compute-unit budget is named with lower-case letters, digits and :._-, not "${budget}"`);
  return `'${budget}'`;
}

function whole(n: number, what: string): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${what} is a whole number ≥ 0, not ${n}`);
  return String(n);
}

/** Returns grouped by second (an UPDATE … FROM applies one row per target row), checked. */
function returns(back: readonly BudgetReturn[]): { seconds: string; units: string } | undefined {
  const by = new Map<number, number>();
  for (const b of back) by.set(b.second, (by.get(b.second) ?? 0) + b.units);
  const rows = [...by].filter(([, u]) => u > 0);
  if (rows.length === 0) return undefined;
  return { seconds: rows.map(([s]) => whole(s, 'a second')).join(','), units: rows.map(([, u]) => whole(u, 'units given back')).join(',') };
}

function giveBackSql(budget: string, r: { seconds: string; units: string }): string {
  return `UPDATE compute_units c SET units = greatest(0, c.units - b.units)
            FROM unnest(ARRAY[${r.seconds}]::bigint[], ARRAY[${r.units}]::bigint[]) AS b(second, units)
           WHERE c.budget = ${budget} AND c.second = to_timestamp(b.second)`;
}

/** The statements of one reservation, in one message. */
export function reserveSql(budget: string, ask: BudgetAsk, prune: boolean): string {
  const b = name(budget);
  const [min, want, keep, owed, windowS, perMinute, perDay] = (
    [[ask.min, 'min'], [ask.want, 'want'], [ask.keep, 'keep'], [ask.owed, 'owed'], [ask.windowS, 'the window'], [ask.limits.perMinute, 'perMinute'], [ask.limits.perDay, 'perDay']] as const
  ).map(([n, what]) => whole(n, what));
  const back = returns(ask.back);
  return [
    `SELECT pg_advisory_xact_lock(${LOCK_CLASS}, hashtext(${b}))`,
    ...(back ? [giveBackSql(b, back)] : []),
    ...(prune ? [`DELETE FROM compute_units WHERE second < clock_timestamp() - interval '1 day'`] : []),
    `WITH t AS (
       SELECT s, s - make_interval(secs => ${windowS}) AS from_s, (date_trunc('day', s AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') AS day_s
         FROM (SELECT date_trunc('second', clock_timestamp()) AS s) n),
     spent AS (
       SELECT t.s, coalesce(sum(c.units) FILTER (WHERE c.second > t.from_s), 0) + ${owed} AS win,
              coalesce(sum(c.units) FILTER (WHERE c.second >= t.day_s), 0) + ${owed} AS day
         FROM t LEFT JOIN compute_units c ON c.budget = ${b} AND c.second >= least(t.day_s, t.from_s)
        GROUP BY t.s),
     g AS (
       SELECT s, win, day, CASE WHEN free >= ${min} THEN least(${want}, free) ELSE 0 END AS granted
         FROM (SELECT s, win, day, greatest(0, least(${perMinute} - ${keep} - win, ${perDay} - day)) AS free FROM spent) f),
     ins AS (
       INSERT INTO compute_units (budget, second, units) SELECT ${b}, s, granted + ${owed} FROM g WHERE granted + ${owed} > 0
       ON CONFLICT (budget, second) DO UPDATE SET units = compute_units.units + excluded.units)
     SELECT extract(epoch FROM s)::bigint AS second, granted::bigint AS granted, (win + granted)::bigint AS win, (day + granted)::bigint AS day,
            (SELECT count(*) FROM members WHERE expires_at > clock_timestamp())::integer AS members
       FROM g`,
  ].join(';\n');
}

/** Reserves (see SharedBudget.reserve): one message, one implicit transaction. */
export async function reserve(db: Queryable, budget: string, ask: BudgetAsk, prune = false): Promise<BudgetGrant> {
  const text = reserveSql(budget, ask, prune);
  // No values: the simple protocol, which runs several statements and answers each.
  const results = (await db.query(text)) as unknown as pg.QueryResult[] | pg.QueryResult;
  const last = Array.isArray(results) ? results[results.length - 1] : results;
  const row = last?.rows[0] as { second: number; granted: number; win: number; day: number; members: number } | undefined;
  if (!row) throw new Error('the compute-unit ledger answered no grant');
  return { second: Number(row.second), granted: Number(row.granted), window: Number(row.win), day: Number(row.day), members: Number(row.members) };
}

/** Gives units reserved and not spent back; a decrement only makes room, so it needs no lock. */
export async function giveBack(db: Queryable, budget: string, back: readonly BudgetReturn[]): Promise<void> {
  const r = returns(back);
  if (r) await db.query(giveBackSql(name(budget), r));
}

/** A store's ledger: pruned of rows older than a day by a reservation, at most once an hour. */
export function pgBudget(db: Queryable): SharedBudget {
  let prunedAt: number | undefined;
  return {
    reserve: async (budget, ask) => {
      const now = systemClock.mono();
      const prune = prunedAt === undefined || now - prunedAt >= PRUNE_EVERY_MS;
      const grant = await reserve(db, budget, ask, prune);
      if (prune) prunedAt = now;
      return grant;
    },
    giveBack: (budget, back) => giveBack(db, budget, back),
  };
}
