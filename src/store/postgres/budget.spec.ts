import { setMaxListeners } from 'node:events';
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresForFile } from '../../../test/helpers/postgres-file.js';
import { startTcpProxy, type TcpProxy } from '../../../test/helpers/tcp-proxy.js';
import { BudgetExhaustedError, Limiter } from '../../api/limiter.js';
import { SharedAllowance, type BudgetLedger } from '../../api/shared-budget.js';
import { clockOf } from '../../base/clock.js';
import { createLogger, type Logger } from '../../base/log.js';
import type { BudgetAsk } from '../types.js';
import { giveBack, pgBudget, reserve, reserveSql } from './budget.js';
import { openPool } from './connect.js';
import { balance } from './leases.js';
import { migrate } from './migrate.js';

// The shared compute-unit ledger on a real cluster of this file's own: each test in a schema
// of its own, each instance a pool of its own (its own connections, as processes would have).
// The database's clock is real; the tests never depend on how fast it runs: what they count
// is bounded by the ledger's window whatever the time it took (a test ends within its 20 s
// timeout, well inside one window of 66 s).
const cluster = postgresForFile();

const pools: pg.Pool[] = [];
const proxies: TcpProxy[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.end()));
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});

async function instances(schema: string, n: number, url = cluster.url): Promise<pg.Pool[]> {
  const all = Array.from({ length: n }, () => openPool(url, { schema }));
  pools.push(...all);
  await migrate(all[0]!, { schema });
  return all;
}

const LIMITS = { perMinute: 120, perDay: 100_000 };
const ask = (o: Partial<BudgetAsk> = {}): BudgetAsk => ({ min: 1, want: 10, keep: 0, owed: 0, windowS: 66, back: [], limits: LIMITS, ...o });

/** The ledger's rows of a budget: (unix second, units). */
async function rows(db: pg.Pool, budget: string): Promise<Array<{ second: number; units: number }>> {
  const { rows: r } = await db.query<{ second: number; units: number }>('SELECT extract(epoch FROM second)::bigint AS second, units FROM compute_units WHERE budget = $1 ORDER BY second', [budget]);
  return r;
}

/** The most units reserved in any `seconds` seconds of the ledger. */
function busiest(ledger: ReadonlyArray<{ second: number; units: number }>, seconds: number): number {
  return Math.max(0, ...ledger.map((r) => ledger.filter((x) => x.second >= r.second && x.second < r.second + seconds).reduce((s, x) => s + x.units, 0)));
}

const quiet = (): Logger => createLogger('fatal', false).log;

/** A log that keeps its warnings. */
function recording(): { log: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const log = quiet();
  log.warn = ((_o: unknown, msg?: string) => void warnings.push(String(msg))) as Logger['warn'];
  log.info = (() => undefined) as Logger['info'];
  return { log, warnings };
}

/**
 * An instance's limiter on a shared budget. Its own clock runs a minute on at every reading:
 * its local windows never hold a request, so only the shared ledger does.
 */
function limiterOn(ledger: BudgetLedger, budget: string, o: { log?: Logger; capMs?: number; retryMs?: number; limits?: typeof LIMITS } = {}) {
  let t = Date.UTC(2026, 0, 1);
  const shared = new SharedAllowance({ ledger, budget, limits: o.limits ?? LIMITS, api: 'data', log: o.log ?? quiet(), ...(o.capMs ? { capMs: o.capMs } : {}), ...(o.retryMs !== undefined ? { retryMs: o.retryMs } : {}) });
  const limiter = new Limiter({ limits: o.limits ?? LIMITS, clock: clockOf({ now: () => t, mono: () => (t += 61_000) }), shared });
  return { limiter, shared };
}

/** Records every call a ledger gets: a test awaits the last one instead of polling. */
function watched(ledger: BudgetLedger): BudgetLedger & { calls: Array<Promise<unknown>> } {
  const calls: Array<Promise<unknown>> = [];
  return {
    calls,
    reserve: (b, a) => {
      const p = ledger.reserve(b, a);
      calls.push(p.catch(() => undefined));
      return p;
    },
    giveBack: (b, back) => ledger.giveBack(b, back),
  };
}

