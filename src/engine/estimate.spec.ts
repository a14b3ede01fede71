import { describe, expect, it } from 'vitest';
import type { LoadedRule } from '../config/load.js';
import { estimateBudget, ticksPerDay } from './estimate.js';
import { TIERS } from '../api/limiter.js';
import { PRIMARY_NETWORK } from '../rules/fields.js';
import { scheduleOf } from '../base/schedule.js';

const limits = { data: TIERS.unauthenticated, metrics: { perMinute: 8_000, perDay: 1_200_000 } };
const nodes = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `NodeID-${from + i}`);

function rule(name: string, kind: string, spec: Record<string, unknown>, when: { every?: number; schedule?: string }): LoadedRule {
  return { name, kind, severity: 'critical', schedule: scheduleOf(when), spec: { ...spec, kind, name, ...when } } as unknown as LoadedRule;
}

describe('compute-unit estimate', () => {
  it('counts the bulk list of validators: 2 nodes every 30 s are one list of active periods (no pending list: ACP-41), 40 CU a minute', () => {
    const e = estimateBudget([rule('v', 'validator-status', { network: 'mainnet', nodeIds: nodes(2) }, { every: 30_000 })], limits);
    expect(e.apis[0]).toMatchObject({ api: 'data', perMinute: 40, perDay: 57_600, over: false });
  });

  it('counts the lists of rules watching the same nodes once when they poll on the same ticks, and the union of ticks otherwise', () => {
    const status = rule('status', 'validator-status', { network: 'mainnet', nodeIds: nodes(10) }, { every: 60_000 });
    const ending = rule('ending', 'validation-end', { network: 'mainnet', nodeIds: nodes(10).reverse(), warnBefore: [86_400_000] }, { every: 60_000 });
    expect(estimateBudget([status, ending], limits).apis[0]?.perMinute).toBe(20);
    expect(estimateBudget([status, ending], limits).shared).toBe(1);
    expect(estimateBudget([status, ending], limits).rules.map((r) => [r.rule, r.sharedWith])).toEqual([['status', ['ending']], ['ending', ['status']]]);
    // Every 60 s and every 90 s: ticks at multiples of either (lcm 180 s): 1/60 + 1/90 − 1/180 per second.
    const slower: LoadedRule = { ...ending, schedule: { everyMs: 90_000 } };
    expect(ticksPerDay([60_000, 90_000])).toBe(1440 + 960 - 480);
    expect(estimateBudget([status, slower], limits).apis[0]?.perDay).toBe(20 * 1920);
  });

  it('validator-health reads the same lists: with validator-status and validation-end on the same nodes, one lookup per batch', () => {
    // As the loader gives them: subnetId defaults to the primary network.
    const spec = { network: 'mainnet', nodeIds: nodes(10), subnetId: PRIMARY_NETWORK };
    const three = [
      rule('s', 'validator-status', spec, { every: 60_000 }),
      rule('e', 'validation-end', { ...spec, warnBefore: [86_400_000] }, { every: 60_000 }),
      rule('h', 'validator-health', { ...spec, uptime: { warning: 90, critical: 85, hysteresis: 1 } }, { every: 60_000 }),
    ];
    expect(estimateBudget(three, limits).apis[0]?.perMinute).toBe(20);
  });

  it('100 nodes under validator-status, validation-end and delegation-end every 30 s fit the no-key budget, per minute and per day', () => {
    const spec = { network: 'mainnet', nodeIds: nodes(100) };
    const e = estimateBudget(
      [rule('s', 'validator-status', spec, { every: 30_000 }), rule('e', 'validation-end', { ...spec, warnBefore: [86_400_000] }, { every: 30_000 }), rule('d', 'delegation-end', spec, { every: 30_000 })],
      limits,
    );
    // 1 list of 100 active validators and 1 page of the newest delegations of 100 nodes: 40 CU a cycle.
    expect(e.apis[0]).toMatchObject({ perMinute: 80, perDay: 115_200, over: false });
  });

  it('is over budget when polling 10,000 nodes every 10 s without a key (12,000 CU a minute)', () => {
    const many = rule('many', 'validator-status', { network: 'mainnet', nodeIds: nodes(10_000) }, { every: 10_000 });
    expect(estimateBudget([many], limits).apis[0]).toMatchObject({ perMinute: 12_000, over: true });
    // Pro (20,000 CU a minute, 25,000,000 a day) carries it: 17,280,000 CU a day; every 5 s it would not.
    expect(estimateBudget([many], { ...limits, data: TIERS.pro }).apis[0]?.over).toBe(false);
    expect(estimateBudget([{ ...many, schedule: { everyMs: 5_000 } }], { ...limits, data: TIERS.pro }).apis[0]?.over).toBe(true);
  });

  it('counts cron rules by their runs in a day and the Metrics API apart', () => {
    const metric = rule('m', 'metric-threshold', { chainId: '43114', metric: 'txCount', timeInterval: 'hour' }, { schedule: '0 */10 * * * *' });
    const e = estimateBudget([metric], limits);
    expect(e.apis[1]).toMatchObject({ api: 'metrics', perDay: 144 * 100 });
    expect(e.apis[0]?.perDay).toBe(0);
  });

  it('staking-activity is priced at 100 CU a listStaking call: 200 addresses in 2 calls every 5 m are 57,600 CU a day; the subnet list 20 CU a page', () => {
    const bech32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
    const addresses = Array.from({ length: 200 }, (_, i) => `avax1${bech32[i % 32]}${bech32[Math.floor(i / 32)]}${'q'.repeat(36)}`);
    const staking = rule('stakes', 'staking-activity', { network: 'mainnet', addresses }, { every: 300_000 });
    const e = estimateBudget([staking], limits);
    expect(e.apis[0]).toMatchObject({ perMinute: 40, perDay: 2 * 100 * 288 });
    expect(e.rules[0]?.more).toMatch(/^listStaking costs 100 CU a call/);
    const subnets = rule('subnets', 'subnet-changes', { network: 'mainnet', subnetIds: ['2Hm6eGyCNtJ5h5rGcS1DFRxNp1Mrx8FTRQRr2s5L3aFcmJzRqg'], pageSize: 10_000 }, { every: 600_000 });
    expect(estimateBudget([subnets], limits).apis[0]?.perDay).toBe(20 * 144);
  });
});
