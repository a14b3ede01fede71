import { describe, expect, it } from 'vitest';
import type { ActiveValidator } from '../../api/schemas.js';
import { distribution } from './stats.js';

const below = { uptime: 80, reachability: 80, benched: 20 };
const v = (i: number, o: Partial<ActiveValidator>): ActiveValidator => ({ nodeId: `NodeID-${i}`, amountStaked: '2000000000000', uptimePerformance: 99, validatorHealth: { reachabilityPercent: 100, benchedPChainRequestsPercent: 0 }, ...o });

describe('network-baseline distribution', () => {
  it('takes a figure no percent can be as none: never a dip of the network (found by the fuzzer, issue 40)', () => {
    // A service answering uptime −1 and reachability 1e308, benched 1e13 for every validator.
    const odd = Array.from({ length: 10 }, (_, i) => v(i, { uptimePerformance: i < 5 ? -1 : 100.5, validatorHealth: { reachabilityPercent: 1e308, benchedPChainRequestsPercent: 1e13 } }));
    const w = distribution([...odd, v(10, {})], 0, below);
    expect(w.uptime).toEqual({ p10: 99, p50: 99, p90: 99 });
    expect(w.reachability).toEqual({ p10: 100, p50: 100, p90: 100 });
    expect(w.benched).toEqual({ p10: 0, p50: 0, p90: 0 });
    expect(w.below).toEqual({ uptime: 0, reachability: 0, benched: 0 });
    expect(w.nodes['NodeID-0']?.slice(0, 3)).toEqual([-1, -1, -1]);
  });
});