describe('the shared compute-unit ledger on PostgreSQL', () => {
  it('three instances reserving at once never hold more than the minute in any window; everything granted is in the ledger', async () => {
    const dbs = await instances('race', 3);
    const grants = await Promise.all(dbs.flatMap((db) => Array.from({ length: 20 }, () => reserve(db, 'data:k', ask({ want: 7 })))));
    const granted = grants.reduce((s, g) => s + g.granted, 0);
    const ledger = await rows(dbs[0]!, 'data:k');
    expect(ledger.reduce((s, r) => s + r.units, 0)).toBe(granted);
    expect(busiest(ledger, 66)).toBeLessThanOrEqual(LIMITS.perMinute);
    expect(granted).toBeLessThanOrEqual(LIMITS.perMinute); // all within one window: the test is far shorter
    expect(granted).toBe(LIMITS.perMinute); // and the whole minute was handed out: no unit lost to the race
    expect(Math.max(...grants.map((g) => g.window))).toBe(LIMITS.perMinute);
  });

  it('gives back, keeps a reserve for the severity, grants all-or-nothing below min, and records what was owed', async () => {
    const [db] = await instances('back', 1);
    const first = await reserve(db!, 'data:k', ask({ want: 100 }));
    expect(first).toMatchObject({ granted: 100, window: 100, day: 100, members: 0 });
    // 30 of them unspent: back. 25% kept for others (an info request): 120 - 30 - 70 = 20 free, fewer than min.
    const none = await reserve(db!, 'data:k', ask({ back: [{ second: first.second, units: 30 }], keep: 30, min: 21, want: 40 }));
    expect(none).toMatchObject({ granted: 0, window: 70 });
    const some = await reserve(db!, 'data:k', ask({ keep: 30, min: 5, want: 40, owed: 6 }));
    expect(some).toMatchObject({ granted: 14, window: 90, day: 90 });
    await giveBack(db!, 'data:k', [{ second: first.second, units: 10 }, { second: first.second, units: 5 }]);
    expect((await reserve(db!, 'data:k', ask({ want: 0, min: 0 }))).window).toBe(75);
  });

  it("the day is the ledger's: a later instance's first reservation counts what the others reserved today", async () => {
    const [a, later] = await instances('day', 2);
    const limits = { perMinute: 1_000, perDay: 100 };
    expect((await reserve(a!, 'data:k', ask({ want: 80, limits }))).granted).toBe(80);
    expect(await reserve(later!, 'data:k', ask({ min: 30, want: 30, limits }))).toMatchObject({ granted: 0, day: 80 });
    expect(await reserve(later!, 'data:k', ask({ min: 10, want: 30, limits }))).toMatchObject({ granted: 20, day: 100 });
    // Another key's budget is its own.
    expect((await reserve(later!, 'data:other', ask({ want: 30, limits }))).granted).toBe(30);
  });

  it('counts the live members, prunes rows older than a day, and refuses a name or a number it would not write into SQL', async () => {
    const [db] = await instances('prune', 1);
    await balance(db!, 'a', 60_000);
    await balance(db!, 'b', 60_000);
    await db!.query(`INSERT INTO compute_units VALUES ('data:k', now() - interval '25 hours', 50), ('data:k', now() - interval '23 hours', 7)`);
    const grant = await pgBudget(db!).reserve('data:k', ask({ want: 1 }));
    expect(grant.members).toBe(2);
    expect((await rows(db!, 'data:k')).map((r) => r.units)).toEqual([7, 1]);
    expect(() => reserveSql("data:k'; DROP TABLE leases; --", ask(), false)).toThrow('lower-case letters, digits');
    expect(() => reserveSql('data:k', ask({ want: 1.5 }), false)).toThrow('want is a whole number ≥ 0, not 1.5');
    expect(() => reserveSql('data:k', ask({ back: [{ second: -1, units: 1 }] }), false)).toThrow('a second is a whole number');
  });
});

