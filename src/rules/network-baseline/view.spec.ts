import { describe, expect, it } from 'vitest';
import { sweep } from './index.js';
import { spec as specSchema } from './schema.js';
import { baselineView } from './view.js';

const s = specSchema.parse({ network: 'mainnet' });
const v = (i: number, uptime?: number) => ({ nodeId: `NodeID-${i}`, amountStaked: '2000000000000', ...(uptime === undefined ? {} : { uptimePerformance: uptime }), validatorHealth: { reachabilityPercent: 100 } });
const whole = sweep(undefined, { at: 0, set: { validators: [v(1, 60), v(2, 99), v(3)], broken: [], repeated: 0 } }, s);

describe('the baseline as the incident layer reads it', () => {
  it('a whole, fresh sweep is usable: quantiles, shares and each validator\'s figures (an unreported one absent)', () => {
    const view = baselineView('mainnet', whole, 60_000, 1_200_000);
    expect([view.usable, view.why, view.count]).toEqual([true, undefined, 3]);
    expect(view.quantiles.uptime).toEqual({ p10: 60, p50: 60, p90: 99 });
    expect(view.belowShare('uptime')).toBeCloseTo(100 / 3, 3);
    expect(view.figureOf('NodeID-1')).toEqual({ uptime: 60, reachability: 100, benched: undefined, stakePct: expect.closeTo(100 / 3, 3) });
    expect(view.figureOf('NodeID-3')?.uptime).toBeUndefined();
    expect(view.figureOf('NodeID-9')).toBeUndefined();
  });

  it('none, a short or failed last sweep, or an old one is not usable, and says why', () => {
    expect(baselineView('mainnet', undefined, undefined, 1).why).toBe('no whole sweep yet');
    const failed = sweep(whole, { at: 1, error: 'data API: 503' }, s);
    expect(baselineView('mainnet', failed, 0, 1_200_000)).toMatchObject({ usable: false, why: 'stale: the sweep failed: data API: 503', count: 3 });
    expect(baselineView('mainnet', whole, 1_800_000, 1_200_000)).toMatchObject({ usable: false, why: 'stale: the last whole sweep is 30 min old' });
  });
});
