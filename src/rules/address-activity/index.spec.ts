import { describe, expect, it } from 'vitest';
import type { BlockRangeQuery } from '../../api/data/evm.js';
import type { DataApi } from '../../api/data/index.js';
import { erc20Transfer, evmTransaction, internalTransaction } from '../../api/schemas.js';
import { EvmLedger, type EvmTxInput, type Listed } from '../../sim/evm.js';
import type { MetricsApi } from '../../api/metrics-api.js';
import type { Evaluation } from '../types.js';
import { addressActivity } from './index.js';
import { spec as specSchema, type State } from './schema.js';

const A = '0x5a3c0f1b2e4d6a8c9b7e1f2d3c4b5a6978e9d0c1';
const B = '0xdef0000000000000000000000000000000000002';
const USDC = { address: '0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E', name: 'USD Coin', symbol: 'USDC', decimals: 6 };
const NOW = new Date('2026-01-15T12:00:00Z');
const T = 1_768_478_400;
const CHAIN = '43114';
const spec = (extra: Record<string, unknown> = {}) => specSchema.parse({ chainId: 43114, addresses: [A.toUpperCase().replace('0X', '0x')], ...extra });

/** The service over a ledger: block range, order, and `pageSize` items a page, `pages` pages a read. */
function service(ledger: EvmLedger, o: { pageSize?: number; failing?: Set<string> } = {}) {
  const pageSize = o.pageSize ?? 100;
  const serve = <T>(list: string, listed: Listed[], q: BlockRangeQuery, parse: (x: unknown) => T) => {
    if (o.failing?.has(list)) return Promise.reject(new Error('data API GET …: HTTP 503'));
    const inRange = listed.filter(({ block }) => (!q.startBlock || block >= q.startBlock) && (q.endBlock === undefined || block < q.endBlock));
    const ordered = q.sortOrder === 'asc' ? inRange : [...inRange].reverse();
    const take = pageSize * q.pages;
    calls.push(`${list} ${q.startBlock ?? '-'}..${q.endBlock ?? '-'}`);
    return Promise.resolve({ items: ordered.slice(0, take).map(({ item }) => parse(item)), complete: ordered.length <= take });
  };
  const calls: string[] = [];
  const data = {
    addressTransactions: (c: string, a: string, q: BlockRangeQuery) => serve('native', ledger.transactions(c, a), q, (x) => evmTransaction.parse(x)),
    addressErc20Transfers: (c: string, a: string, q: BlockRangeQuery) => serve('erc20', ledger.erc20Transfers(c, a), q, (x) => erc20Transfer.parse(x)),
    addressInternalTransactions: (c: string, a: string, q: BlockRangeQuery) => serve('internal', ledger.internalTransactions(c, a), q, (x) => internalTransaction.parse(x)),
  };
  return { data: { evm: data } as unknown as DataApi, calls };
}

async function poll(previous: ReadonlyMap<string, State>, data: DataApi, s = spec()): Promise<Evaluation<State>> {
  const ctx = { data, metrics: undefined as unknown as MetricsApi, signal: new AbortController().signal, now: NOW, previous };
  return addressActivity.evaluate(previous, await addressActivity.observe(s, ctx), NOW, s);
}

let hashes = 0;
function tx(block: number, o: Partial<EvmTxInput> = {}): EvmTxInput {
  return { chainId: CHAIN, txHash: `0x${String(++hashes).padStart(64, '0')}`, block, timestamp: T - 1000 + block, from: B, to: A, value: '0', failed: false, erc20: [], internal: [], ...o };
}
const usdc = (from: string, to: string, units: string) => ({ token: USDC, from, to, value: units });

