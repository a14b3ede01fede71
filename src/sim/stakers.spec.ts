import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpNodeApi } from '../api/node-api.js';
import { systemClock } from '../base/clock.js';
import { isFailed } from '../rules/lookup.js';
import { readStakers, type Staker } from '../rules/pchain.js';
import { SimClock } from './clock.js';
import { applyChange, scenarioSchema, worldChange } from './scenario.js';
import { startSim, type SimServer } from './server.js';
import { World } from './world.js';

// The simulated P-Chain API (/ext/bc/P), as AvalancheGo v1.15 answers, read by avawatch's own
// reader (src/rules/pchain.ts): auto-renewed validators crossing their boundaries.

const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const B = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const START = Date.parse('2026-11-01T00:00:00Z');
const DAY = 86_400;
const AVAX = 1_000_000_000n;
let sim: SimServer | undefined;

afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function simWith(world: Record<string, unknown>): Promise<SimServer> {
  sim = await startSim({ world: new World(new SimClock(START, 0)), scenario: scenarioSchema.parse({ start: new Date(START).toISOString(), speed: 0, world }) });
  return sim;
}

const api = new HttpNodeApi({ timeoutMs: 2_000, clock: systemClock });
const signal = () => new AbortController().signal;

async function stakers(s: SimServer, nodeIds: string[], base = `${s.url}/p-chain/mainnet`, network: 'mainnet' | 'fuji' = 'mainnet'): Promise<Map<string, Staker>> {
  const read = await readStakers(network, nodeIds, { pChainApi: base }, api, signal());
  if (read === undefined || isFailed(read)) throw new Error(`no read: ${JSON.stringify(read)}`);
  return new Map([...read.stakers].map(([k, v]) => [k, v as Staker]));
}

async function raw(s: SimServer, body: unknown, path = '/p-chain/mainnet/ext/bc/P'): Promise<{ status: number; text: string }> {
  const res = await request(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.statusCode, text: await res.body.text() };
}

const validations = [
  { nodeId: A, txHash: 'tx-auto', start: '2026-10-25T00:00:00Z', end: '+7d', status: 'active', uptimePerformance: 99, stake: 2000, autoRenew: { nextPeriod: '14d', compoundShare: '50%', reward: 40, fees: 2 } },
  { nodeId: B, txHash: 'tx-plain', start: '-30d', end: '+300d', status: 'active' },
];

