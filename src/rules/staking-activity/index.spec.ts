import { describe, expect, it } from 'vitest';
import { stakingTransaction, type StakingTransaction } from './read.js';
import { stakingItem, type StakingInput } from '../../sim/pchain.js';
import { stakingActivity, toSeen, type Observation } from './index.js';
import { spec as specSchema, type Spec } from './schema.js';

const A = 'avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw';
const B = 'avax1qr4kz9ctkjm2pmsjk9rumadq8yzng9y0u2lgfh';
const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const T0 = 1_750_000_000;
const now = new Date((T0 + 3600) * 1000);

/** A listed transaction as the service renders it, read with avawatch's schema. */
function tx(txHash: string, o: Partial<StakingInput> = {}): StakingTransaction {
  const input: StakingInput = { txHash, txType: 'AddPermissionlessDelegatorTx', addresses: [A], nodeId: NODE, amount: '25000000000', startTimestamp: T0, endTimestamp: T0 + 30 * 86_400, blockTimestamp: T0, ...o };
  return stakingTransaction.parse(stakingItem('mainnet', input));
}
const spec = (addresses = [A]): Spec => specSchema.parse({ network: 'mainnet', addresses });
/** What observe() hands over when every batch of `s` was read and listed these. */
const obs = (s: Spec, listed: StakingTransaction[], failed: Record<string, string> = {}): Observation => ({
  transactions: listed.map((t) => toSeen(t, s.addresses, s)),
  failed,
  read: s.addresses.filter((a) => !failed[a]),
});

describe('staking-activity', () => {
  it('takes bare and P-/X- prefixed addresses, keeps them bare, and refuses one of another network or listed twice', () => {
    expect(specSchema.parse({ network: 'mainnet', addresses: [`P-${A}`, B] }).addresses).toEqual([A, B]);
    expect(specSchema.parse({ network: 'fuji', addresses: ['P-fuji1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsaz7uyp'] }).addresses).toEqual(['fuji1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsaz7uyp']);
    const wrong = specSchema.safeParse({ network: 'fuji', addresses: [A] });
    expect(wrong.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['addresses.0', 'a fuji address starts with fuji1 (or P-fuji1): this one is for another network']]);
    const twice = specSchema.safeParse({ network: 'mainnet', addresses: [A, `P-${A}`] });
    expect(twice.error?.issues.map((i) => i.path.join('.'))).toEqual(['addresses.1']);
  });

  it('the first read is a silent baseline; a new transaction is one event, with its type, node, amount, period and address', () => {
    const s = spec();
    const base = stakingActivity.evaluate(new Map(), obs(s, [tx('t1')]), now, s);
    expect(base.alerts).toEqual([]);
    const listed = [tx('t2', { amount: '100500000000', blockTimestamp: T0 + 60, startTimestamp: T0 + 60 }), tx('t1')];
    const next = stakingActivity.evaluate(base.states, obs(s, listed), now, s);
    expect(next.alerts).toHaveLength(1);
    expect(next.alerts[0]).toMatchObject({
      status: 'event',
      subject: 't2',
      summary: `New staking transaction of ${A}: AddPermissionlessDelegatorTx staking 100.5 AVAX on ${NODE}, 2025-06-15T15:07:40Z to 2025-07-15T15:06:40Z`,
      labels: { network: 'mainnet', address: A, tx_type: 'AddPermissionlessDelegatorTx', node: NODE },
      details: { Transaction: 't2', 'Amount staked': '100.5 AVAX', 'Reward transaction': 'none yet' },
    });
    // Read again: known now.
    expect(stakingActivity.evaluate(next.states, obs(s, listed), now, s).alerts).toEqual([]);
  });

  it('a failed read sends nothing and keeps what held; the address is named failing', () => {
    const s = spec();
    const base = stakingActivity.evaluate(new Map(), obs(s, [tx('t1')]), now, s);
    const failing = stakingActivity.evaluate(base.states, obs(s, [], { [A]: 'data API: HTTP 503' }), now, s);
    expect(failing.alerts).toEqual([]);
    expect(failing.failed).toEqual({ [A]: 'data API: HTTP 503' });
    expect(failing.states).toEqual(base.states);
    // Recovered: the transaction that came meanwhile is announced once.
    const back = stakingActivity.evaluate(failing.states, obs(s, [tx('t2', { blockTimestamp: T0 + 5 }), tx('t1')]), now, s);
    expect(back.alerts.map((a) => a.subject)).toEqual(['t2']);
  });

  it('an address added to the rule starts with its own silent baseline, while the others still announce', () => {
    const base = stakingActivity.evaluate(new Map(), obs(spec(), [tx('t1')]), now, spec());
    const wider = spec([A, B]);
    const listed = [tx('b-old', { addresses: [B] }), tx('t2', { blockTimestamp: T0 + 10 }), tx('t1')];
    const next = stakingActivity.evaluate(base.states, obs(wider, listed), now, wider);
    expect(next.alerts.map((a) => a.subject)).toEqual(['t2']);
    expect(next.states.get('_baseline')).toMatchObject({ entities: [A, B].sort() });
    const later = stakingActivity.evaluate(next.states, obs(wider, [tx('b-new', { addresses: [B], blockTimestamp: T0 + 20 }), ...listed]), now, wider);
    expect(later.alerts.map((a) => a.labels['address'])).toEqual([B]);
  });

  it('never announces a transaction older than the newest seen for its address (a list that also showed ended ones)', () => {
    const s = spec();
    const base = stakingActivity.evaluate(new Map(), obs(s, [tx('t1', { blockTimestamp: T0 + 100 })]), now, s);
    expect(stakingActivity.evaluate(base.states, obs(s, [tx('t1', { blockTimestamp: T0 + 100 }), tx('old', { blockTimestamp: T0 })]), now, s).alerts).toEqual([]);
  });

  it('gauges: staking periods running per address and the AVAX in them; an ended one leaves them', () => {
    const s = spec([A, B]);
    const listed = [tx('t1'), tx('t2', { amount: '2000000000000', endTimestamp: T0 + 7200, addresses: [A, B] })];
    const base = stakingActivity.evaluate(new Map(), obs(s, listed), now, s);
    const value = (states: typeof base.states, metric: string, address: string, at = now) =>
      stakingActivity.samples(s, states, at).find((g) => g.metric === metric && g.labels['address'] === address)?.value;
    expect(value(base.states, 'avawatch_staking_active_transactions', A)).toBe(2);
    expect(value(base.states, 'avawatch_staking_active_avax', A)).toBe(2025);
    expect(value(base.states, 'avawatch_staking_active_avax', B)).toBe(2000);
    const later = new Date((T0 + 7300) * 1000);
    const after = stakingActivity.evaluate(base.states, obs(s, [tx('t1')]), later, s);
    expect(value(after.states, 'avawatch_staking_active_transactions', B, later)).toBe(0);
    expect(value(after.states, 'avawatch_staking_active_avax', A, later)).toBe(25);
  });

  it('costs 100 CU a call, all addresses in as few calls as fit an 8 KB URL', () => {
    // 43 characters and a comma (%2C) each: 152 fit in a call.
    const bech32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
    const address = (i: number) => `avax1${[...i.toString(32).padStart(4, '0')].map((d) => bech32[parseInt(d, 32)]).join('')}${'q'.repeat(34)}`;
    const s = specSchema.parse({ network: 'mainnet', addresses: Array.from({ length: 400 }, (_, i) => address(i)) });
    const cost = stakingActivity.cost(s);
    expect(cost.calls.every((c) => c.cu === 100 && c.api === 'data')).toBe(true);
    expect(cost.calls.length).toBe(3);
    expect(cost.calls.every((c) => c.key.length < 8_000)).toBe(true);
    expect(cost.more).toMatch(/100 CU a call: a poll every 5m or longer is advised/);
    expect(stakingActivity.describe(s)).toBe('mainnet, 400 address(es), 3 call(s) of 100 CU a poll');
  });
});