describe('address-activity', () => {
  it('a baseline sends nothing; a new transfer sends one event; the boundary block read again is not reported twice', async () => {
    const ledger = new EvmLedger();
    ledger.add(tx(100, { value: '5000000000000000000' }));
    ledger.add(tx(100, { from: A, to: USDC.address, erc20: [usdc(A, B, '250000000')] }));
    const { data, calls } = service(ledger);
    const base = await poll(new Map(), data);
    expect(base.alerts).toEqual([]);
    expect(base.states.get(`${CHAIN}/${A}/erc20`)).toMatchObject({ from: 100, lastBlock: 100 });

    ledger.add(tx(105, { from: B, to: USDC.address, erc20: [usdc(B, A, '1250500000')] }));
    calls.length = 0;
    const next = await poll(base.states, data);
    // startBlock is the last block seen (block 100 comes back, and only block 105 is new); the internal list had none.
    expect(calls).toEqual(['native 100..-', 'erc20 100..-', 'internal 0..-']);
    expect(next.alerts.map((a) => a.summary)).toEqual([`${A} received 1250.5 USDC from ${B}`]);
    expect(next.alerts[0]).toMatchObject({
      status: 'event',
      subject: expect.stringMatching(/^0x0+3$/),
      labels: { chain_id: '43114', address: A, direction: 'in', list: 'erc20', token: USDC.address.toLowerCase() },
      details: expect.objectContaining({ Amount: '1250.5 USDC', Token: `USD Coin (USDC) ${USDC.address}`, Counterparty: B, Block: '105', Type: 'ERC-20 transfer (log 0)' }),
    });
    // B's own transaction to the token contract is listed under A's native list too, but A is neither end: not A's native activity.
    expect((await poll(next.states, data)).alerts).toEqual([]);
  });

  it('native coin: 18 decimals, AVAX on the C-chain, out and self; a failed transaction is named as such', async () => {
    const ledger = new EvmLedger();
    const { data } = service(ledger);
    const base = await poll(new Map(), data);
    ledger.add(tx(200, { from: A, to: B, value: '1500000000000000000' }));
    ledger.add(tx(201, { from: A, to: A, value: '1' }));
    ledger.add(tx(202, { from: A, to: B, value: '2000000000000000000', failed: true }));
    expect((await poll(base.states, data)).alerts.map((a) => [a.summary, a.labels['direction']])).toEqual([
      [`${A} sent 1.5 AVAX to ${B}`, 'out'],
      [`${A} sent 0.000000000000000001 AVAX to itself`, 'self'],
      [`${A} sent 2 AVAX to ${B} (failed transaction)`, 'out'],
    ]);
  });

  it('a failed list keeps its cursor and sends nothing, and blinds neither the other lists nor the other addresses', async () => {
    const ledger = new EvmLedger();
    const failing = new Set<string>();
    const { data } = service(ledger, { failing });
    const s = spec({ addresses: [A, B] });
    const base = await poll(new Map(), data, s);
    ledger.add(tx(300, { from: B, to: A, value: '1000000000000000000', erc20: [usdc(B, A, '1000000')] }));
    failing.add('erc20');
    const failed = await poll(base.states, data, s);
    expect(failed.failed).toEqual({ [`${CHAIN}/${A}/erc20`]: 'data API GET …: HTTP 503', [`${CHAIN}/${B}/erc20`]: 'data API GET …: HTTP 503' });
    expect(failed.states.get(`${CHAIN}/${A}/erc20`)).toEqual(base.states.get(`${CHAIN}/${A}/erc20`));
    // The native list still reads: A received 1 AVAX, B sent it.
    expect(failed.alerts.map((a) => a.summary)).toEqual([`${A} received 1 AVAX from ${B}`, `${B} sent 1 AVAX to ${A}`]);
    failing.clear();
    const recovered = await poll(failed.states, data, s);
    expect(recovered.alerts.map((a) => a.summary)).toEqual([`${A} received 1 USDC from ${B}`, `${B} sent 1 USDC to ${A}`]);
    expect((await poll(recovered.states, data, s)).alerts).toEqual([]);
  });

  it('oldest first (native): a read cut at maxPages moves the cursor only as far as it read; the rest comes next poll, each once', async () => {
    const ledger = new EvmLedger();
    const { data } = service(ledger, { pageSize: 2 });
    const s = spec({ lists: ['native'], maxPages: 1 });
    let st = (await poll(new Map(), data, s)).states;
    for (let b = 401; b <= 405; b++) ledger.add(tx(b, { value: `${b}000000000000000000` }));
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await poll(st, data, s);
      seen.push(...r.alerts.map((a) => a.details['Block'] as string));
      st = r.states;
    }
    expect(seen).toEqual(['401', '402', '403', '404', '405']);
  });

  it('newest first (ERC-20): a cut read leaves a gap that is read before anything newer, each transfer once', async () => {
    const ledger = new EvmLedger();
    const { data } = service(ledger, { pageSize: 2 });
    const s = spec({ lists: ['erc20'], maxPages: 1 });
    ledger.add(tx(500, { erc20: [usdc(B, A, '1')] }));
    let st = (await poll(new Map(), data, s)).states;
    for (let b = 501; b <= 505; b++) ledger.add(tx(b, { erc20: [usdc(B, A, String(b))] }));
    const first = await poll(st, data, s);
    expect(first.alerts.map((a) => a.details['Block'])).toEqual(['504', '505']);
    expect(first.states.get(`${CHAIN}/${A}/erc20`)).toMatchObject({ from: 505, gap: { from: 500, to: 505 }, behind: true });
    expect(addressActivity.samples(s, first.states, NOW)).toContainEqual({ metric: 'avawatch_evm_address_lists_behind', labels: { chain_id: '43114', address: A }, value: 1 });
    ledger.add(tx(506, { erc20: [usdc(B, A, '506')] }));
    st = first.states;
    const seen: string[] = [];
    // Two a page, one of them the boundary already reported: one older transfer a poll, then the newer one.
    for (let i = 0; i < 5; i++) {
      const r = await poll(st, data, s);
      seen.push(...r.alerts.map((a) => a.details['Block'] as string));
      st = r.states;
    }
    expect(seen).toEqual(['503', '502', '501', '506']);
    expect(st.get(`${CHAIN}/${A}/erc20`)).toMatchObject({ from: 506, fromKeys: [expect.stringMatching(/:0$/)] });
    expect(st.get(`${CHAIN}/${A}/erc20`)?.gap).toBeUndefined();
  });

  it('a block holding more than maxPages pages: one warning says the rest of it is not shown, then it moves on', async () => {
    const ledger = new EvmLedger();
    const { data } = service(ledger, { pageSize: 2 });
    const s = spec({ lists: ['native'], maxPages: 1 });
    let st = (await poll(new Map(), data, s)).states;
    for (let i = 0; i < 5; i++) ledger.add(tx(600));
    ledger.add(tx(601));
    const r1 = await poll(st, data, s);
    expect(r1.alerts).toHaveLength(2);
    st = r1.states;
    const r2 = await poll(st, data, s);
    expect(r2.alerts.map((a) => a.summary)).toEqual([`${A}: block 600 holds more native transactions than 1 page(s) show; the rest of that block is not shown (raise maxPages)`]);
    const r3 = await poll(r2.states, data, s);
    expect(r3.alerts.map((a) => a.details['Block'])).toEqual(['601']);
  });

  it('filters: a minimum per token in token units (exact, in each token’s decimals), a token list, directions', async () => {
    const ledger = new EvmLedger();
    const { data } = service(ledger);
    const other = { address: '0x9702230A8Ea53601f5cD2dc00fDBc13d4dF4A8c7', name: 'TetherToken', symbol: 'USDt', decimals: 6 };
    const s = spec({ minValue: { native: '0.1', [USDC.address]: '1000.000001' }, tokens: [USDC.address], directions: ['in'] });
    const base = await poll(new Map(), data, s);
    ledger.add(tx(700, { value: '99999999999999999' })); // 0.099999999999999999 AVAX: under 0.1
    ledger.add(tx(701, { value: '100000000000000000' })); // 0.1 AVAX
    ledger.add(tx(702, { erc20: [usdc(B, A, '1000000000'), usdc(B, A, '1000000001'), { token: other, from: B, to: A, value: '5000000000' }] }));
    ledger.add(tx(703, { from: A, to: B, value: '9000000000000000000' })); // out: not watched
    expect((await poll(base.states, data, s)).alerts.map((a) => a.details['Amount'])).toEqual(['0.1 AVAX', '1000.000001 USDC']);
  });

  it('internal transactions: identical calls of one transaction are told apart; a reverted call says so', async () => {
    const ledger = new EvmLedger();
    const { data } = service(ledger);
    const s = spec({ lists: ['internal'] });
    const base = await poll(new Map(), data, s);
    const call = { from: B, to: A, value: '1000000000000000000', type: 'CALL' as const, reverted: false };
    ledger.add(tx(800, { internal: [call, call, { ...call, reverted: true }] }));
    const r = await poll(base.states, data, s);
    expect(r.alerts.map((a) => a.summary)).toEqual([
      `${A} received 1 AVAX from ${B} (internal transaction)`,
      `${A} received 1 AVAX from ${B} (internal transaction)`,
      `${A} received 1 AVAX from ${B} (internal transaction, reverted)`,
    ]);
    expect((await poll(r.states, data, s)).alerts).toEqual([]);
    // A state written when internal keys named their block (`0x…@800:CALL:…`) reports nothing again.
    const key = `${CHAIN}/${A}/internal`;
    const stored = r.states.get(key) as State;
    const legacy = { ...stored, fromKeys: stored.fromKeys.map((k) => k.replace(':', '@800:')) };
    delete legacy.recent;
    expect((await poll(new Map([...r.states, [key, legacy]]), data, s)).alerts).toEqual([]);
  });

  it('a transaction the service lists at another block later (a reorg, a re-index) is never reported twice, in any list', async () => {
    const call = { from: B, to: A, value: '1000000000000000000', type: 'CALL' as const, reverted: false };
    const moved = tx(1100, { value: '3000000000000000000', erc20: [usdc(B, A, '7000000')], internal: [call] });
    const other = tx(1101, { value: '1000000000000000000' });
    const before = new EvmLedger();
    const { data } = service(before);
    const base = await poll(new Map(), data);
    before.add(moved);
    const first = await poll(base.states, data);
    expect(first.alerts.map((a) => [a.summary, a.details['Block']])).toEqual([
      [`${A} received 3 AVAX from ${B}`, '1100'],
      [`${A} received 7 USDC from ${B}`, '1100'],
      [`${A} received 1 AVAX from ${B} (internal transaction)`, '1100'],
    ]);
    before.add(other);
    const second = await poll(first.states, data);
    expect(second.alerts.map((a) => a.summary)).toEqual([`${A} received 1 AVAX from ${B}`]);
    // The service now lists the first transaction two blocks later: nothing is new.
    const after = new EvmLedger();
    after.add(other);
    after.add({ ...moved, block: 1102, timestamp: moved.timestamp + 4 });
    const again = await poll(second.states, service(after).data);
    expect(again.alerts).toEqual([]);
    // A really new one after it still is.
    after.add(tx(1103, { value: '2000000000000000000' }));
    expect((await poll(again.states, service(after).data)).alerts.map((a) => a.summary)).toEqual([`${A} received 2 AVAX from ${B}`]);
  });

  it('token name and symbol stay data: hostile text kept as sent (each channel escapes it), a long one clipped', async () => {
    const ledger = new EvmLedger();
    const { data } = service(ledger);
    const base = await poll(new Map(), data, spec({ lists: ['erc20'] }));
    const hostile = { address: '0x1111111111111111111111111111111111111111', name: '<img src=x onerror=alert(1)>', symbol: '<!channel>\r\nBcc: x@example.com', decimals: 2 };
    ledger.add(tx(900, { erc20: [{ token: hostile, from: B, to: A, value: '150' }, { token: { ...hostile, symbol: 'X'.repeat(100), decimals: 1000 }, from: B, to: A, value: '7' }] }));
    const r = await poll(base.states, data, spec({ lists: ['erc20'] }));
    expect(r.alerts.map((a) => a.summary)).toEqual([`${A} received 1.5 <!channel>\r\nBcc: x@example.com from ${B}`, `${A} received 7 base units of ${'X'.repeat(31)}… from ${B}`]);
    expect(r.alerts[0]?.details['Token']).toBe('<img src=x onerror=alert(1)> (<!channel>\r\nBcc: x@example.com) 0x1111111111111111111111111111111111111111');
  });

  it('gauges: newest block and last activity time per address, over its lists', async () => {
    const ledger = new EvmLedger();
    ledger.add(tx(1000, { value: '1' }));
    ledger.add(tx(1003, { erc20: [usdc(B, A, '1')] }));
    const { data } = service(ledger);
    const s = spec();
    const base = await poll(new Map(), data, s);
    expect(addressActivity.samples(s, base.states, NOW)).toEqual([
      { metric: 'avawatch_evm_address_last_activity_timestamp_seconds', labels: { chain_id: '43114', address: A }, value: T + 3 },
      { metric: 'avawatch_evm_address_newest_block', labels: { chain_id: '43114', address: A }, value: 1003 },
      { metric: 'avawatch_evm_address_lists_behind', labels: { chain_id: '43114', address: A }, value: 0 },
    ]);
  });

  it('cost: one call per list and address each poll, 20 CU each', () => {
    const s = spec({ addresses: [A, B], lists: ['native', 'erc20'] });
    const { calls, more } = addressActivity.cost(s);
    expect(calls.map((c) => [c.key, c.cu])).toEqual([
      [`GET /v1/chains/43114/addresses/${A}/transactions?sortOrder=asc`, 20],
      [`GET /v1/chains/43114/addresses/${A}/transactions:listErc20`, 20],
      [`GET /v1/chains/43114/addresses/${B}/transactions?sortOrder=asc`, 20],
      [`GET /v1/chains/43114/addresses/${B}/transactions:listErc20`, 20],
    ]);
    expect(more).toBe('up to 3 pages per list while more new activity waits');
    expect(addressActivity.describe(spec({ directions: ['in'], minValue: { native: 100 } }))).toBe('chain 43114, 1 address(es), native + erc20 + internal, in, minimum 100 AVAX');
  });

  it('config: addresses lowercased; the coin must be named off the C-chain; amounts must be exact text', () => {
    expect(spec().addresses).toEqual([A]);
    expect(specSchema.safeParse({ chainId: 1234, addresses: [A] }).error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['nativeSymbol', 'set nativeSymbol: the coin of chain 1234 is not known (AVAX is assumed only on the C-chain)'],
    ]);
    expect(specSchema.parse({ chainId: 1234, addresses: [A], nativeSymbol: 'DFK' }).nativeSymbol).toBe('DFK');
    expect(specSchema.safeParse({ chainId: 43114, addresses: [A], minValue: { native: 1e21 } }).error?.issues[0]?.message).toMatch(/is not an amount in token units/);
    expect(specSchema.safeParse({ chainId: 43114, addresses: [A, A.toUpperCase().replace('0X', '0x')] }).error?.issues[0]?.message).toBe('an address is listed twice');
  });
});
