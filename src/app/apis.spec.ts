import { describe, expect, it } from 'vitest';
import type { BudgetLedger, LedgerAsk } from '../api/shared-budget.js';
import { systemClock } from '../base/clock.js';
import { createLogger } from '../base/log.js';
import { configSchema } from '../config/schema.js';
import { createMetrics } from '../metrics/registry.js';
import { buildApis, closeApis } from './apis.js';

// The limiters buildApis makes: one machine's alone, or on the budget a shared store keeps per key.

const deps = () => ({
  metrics: createMetrics({ version: 't', outboxPending: () => 0, firing: () => [], ruleSamples: () => [], ruleGauges: [] }),
  clock: systemClock,
  log: createLogger('fatal', false).log,
});

function ledger() {
  const asked: Array<{ budget: string; ask: LedgerAsk }> = [];
  const l: BudgetLedger = {
    reserve: (budget, ask) => {
      asked.push({ budget, ask });
      return Promise.resolve({ second: 1, granted: ask.want, window: ask.want, day: ask.want, members: 1 });
    },
    giveBack: () => Promise.resolve(),
  };
  return { ledger: l, asked };
}

describe('buildApis: the compute-unit budgets', () => {
  it('on one machine (no shared budget in the store) each limiter counts alone', async () => {
    const apis = buildApis(configSchema.parse({}), { ...deps(), store: {} });
    expect([apis.limiters.data.shared, apis.limiters.metrics.shared]).toEqual([false, false]);
    await closeApis(apis);
  });

  it('with a shared store, both spend its budget, the data API named by its key\'s digest; a reload keeps them unless the key or the plan changed', async () => {
    const { ledger: budget, asked } = ledger();
    const o = { ...deps(), store: { budget } };
    const first = buildApis(configSchema.parse({ api: { apiKey: 'glc_first_key_0123456789' } }), o);
    expect([first.limiters.data.shared, first.limiters.metrics.shared]).toEqual([true, true]);
    await first.limiters.data.acquire(20);
    await first.limiters.metrics.acquire(20);
    expect(asked.map((a) => a.budget)).toEqual([expect.stringMatching(/^data:[0-9a-f]{32}$/), 'metrics:keyless']);
    expect(JSON.stringify(asked)).not.toContain('glc_first_key');

    const same = buildApis(configSchema.parse({ api: { apiKey: 'glc_first_key_0123456789' } }), { ...o, previous: first });
    expect([same.limiters.data, same.limiters.metrics]).toEqual([first.limiters.data, first.limiters.metrics]);
    expect(same.limiters.data).toBe(first.limiters.data);
    const rekeyed = buildApis(configSchema.parse({ api: { apiKey: 'glc_other_key_0123456789' } }), { ...o, previous: same });
    expect(rekeyed.limiters.data).not.toBe(first.limiters.data);
    expect(rekeyed.limiters.metrics).toBe(first.limiters.metrics);
    await rekeyed.limiters.data.acquire(20);
    expect(asked.at(-1)!.budget).not.toBe(asked[0]!.budget);
    await Promise.all([closeApis(first, same), closeApis(same, rekeyed), closeApis(rekeyed)]);
  });
});