describe('staking-activity reads what changed', () => {
  type Request = { query: { addresses: string }; enough?: (page: readonly StakingTransaction[]) => boolean };
  /** The primary network's reader, as the kind's read.ts asks it: pages newest first (100 a page), honours `enough`, counts pages read. */
  function fakeData(items: StakingTransaction[]) {
    let pages = 0;
    const primary = {
      options: { maxPages: 10 },
      list: async (q: Request) => {
        const addresses = q.query.addresses.split(',');
        const all = items.filter((t) => t.rewardAddresses?.some((a) => addresses.includes(a))).sort((a, b) => b.blockTimestamp - a.blockTimestamp);
        const out: StakingTransaction[] = [];
        for (let p = 0; p * 100 < all.length || p === 0; p++) {
          const page = all.slice(p * 100, p * 100 + 100);
          pages++;
          out.push(...page);
          if (q.enough?.(page)) break;
        }
        return { items: out, complete: true };
      },
    };
    return { data: { primary }, pages: () => pages };
  }
  const many = (n: number, from: number) => Array.from({ length: n }, (_, i) => tx(`t${from + i}`, { blockTimestamp: T0 + from + i }));
  const s = spec();

  async function poll(items: StakingTransaction[], previous: ReadonlyMap<string, unknown>) {
    const { data, pages } = fakeData(items);
    const observation = await stakingActivity.observe(s, { data, previous, now, signal: new AbortController().signal } as never);
    return { result: stakingActivity.evaluate(previous as never, observation, now, s), pages: pages() };
  }

  it('every page at the baseline, then one page a poll; new ones are read until a page reaches a known one', async () => {
    const old = many(250, 0);
    const base = await poll(old, new Map());
    expect(base.pages).toBe(3);
    expect(base.result.alerts).toEqual([]);
    const steady = await poll(old, base.result.states);
    expect(steady.pages).toBe(1);
    expect(steady.result.alerts).toEqual([]);
    const busy = await poll([...old, ...many(150, 1_000)], base.result.states);
    expect(busy.pages).toBe(2);
    expect(busy.result.alerts).toHaveLength(150);
  });
});
