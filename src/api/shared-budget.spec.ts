import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clockAt } from '../base/clock.js';
import { createLogger, type Logger } from '../base/log.js';
import { Secret } from '../base/secret.js';
import { Limiter } from './limiter.js';
import { budgetName, SharedAllowance, type BudgetLedger, type LedgerAsk, type LedgerGrant, type LedgerReturn } from './shared-budget.js';

// The allowance against a ledger kept in memory (the real one: store/postgres/budget.spec.ts),
// on fake time: blocks, their end, give-backs, and what happens when the ledger is away.

const LIMITS = { perMinute: 600, perDay: 100_000 };

/** A ledger in memory that keeps every window within the plan, as PostgreSQL's does (per second of fake time). */
function memoryLedger(o: { members?: number } = {}) {
  const reserved = new Map<number, number>();
  const asks: LedgerAsk[] = [];
  const returned: LedgerReturn[] = [];
  let answer: ((ask: LedgerAsk) => Promise<LedgerGrant>) | undefined;
  const give = (back: readonly LedgerReturn[]) => {
    for (const b of back) {
      reserved.set(b.second, Math.max(0, (reserved.get(b.second) ?? 0) - b.units));
      returned.push(b);
    }
  };
  const grant = (a: LedgerAsk): LedgerGrant => {
    give(a.back);
    const second = Math.floor(Date.now() / 1000);
    const sum = (from: number) => [...reserved].filter(([s]) => s > from).reduce((n, [, u]) => n + u, 0);
    const window = sum(second - a.windowS) + a.owed;
    const day = sum(-1) + a.owed;
    const free = Math.max(0, Math.min(a.limits.perMinute - a.keep - window, a.limits.perDay - day));
    const granted = free >= a.min ? Math.min(a.want, free) : 0;
    reserved.set(second, (reserved.get(second) ?? 0) + granted + a.owed);
    return { second, granted, window: window + granted, day: day + granted, members: o.members ?? 1 };
  };
  const ledger: BudgetLedger = {
    reserve: (_budget, a) => {
      asks.push(a);
      return answer ? answer(a) : Promise.resolve(grant(a));
    },
    giveBack: (_budget, back) => Promise.resolve(give(back)),
  };
  return {
    ledger,
    asks,
    returned,
    grant,
    total: () => [...reserved.values()].reduce((n, u) => n + u, 0),
    /** From now on each call is answered by this (a ledger that fails or never answers). */
    answerWith: (f: ((ask: LedgerAsk) => Promise<LedgerGrant>) | undefined) => (answer = f),
  };
}

function logged(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const log = createLogger('fatal', false).log;
  log.warn = ((_o: unknown, msg?: string) => void lines.push(`warn ${String(msg)}`)) as Logger['warn'];
  log.info = ((_o: unknown, msg?: string) => void lines.push(`info ${String(msg)}`)) as Logger['info'];
  return { log, lines };
}

function build(ledger: BudgetLedger, log: Logger) {
  const clock = clockAt(() => Date.now());
  const shared = new SharedAllowance({ ledger, budget: 'data:k', limits: LIMITS, api: 'data', log, clock });
  return { shared, limiter: new Limiter({ limits: LIMITS, clock, shared }) };
}