describe('limiters of several instances on one shared budget', () => {
  it('racing from three instances, they let through exactly the minute between them, never more, asking the ledger once per block', async () => {
    const dbs = await instances('limiters', 3);
    const ledgers = dbs.map((db) => watched(pgBudget(db)));
    const all = ledgers.map((l) => limiterOn(l, 'data:k'));
    const abort = new AbortController();
    setMaxListeners(100, abort.signal); // one per request waiting
    let through = 0;
    let minuteSpent: () => void = () => undefined;
    const spent = new Promise<void>((resolve) => (minuteSpent = resolve));
    // 3 × 30 requests of 5 CU: 450 CU asked of a minute of 120.
    const asked = all.flatMap(({ limiter }) =>
      Array.from({ length: 30 }, () =>
        limiter.acquire(5, 'critical', abort.signal).then(() => {
          through += 5;
          if (through >= LIMITS.perMinute) minuteSpent();
        }),
      ),
    );
    await spent;
    // The rest wait for the database's next minute; they leave now.
    abort.abort(new Error('test over'));
    await Promise.allSettled(asked);
    expect(through).toBe(LIMITS.perMinute);
    await Promise.all(all.map(({ limiter }) => limiter.close()));
    const ledger = await rows(dbs[0]!, 'data:k');
    expect(busiest(ledger, 66)).toBeLessThanOrEqual(LIMITS.perMinute);
    expect(ledger.reduce((s, r) => s + r.units, 0)).toBe(through);
    // 24 requests went through on far fewer calls (blocks of up to 10 CU; the rest asked in vain once a second at most).
    expect(ledgers.reduce((n, l) => n + l.calls.length, 0)).toBeLessThan(3 * 30);
  });

  it('a day spent together is spent for an instance that starts later: its first request fails as the others would', async () => {
    const [a, later] = await instances('later', 2);
    const limits = { perMinute: 1_000, perDay: 100 };
    const first = limiterOn(pgBudget(a!), 'data:k', { limits });
    await Promise.all(Array.from({ length: 8 }, () => first.limiter.acquire(10)));
    await first.limiter.close(); // its block's unspent units go back
    const second = limiterOn(pgBudget(later!), 'data:k', { limits });
    await second.limiter.acquire(10);
    await second.limiter.acquire(10);
    await expect(second.limiter.acquire(10)).rejects.toThrow(BudgetExhaustedError);
    await expect(second.limiter.acquire(10)).rejects.toThrow("the day's budget of 100 compute units is spent, by the instances sharing this key together; it renews at 00:00 UTC");
    expect(second.limiter.remainingDay()).toBe(0);
  });

  it('a database that stops answering: the next request waits at most the cap, then a local share is spent (said once), and what it spent is recorded once the database answers', async () => {
    const [direct] = await instances('cut', 1);
    const proxy = await startTcpProxy({ target: { host: '127.0.0.1', port: cluster.port } });
    proxies.push(proxy);
    const db = openPool(`postgres://postgres@${proxy.host}:${proxy.port}/postgres`, { schema: 'cut', queryTimeoutMs: 60_000 });
    pools.push(db);
    await balance(direct!, 'a', 60_000);
    await balance(direct!, 'b', 60_000); // two live instances: the share is half the plan
    const { log, warnings } = recording();
    const ledger = watched(pgBudget(db));
    const { limiter, shared } = limiterOn(ledger, 'data:k', { log, capMs: 300, retryMs: 0 });
    await limiter.acquire(5); // a block of 5 (half the largest, 10)
    proxy.blackhole();
    // Blackholed: no answer, no error. The cap (300 ms on the host's clock) lets it through on the local share.
    await limiter.acquire(5);
    expect(shared.local).toBe(true);
    expect(warnings).toEqual(['shared compute-unit budget: PostgreSQL did not answer (no answer within 300 ms); spending a local share, 1/2 of the plan (60 CU a minute), until it does']);
    // The share: 60 a minute, the 10 spent in it counted.
    for (let i = 0; i < 10; i++) await limiter.acquire(5);
    expect(shared.take(5, 0)).toBe('wait');
    expect(warnings).toHaveLength(1);
    // The network back (the blackholed connection is reset): the next call records the 55 CU owed.
    proxy.cut();
    proxy.heal();
    await Promise.all(ledger.calls);
    expect(shared.take(0, 0)).not.toBe('wait');
    await Promise.all(ledger.calls);
    expect(shared.local).toBe(false);
    // The first block (5), the 55 spent on the local share, and the block the call took (twice the 5 the last spent).
    expect((await rows(direct!, 'data:k')).reduce((s, r) => s + r.units, 0)).toBe(5 + 55 + 10);
  });

  it('a database on a closed port: the first request spends a local share at once, half the plan before any instance was seen', async () => {
    const proxy = await startTcpProxy({ target: { host: '127.0.0.1', port: cluster.port } });
    proxies.push(proxy);
    proxy.cut();
    const db = openPool(`postgres://postgres@${proxy.host}:${proxy.port}/postgres`);
    pools.push(db);
    const { log, warnings } = recording();
    const { limiter, shared } = limiterOn(pgBudget(db), 'data:k', { log, capMs: 60_000 });
    await limiter.acquire(60);
    expect(shared.local).toBe(true);
    expect(shared.take(1, 0)).toBe('wait');
    expect(warnings[0]).toMatch(/^shared compute-unit budget: PostgreSQL did not answer \(.+\); spending a local share, 1\/2 of the plan \(60 CU a minute\), until it does$/);
  });
});
