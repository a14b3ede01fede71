import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../store/index.js';
import type { GaugeSample } from '../base/types.js';
import { Sampler, type RuleSampling } from './sampler.js';

const dir = mkdtempSync(join(tmpdir(), 'avawatch-sampler-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MIN = 60_000;
const UPTIME = 'avawatch_validator_uptime_percent';
const BALANCE = 'avawatch_l1_validator_balance_avax';

function health(values: Record<string, number>, now: number, failing: string[] = []): RuleSampling {
  const samples: GaugeSample[] = Object.entries(values).map(([node, value]) => ({ metric: UPTIME, labels: { rule: 'health', network: 'mainnet', node_id: node }, value }));
  return { rule: 'health', gauges: [UPTIME, 'avawatch_validator_reachability_percent'], samplesOf: (m) => samples.filter((s) => s.metric === m), failing: () => new Set(failing), now, everyMs: 10 * MIN };
}

describe('Sampler', () => {
  it('keeps one uptime figure per node every sampleEvery, and none of a node whose lookup failed', async () => {
    const store = SqliteStore.open(join(dir, 'uptime.db'));
    const sampler = new Sampler(store);
    expect(await sampler.sample(health({ 'NodeID-A': 99.5, 'NodeID-B': 97 }, 0))).toBe(2);
    expect(await sampler.sample(health({ 'NodeID-A': 99.4, 'NodeID-B': 96 }, 5 * MIN))).toBe(0);
    expect(await sampler.sample(health({ 'NodeID-A': 99.3, 'NodeID-B': 95 }, 10 * MIN, ['NodeID-B']))).toBe(1);
    expect((await store.samples('uptime_percent', 'NodeID-A', 0)).map((s) => [s.at / MIN, s.value])).toEqual([[0, 99.5], [10, 99.3]]);
    expect((await store.samples('uptime_percent', 'NodeID-B', 0)).map((s) => [s.at / MIN, s.value])).toEqual([[0, 97]]);
    await store.close();
  });

  it('after a restart, waits out the period from the newest stored sample', async () => {
    const file = join(dir, 'restart.db');
    const first = SqliteStore.open(file);
    await new Sampler(first).sample(health({ 'NodeID-A': 99 }, 0));
    await first.close();
    const store = SqliteStore.open(file);
    const sampler = new Sampler(store);
    expect(await sampler.sample(health({ 'NodeID-A': 98 }, 4 * MIN))).toBe(0);
    expect(await sampler.sample(health({ 'NodeID-A': 97 }, 10 * MIN))).toBe(1);
    expect((await store.samples('uptime_percent', 'NodeID-A', 0)).map((s) => s.value)).toEqual([99, 97]);
    await store.close();
  });

  it('does not read the samples of a rule before one of its entities is due', async () => {
    const store = SqliteStore.open(join(dir, 'gate.db'));
    const sampler = new Sampler(store);
    let reads = 0;
    const counted = (now: number): RuleSampling => {
      const r = health({ 'NodeID-A': 99 }, now);
      return { ...r, samplesOf: (m) => (reads++, r.samplesOf(m)) };
    };
    await sampler.sample(counted(0));
    for (let t = 1; t < 10; t++) await sampler.sample(counted(t * MIN));
    expect(reads).toBe(1);
    await sampler.sample(counted(10 * MIN));
    expect(reads).toBe(2);
    await store.close();
  });

  it('keeps L1 balances by validation ID, and samples nothing of a kind without these figures', async () => {
    const store = SqliteStore.open(join(dir, 'l1.db'));
    const sampler = new Sampler(store);
    const balance: GaugeSample = { metric: BALANCE, labels: { rule: 'l1', validation_id: 'V1', node_id: 'NodeID-C' }, value: 1.25 };
    expect(await sampler.sample({ rule: 'l1', gauges: [BALANCE], samplesOf: (m) => (m === BALANCE ? [balance] : []), failing: () => new Set(), now: 0, everyMs: MIN })).toBe(1);
    expect((await store.samples('l1_balance_avax', 'V1', 0)).map((s) => s.value)).toEqual([1.25]);
    const other = { rule: 'status', gauges: ['avawatch_validator_listed'], samplesOf: () => [balance], failing: () => new Set<string>(), now: 0, everyMs: MIN };
    expect(await sampler.sample(other)).toBe(0);
    await store.close();
  });

  it("keeps the network baseline's p10, p50 and p90 of uptime and reachability per network, and none of a stale sweep's old figures", async () => {
    const store = SqliteStore.open(join(dir, 'network.db'));
    const sampler = new Sampler(store);
    const gauge = (metric: string, network: string, value: number, extra: Record<string, string> = {}): GaugeSample => ({ metric, labels: { rule: 'baseline', network, ...extra }, value });
    const sweep = (now: number, mainnetWhole: boolean, median: number): RuleSampling => {
      const samples = [
        gauge('avawatch_network_baseline_complete', 'mainnet', mainnetWhole ? 1 : 0),
        gauge('avawatch_network_baseline_complete', 'fuji', 1),
        ...(['mainnet', 'fuji'] as const).flatMap((n) =>
          (['uptime', 'reachability', 'benched'] as const).flatMap((f) => [gauge(`avawatch_network_validator_${f}_percent`, n, median - 5, { percentile: 'p10' }), gauge(`avawatch_network_validator_${f}_percent`, n, median, { percentile: 'p50' }), gauge(`avawatch_network_validator_${f}_percent`, n, 100, { percentile: 'p90' })]),
        ),
      ];
      const gauges = [...new Set(samples.map((s) => s.metric))];
      return { rule: 'baseline', gauges, samplesOf: (m) => samples.filter((s) => s.metric === m), failing: () => new Set(), now, everyMs: 10 * MIN };
    };
    expect(await sampler.sample(sweep(0, true, 99))).toBe(12);
    expect(await sampler.sample(sweep(10 * MIN, false, 50))).toBe(6);
    const series = async (name: string, network: string) => (await store.samples(name, network, 0)).map((s) => [s.at / MIN, s.value]);
    expect(await series('network_uptime_p10', 'mainnet')).toEqual([[0, 94]]);
    expect(await series('network_uptime_p50', 'mainnet')).toEqual([[0, 99]]);
    expect(await series('network_uptime_p90', 'mainnet')).toEqual([[0, 100]]);
    expect(await series('network_reachability_p50', 'mainnet')).toEqual([[0, 99]]);
    expect(await series('network_uptime_p50', 'fuji')).toEqual([[0, 99], [10, 50]]);
    expect(await series('network_benched_p50', 'mainnet')).toEqual([]);
    await store.close();
  });
});
