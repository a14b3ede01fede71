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

  it('shows each rule\'s own spend a day before sharing, and with whom it shares; a rule watching other nodes shares with nobody', () => {
    const status = rule('status', 'validator-status', { network: 'mainnet', nodeIds: nodes(10) }, { every: 60_000 });
    const ending = rule('ending', 'validation-end', { network: 'mainnet', nodeIds: nodes(10), warnBefore: [86_400_000] }, { every: 60_000 });
    const apart = rule('apart', 'validator-status', { network: 'mainnet', nodeIds: nodes(10, 100) }, { every: 30_000 });
    const e = estimateBudget([status, ending, apart], limits);
    expect(e.rules.map((r) => ({ rule: r.rule, perDay: r.perDay, sharedWith: r.sharedWith }))).toEqual([
      { rule: 'status', perDay: 20 * 1440, sharedWith: ['ending'] },
      { rule: 'ending', perDay: 20 * 1440, sharedWith: ['status'] },
      { rule: 'apart', perDay: 20 * 2880, sharedWith: [] },
    ]);
    // The shared list once a minute, the other list twice: 60 CU a minute, not 80.
    expect(e.apis[0]).toMatchObject({ perMinute: 60, perDay: 60 * 1440 });
    expect(e.shared).toBe(1);
  });

  it('counts calls to the operator\'s own nodes a day apart from compute units, rounded', () => {
    const urls = { 'NodeID-1': 'http://10.0.0.1:9650', 'NodeID-2': 'http://10.0.0.2:9650' };
    // Every 7 s: 12,342.86 runs a day, 2 nodes each.
    const metrics = rule('metrics', 'node-metrics', { urls }, { every: 7_000 });
    const hourly = rule('hourly', 'node-metrics', { urls: { 'NodeID-3': 'http://10.0.0.3:9650' } }, { schedule: '0 0 * * * *' });
    const e = estimateBudget([metrics, hourly], limits, new Date(Date.UTC(2026, 2, 1, 0, 30)));
    expect(e.nodeCallsPerDay).toBe(Math.round((2 * 86_400_000) / 7_000) + 24);
    expect(e.apis.map((a) => [a.api, a.perDay, a.perMinute])).toEqual([['data', 0, 0], ['metrics', 0, 0]]);
    expect(e.rules.map((r) => r.perDay)).toEqual([0, 0]);
    expect(estimateBudget([rule('s', 'validator-status', { network: 'mainnet', nodeIds: nodes(10) }, { every: 60_000 })], limits).nodeCallsPerDay).toBe(0);
  });

  it('rounds the spend to whole compute units, and is over budget only past a limit, per minute or per day', () => {
    // 20 CU every 7 s: 246,857.14 a day, 171.43 a minute.
    const odd = rule('odd', 'validator-status', { network: 'mainnet', nodeIds: nodes(2) }, { every: 7_000 });
    const at = (perMinute: number, perDay: number) => estimateBudget([odd], { ...limits, data: { perMinute, perDay } }).apis[0];
    expect(at(171, 246_857)).toEqual({ api: 'data', perMinute: 171, perDay: 246_857, limits: { perMinute: 171, perDay: 246_857 }, over: false });
    expect(at(170, 10_000_000)?.over).toBe(true);
    expect(at(10_000, 246_856)?.over).toBe(true);
    expect(estimateBudget([odd], limits).apis[1]).toEqual({ api: 'metrics', perMinute: 0, perDay: 0, limits: limits.metrics, over: false });
  });

  it('counts the distinct ticks of a call\'s intervals exactly up to 12 of them, and past that each apart (an overestimate)', () => {
    expect(ticksPerDay([])).toBe(0);
    expect(ticksPerDay([60_000])).toBe(1440);
    expect(ticksPerDay([120_000, 60_000])).toBe(1440);
    // Each minute at 0, 20, 30 and 40 s.
    expect(ticksPerDay([20_000, 30_000, 60_000])).toBe(5760);
    const tens = (n: number) => Array.from({ length: n }, (_, i) => (i + 1) * 10_000);
    expect(ticksPerDay(tens(12))).toBeCloseTo(8640, 6);
    expect(ticksPerDay(tens(13))).toBeCloseTo(tens(13).reduce((sum, e) => sum + 86_400_000 / e, 0), 6);
  });

  it('a call asked by an interval rule and a cron rule: the interval\'s ticks plus the cron\'s runs', () => {
    const spec = { chainId: '43114', metric: 'txCount', timeInterval: 'hour' };
    const every = rule('every', 'metric-threshold', spec, { every: 3_600_000 });
    const cron = rule('cron', 'metric-threshold', spec, { schedule: '0 30 * * * *' });
    const e = estimateBudget([every, cron], limits, new Date(Date.UTC(2026, 2, 1, 0, 0)));
    expect(e.apis[1]?.perDay).toBe((24 + 24) * 100);
    expect(e.shared).toBe(1);
  });
});