describe('the shared budget, as one instance holds it', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 22, 12, 0, 0) });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('names a key by a digest: the same on every instance, another for another key or API, never the key', () => {
    const key = 'glc_live_9f2c7a1b3e5d4c6f8a0b';
    const name = budgetName('data', new Secret(key));
    expect(name).toMatch(/^data:[0-9a-f]{32}$/);
    expect(name).toBe(budgetName('data', new Secret(key)));
    expect(name).not.toContain(key.slice(4, 12));
    expect(budgetName('data', new Secret(`${key}x`))).not.toBe(name);
    expect(new Secret(key).digest('another purpose')).not.toBe(name.slice(5));
    expect(budgetName('data', undefined)).toBe('data:keyless');
  });

  it('spends blocks: a burst asks the ledger a handful of times, not once per request; an idle block gives its rest back when it ends', async () => {
    const mem = memoryLedger();
    const { limiter } = build(mem.ledger, logged().log);
    // 50 CU a block at most (600 a minute × 5 s); the first asks half of that.
    await Promise.all(Array.from({ length: 20 }, () => limiter.acquire(4)));
    // 6 requests on the first block (its last unit back with the next call), 12 on the next (twice what the first spent), 2 on the last.
    const second = Math.floor(Date.now() / 1000);
    expect(mem.asks.map((a) => [a.want, a.back])).toEqual([[25, []], [48, [{ second, units: 1 }]], [50, []]]);
    expect(mem.total()).toBe(24 + 48 + 50);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(mem.total()).toBe(24 + 48 + 50);
    await vi.advanceTimersByTimeAsync(1);
    expect(mem.total()).toBe(80);
    expect(mem.returned.at(-1)).toEqual({ second, units: 42 });
  });

  it("a request that got no answer gives its units back: to the block while it lasts, to the ledger after", async () => {
    const mem = memoryLedger();
    const { limiter } = build(mem.ledger, logged().log);
    const r = await limiter.acquire(10);
    limiter.settle(r, false);
    await limiter.acquire(25); // the 25 of the first block: the 10 came back to it
    expect(mem.asks).toHaveLength(1);
    const late = await limiter.acquire(10); // a second block
    await vi.advanceTimersByTimeAsync(6_000); // it ended, its rest given back
    const before = mem.total();
    limiter.settle(late, false);
    await limiter.acquire(1); // the next call carries the 10 back
    expect(mem.asks.at(-1)!.back).toEqual([{ second: late.shared!.second, units: 10 }]);
    expect(mem.total()).toBe(before - 10 + mem.asks.at(-1)!.want);
  });

  it('a ledger that fails: a local share at once, the plan over the instances last seen, said once; the ledger asked again in the background, what was owed recorded', async () => {
    const mem = memoryLedger({ members: 10 });
    const { log, lines } = logged();
    const { limiter, shared } = build(mem.ledger, log);
    await limiter.acquire(25);
    mem.answerWith(() => Promise.reject(new Error('connection terminated')));
    // 60 a minute (600 / 10), the 25 spent from the block counted: 30 more, not 40.
    for (let i = 0; i < 3; i++) await limiter.acquire(10);
    expect(shared.local).toBe(true);
    expect(shared.take(10, 0)).toBe('wait');
    expect(lines).toEqual(['warn shared compute-unit budget: PostgreSQL did not answer (connection terminated); spending a local share, 1/10 of the plan (60 CU a minute), until it does']);
    const calls = mem.asks.length;
    await vi.advanceTimersByTimeAsync(4_000);
    expect(shared.take(10, 0)).toBe('wait'); // not asked again before 5 s
    expect(mem.asks).toHaveLength(calls);
    mem.answerWith(undefined);
    await vi.advanceTimersByTimeAsync(1_000);
    shared.take(1, 0);
    await vi.advanceTimersByTimeAsync(0);
    expect(shared.local).toBe(false);
    expect(mem.asks.at(-1)!.owed).toBe(30);
    expect(lines.at(-1)).toBe('info shared compute-unit budget: PostgreSQL answers again; units are reserved in the shared ledger again');
  });

  it('a ledger that never answers holds a request at most the cap (2 s); its late grant goes back', async () => {
    const mem = memoryLedger();
    const { limiter, shared } = build(mem.ledger, logged().log);
    let answer: () => void = () => undefined;
    mem.answerWith((a) => new Promise((resolve) => (answer = () => resolve(mem.grant(a)))));
    let through = false;
    void limiter.acquire(10).then(() => (through = true));
    await vi.advanceTimersByTimeAsync(1_900);
    expect(through).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(through).toBe(true);
    expect(shared.local).toBe(true);
    answer();
    await vi.advanceTimersByTimeAsync(0);
    expect(mem.total()).toBe(0); // granted, then given back
    expect(mem.returned).toEqual([{ second: expect.any(Number), units: 25 }]);
  });

  it('without a shared budget the limiter is the one machine\'s alone', () => {
    expect(new Limiter({ limits: LIMITS, clock: clockAt(() => Date.now()) }).shared).toBe(false);
  });
});