describe('the simulated P-Chain API', () => {
  it('answers as service.go writes: numbers as strings, the auto-renew fields inline and only for one that renews; delegators only for one NodeID', async () => {
    const s = await simWith({ validations });
    const both = JSON.parse((await raw(s, { jsonrpc: '2.0', id: 1, method: 'platform.getCurrentValidators', params: { nodeIDs: [A, B] } })).text) as { result: { validators: Array<Record<string, unknown>> } };
    const [auto, plain] = both.result.validators;
    expect(auto).toMatchObject({ txID: 'tx-auto', nodeID: A, startTime: String(Date.parse('2026-10-25T00:00:00Z') / 1000), weight: '2000000000000', nextPeriod: String(14 * DAY), autoCompoundRewardShares: '500000', validatorAuthority: { locktime: '0', threshold: '1', addresses: ['P-avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsn50c44'] }, uptime: '99.0000', potentialReward: '40000000000', accruedDelegateeReward: '2000000000' });
    expect(auto?.['delegators']).toBeUndefined();
    expect(Object.keys(plain ?? {}).filter((k) => ['nextPeriod', 'autoCompoundRewardShares', 'validatorAuthority'].includes(k))).toEqual([]);
    const one = JSON.parse((await raw(s, { jsonrpc: '2.0', id: 2, method: 'platform.getCurrentValidators', params: { nodeIDs: [B] } })).text) as { result: { validators: Array<Record<string, unknown>> } };
    expect(one.result.validators[0]?.['delegators']).toEqual([]);
    expect(JSON.parse((await raw(s, { jsonrpc: '2.0', id: 3, method: 'platform.getStakingAssetID', params: {} })).text)).toEqual({ jsonrpc: '2.0', result: { assetID: 'FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z' }, id: 3 });
    // avawatch's reader takes it whole.
    const read = await stakers(s, [A, B]);
    expect(read.get(A)?.autoRenew).toEqual({ nextPeriod: 14 * DAY, compoundShares: 500_000, authority: { threshold: 1, addresses: ['P-avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsn50c44'] } });
    expect(read.get(B)?.autoRenew).toBeUndefined();
    // Asked about another network: its staking asset says so.
    const fuji = await readStakers('fuji', [A], { pChainApi: `${s.url}/p-chain/mainnet` }, api, signal());
    expect(fuji && isFailed(fuji) ? fuji.failed : fuji).toMatch(/it answers for mainnet, not fuji/);
  });

  it('renews at the boundary (restaked by its share), caps at 3M AVAX, and a config change shows at once but acts at the boundary', async () => {
    const s = await simWith({ validations });
    const end = Date.parse('2026-11-08T00:00:00Z') / 1000;
    // nextPeriod set to 30 days now: the cycle still ends where it did.
    applyChange(s.world, worldChange.parse({ validator: { nodeId: A, autoRenew: { nextPeriod: '30d' } } }), START);
    expect((await stakers(s, [A])).get(A)).toMatchObject({ end, autoRenew: { nextPeriod: 30 * DAY } });
    s.world.clock.advance(8 * DAY * 1000);
    // 40 AVAX reward and 2 AVAX of fees, half restaked: 21 AVAX more at stake; the new cycle lasts 30 days.
    expect((await stakers(s, [A])).get(A)).toMatchObject({ txId: 'tx-auto', start: end, end: end + 30 * DAY, weight: String(2_021n * AVAX), delegateeReward: '0' });
    // Near the cap: only what fits is restaked.
    applyChange(s.world, worldChange.parse({ validator: { nodeId: A, stake: 2_999_990, autoRenew: { compoundShare: '100%' } } }), START);
    s.world.clock.advance(30 * DAY * 1000);
    expect((await stakers(s, [A])).get(A)?.weight).toBe(String(3_000_000n * AVAX));
  });

  it('removes a validator whose cycle was under 90% (its reward forfeited), and lets one with nextPeriod 0 exit', async () => {
    const s = await simWith({ validations: [...validations, { nodeId: B, txHash: 'tx-exit', start: '-3d', end: '+4d', status: 'active', autoRenew: { nextPeriod: 0 } }].filter((v) => v.txHash !== 'tx-plain') });
    applyChange(s.world, worldChange.parse({ validator: { nodeId: A, uptimePerformance: 85 } }), START);
    s.world.clock.advance(8 * DAY * 1000);
    expect([...(await stakers(s, [A, B])).keys()]).toEqual([]);
    const periods = (node: string) => s.world.validators('mainnet', node) as Array<{ validationStatus: string; rewards?: { validationRewardAmount: string } }>;
    expect(periods(A).map((p) => [p.validationStatus, p.rewards?.validationRewardAmount])).toEqual([['completed', '0']]);
    expect(periods(B).map((p) => [p.validationStatus, p.rewards?.validationRewardAmount])).toEqual([['completed', '40000000000']]);
  });

  it("a node's own API answers the P-Chain of its network; info.upgrades gives its build's schedule", async () => {
    const s = await simWith({ validations, nodes: [{ nodeId: A }, { nodeId: B, network: 'fuji', upgrades: { heliconTime: '9999-12-01T00:00:00Z' } }] });
    expect([...(await stakers(s, [A, B], `${s.url}/node/${A}`)).keys()].sort()).toEqual([A, B]);
    expect(await readStakers('mainnet', [A], { pChainApi: `${s.url}/node/${B}` }, api, signal())).toEqual({ failed: expect.stringMatching(/answers for fuji, not mainnet/) as unknown });
    const upgrades = (node: string) => raw(s, { jsonrpc: '2.0', id: 1, method: 'info.upgrades', params: {} }, `/node/${node}/ext/info`).then((r) => (JSON.parse(r.text) as { result: Record<string, unknown> }).result);
    expect(await upgrades(A)).toMatchObject({ graniteTime: '2025-11-19T16:00:00Z', heliconTime: '2026-09-22T15:00:00Z', graniteEpochDuration: 300_000_000_000 });
    expect(await upgrades(B)).toMatchObject({ graniteTime: '2025-10-29T15:00:00Z', heliconTime: '9999-12-01T00:00:00Z' });
  });
});
