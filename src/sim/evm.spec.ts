import { afterEach, describe, expect, it } from 'vitest';
import { erc20TransfersPage, evmTransactionsPage, internalTransactionsPage } from '../api/schemas.js';
import { SimClock } from './clock.js';
import { blockAt } from './evm.js';
import { applyChange, worldChange } from './scenario.js';
import { startSim, type SimServer } from './server.js';
import { World } from './world.js';

// The per-address EVM lists over loopback HTTP, on a frozen clock, set up with scenario keys.

const NOW_MS = Date.parse('2026-03-02T12:00:00Z');
const A = '0xAbC0000000000000000000000000000000000001';
const B = '0xdef0000000000000000000000000000000000002';
const C = '0x3330000000000000000000000000000000000003';
const USDC = { address: '0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E', name: 'USD Coin', symbol: 'USDC', decimals: 6 };
const BASE = `/v1/chains/43114/addresses/${A}/transactions`;

let sim: SimServer | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function simWith(change: Record<string, unknown>): Promise<SimServer> {
  const world = new World(new SimClock(NOW_MS, 0));
  applyChange(world, worldChange.parse(change), NOW_MS);
  sim = await startSim({ world });
  return sim;
}

async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${sim!.url}${path}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const world = {
  evmTransactions: [
    { txHash: '0x01', from: B, to: A, value: '1.5', at: '-3h' },
    { txHash: '0x02', from: A, to: USDC.address, at: '-2h', erc20: [{ token: USDC, from: A, to: B, value: '1250.5' }, { token: USDC, from: B, to: C, value: 1 }] },
    { txHash: '0x03', from: C, to: B, at: '-1h', internal: [{ from: B, to: A, value: '0.25' }, { from: B, to: C, value: 9 }], status: 'failed' },
    { txHash: '0x04', from: B, to: C, value: 5, at: '-30m' },
    { chainId: 43113, txHash: '0x05', from: A, to: B, value: 1, at: '-10m' },
  ],
};

describe('simulator: EVM address activity', () => {
  it('lists only what the address is an end of, newest first, each list in its SDK shape', async () => {
    await simWith(world);
    const txs = evmTransactionsPage.parse((await get(BASE)).body);
    expect(txs.transactions.map((t) => t.nativeTransaction.txHash)).toEqual(['0x03', '0x02', '0x01']);
    const [internalOnly, withTransfer] = txs.transactions;
    expect(internalOnly?.nativeTransaction).toMatchObject({ txStatus: '0', blockNumber: String(blockAt(NOW_MS / 1000 - 3600)), value: '0' });
    expect((await get(BASE)).body['transactions']).toEqual(expect.arrayContaining([expect.objectContaining({ erc20Transfers: [expect.objectContaining({ value: '1250500000', logIndex: 0 })] })]));
    expect(withTransfer?.nativeTransaction.from.address).toBe(A);

    const erc20 = erc20TransfersPage.parse((await get(`${BASE}:listErc20`)).body);
    expect(erc20.transactions.map((t) => [t.txHash, t.value, t.erc20Token.symbol, t.erc20Token.decimals])).toEqual([['0x02', '1250500000', 'USDC', 6]]);
    const internals = internalTransactionsPage.parse((await get(`${BASE}:listInternals`)).body);
    expect(internals.transactions.map((t) => [t.txHash, t.value, t.internalTxType, t.isReverted])).toEqual([['0x03', '250000000000000000', 'CALL', false]]);
    // Fuji's by its C-chain blockchain id.
    const fuji = evmTransactionsPage.parse((await get(`/v1/chains/yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp/addresses/${A.toLowerCase()}/transactions`)).body);
    expect(fuji.transactions.map((t) => t.nativeTransaction.txHash)).toEqual(['0x05']);
  });

  it('startBlock is inclusive, endBlock exclusive; sortOrder=asc on /transactions only; pages of pageSize', async () => {
    await simWith(world);
    const blockOf = (agoS: number) => blockAt(NOW_MS / 1000 - agoS);
    const hashes = async (path: string) => ((await get(path)).body['transactions'] as Array<{ nativeTransaction?: { txHash: string }; txHash?: string }>).map((t) => t.nativeTransaction?.txHash ?? t.txHash);
    expect(await hashes(`${BASE}?startBlock=${blockOf(7200)}`)).toEqual(['0x03', '0x02']);
    expect(await hashes(`${BASE}?startBlock=${blockOf(7200)}&endBlock=${blockOf(3600)}`)).toEqual(['0x02']);
    expect(await hashes(`${BASE}?sortOrder=asc`)).toEqual(['0x01', '0x02', '0x03']);
    expect(await hashes(`${BASE}:listErc20?sortOrder=asc&startBlock=${blockOf(7200)}`)).toEqual(['0x02']);
    const first = await get(`${BASE}?pageSize=2`);
    expect((first.body['transactions'] as unknown[]).length).toBe(2);
    const second = await get(`${BASE}?pageSize=2&pageToken=${String(first.body['nextPageToken'])}`);
    expect(second.body).toEqual({ transactions: [expect.objectContaining({ nativeTransaction: expect.objectContaining({ txHash: '0x01' }) })] });
    expect((await get(`${BASE}?startBlock=soon&sortOrder=up`)).body['message']).toEqual([
      'startBlock must be a number conforming to the specified constraints',
      'sortOrder must be one of the following values: asc, desc',
    ]);
    expect((await get(`${BASE}:listInternals?pageSize=101`)).status).toBe(400);
  });

  it('scenario keys: amounts in token units must fit the token’s decimals', () => {
    const bad = worldChange.safeParse({ evmTransactions: [{ from: A, to: B, erc20: [{ token: USDC, from: A, to: B, value: '0.0000001' }] }] });
    expect(bad.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['evmTransactions.0.erc20.0.value', '"0.0000001" has more than 6 decimals']]);
  });
});
