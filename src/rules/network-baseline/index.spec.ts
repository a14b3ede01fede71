import { describe, expect, it } from 'vitest';
import type { ActiveSet } from '../../api/data/primary.js';
import type { ActiveValidator } from '../../api/schemas.js';
import { networkBaseline, sweep, type Observation } from './index.js';
import { spec as specSchema, type State } from './schema.js';
import { quantile } from './stats.js';

const s = specSchema.parse({ network: 'mainnet' });
const now = new Date('2026-11-29T03:00:00Z');
const AVAX = '1000000000';

function v(i: number, o: Partial<ActiveValidator> = {}): ActiveValidator {
  return { nodeId: `NodeID-${i}`, amountStaked: `2000${AVAX}`, uptimePerformance: 99, avalancheGoVersion: 'avalanchego/1.14.1', validatorHealth: { reachabilityPercent: 100, benchedPChainRequestsPercent: 0 }, ...o };
}
const set = (validators: ActiveValidator[]): ActiveSet => ({ validators, broken: [], repeated: 0 });
const seen = (validators: ActiveValidator[], at = now.getTime()): Observation => ({ at, set: set(validators) });
const network = (n: number, o: (i: number) => Partial<ActiveValidator> = () => ({})): ActiveValidator[] => Array.from({ length: n }, (_, i) => v(i, o(i)));

function run(previous: Map<string, State>, o: Observation) {
  const r = networkBaseline.evaluate(previous, o, now, s);
  return { ...r, state: r.states.get('mainnet')! };
}

describe('network-baseline', () => {
  it('takes p10/p50/p90 by count, nearest rank', () => {
    const sorted = Array.from({ length: 10 }, (_, i) => i + 1);
    expect([quantile(sorted, 0.1), quantile(sorted, 0.5), quantile(sorted, 0.9)]).toEqual([1, 5, 9]);
    expect(quantile([], 0.5)).toBeUndefined();
  });

  it('keeps the distribution of a whole sweep: quantiles, versions, the stake share below each threshold', () => {
    // 70 of 100 validators dip to 60% uptime; 10 of them, with twice the stake, are unreachable and benched.
    const validators = network(100, (i) => ({
      ...(i < 70 ? { uptimePerformance: 60 } : {}),
      ...(i < 10 ? { amountStaked: `4000${AVAX}`, validatorHealth: { reachabilityPercent: 0, benchedCChainRequestsPercent: 50 } } : {}),
      ...(i >= 90 ? { avalancheGoVersion: 'avalanchego/1.14.2' } : {}),
      ...(i === 99 ? { avalancheGoVersion: undefined } : {}),
    }));
    const { state, conditions } = run(new Map(), seen(validators));
    expect(conditions).toEqual([]);
    expect(state).toMatchObject({ complete: true, count: 100 });
    const w = state.whole!;
    expect(w.uptime).toEqual({ p10: 60, p50: 60, p90: 99 });
    expect(w.reachability).toEqual({ p10: 0, p50: 100, p90: 100 });
    expect(w.benched).toEqual({ p10: 0, p50: 0, p90: 0 });
    expect(w.versions).toEqual({ '1.14.1': 90, '1.14.2': 9, unknown: 1 });
    // Stake: 10 × 4,000 + 90 × 2,000 = 220,000 AVAX; the dip holds 10 × 4,000 + 60 × 2,000.
    expect(w.below.uptime).toBeCloseTo((160_000 / 220_000) * 100, 3);
    expect(w.below.reachability).toBeCloseTo((40_000 / 220_000) * 100, 3);
    expect(w.below.benched).toBeCloseTo((40_000 / 220_000) * 100, 3);
    expect(w.nodes['NodeID-0']).toEqual([60, 0, 50, expect.closeTo((4_000 / 220_000) * 100, 3)]);
  });

  it('gauges the distribution, the versions, completeness and age', () => {
    const { states } = run(new Map(), seen(network(10), now.getTime() - 60_000));
    const samples = networkBaseline.samples(s, states, now);
    expect(samples).toContainEqual({ metric: 'avawatch_network_validator_uptime_percent', labels: { network: 'mainnet', percentile: 'p50' }, value: 99 });
    expect(samples).toContainEqual({ metric: 'avawatch_network_validators', labels: { network: 'mainnet', version: '1.14.1' }, value: 10 });
    expect(samples).toContainEqual({ metric: 'avawatch_network_baseline_complete', labels: { network: 'mainnet' }, value: 1 });
    expect(samples).toContainEqual({ metric: 'avawatch_network_baseline_age_seconds', labels: { network: 'mainnet' }, value: 60 });
    expect(samples).toContainEqual({ metric: 'avawatch_network_stake_below_percent', labels: { network: 'mainnet', figure: 'reachability' }, value: 0 });
  });

  it('a failed sweep is a stale baseline that keeps the last whole one, never an empty network', () => {
    const first = run(new Map(), seen(network(100)));
    const failed = run(first.states, { at: now.getTime(), error: 'data API GET /v1/networks/mainnet/validators: 503' });
    expect(failed.state).toMatchObject({ complete: false, count: 0, whole: first.state.whole });
    expect(failed.conditions?.map((c) => c.summary)).toEqual([
      `Network baseline of mainnet is stale: the sweep failed: data API GET /v1/networks/mainnet/validators: 503; the last whole sweep is from ${now.toISOString()}. Each validator is judged alone until a whole sweep`,
    ]);
    expect(networkBaseline.samples(s, failed.states, now)).toContainEqual({ metric: 'avawatch_network_baseline_complete', labels: { network: 'mainnet' }, value: 0 });
  });

  it('a sweep under 90% of the last whole one is partial; two in a row that agree are the new whole', () => {
    const first = run(new Map(), seen(network(100)));
    const short = run(first.states, seen(network(89)));
    expect(short.state).toMatchObject({ complete: false, count: 89, why: "89 validators listed, under 90% of the last whole sweep's 100" });
    expect(short.state.whole?.count).toBe(100);
    expect(short.conditions).toHaveLength(1);
    expect(run(first.states, seen(network(90))).state.complete).toBe(true);
    const agreed = run(short.states, seen(network(89)));
    expect(agreed.state).toMatchObject({ complete: true, count: 89, whole: { count: 89 } });
    expect(agreed.conditions).toEqual([]);
    expect(agreed.resolvedAs?.('mainnet')?.summary).toBe('Network baseline of mainnet is whole again: 89 active validators');
  });

  it('no validator listed is never a whole sweep', () => {
    expect(sweep(undefined, seen([]), s)).toMatchObject({ complete: false, why: 'the service listed no active validator' });
  });

  it('prices one call per 100 expected validators, each counted once', () => {
    expect(networkBaseline.cost(s).calls).toHaveLength(15);
    const fuji = networkBaseline.cost(specSchema.parse({ network: 'fuji', expectValidators: 2_000 }));
    expect(fuji.calls.map((c) => c.cu)).toEqual(Array(20).fill(20));
    expect(new Set(fuji.calls.map((c) => c.key)).size).toBe(20);
    expect(fuji.calls[0]?.key).toBe('GET /v1/networks/fuji/validators?validationStatus=active&subnetId=11111111111111111111111111111111LpoYY&minUptimePerformance=0&sortBy=blockIndex');
  });
});
