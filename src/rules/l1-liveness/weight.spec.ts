import { describe, expect, it } from 'vitest';
import { MIN_FEE_NAVAX_PER_S, weigh, type Member } from './weight.js';

const DAY = 86_400;
const limits = { consensus: 0.8, warp: 0.67, horizonS: 7 * DAY };
/** A validator with `days` of balance at the minimum fee. */
const v = (id: string, weight: number, days: number, active = true): Member => ({
  validationId: id,
  nodeId: `NodeID-${id}`,
  weight,
  active,
  balance: BigInt(Math.round(days * DAY * MIN_FEE_NAVAX_PER_S)),
  burnPerSecond: MIN_FEE_NAVAX_PER_S,
});

describe('an L1 weighed against consensus (80%) and Warp (67%)', () => {
  it('the half-weight validator running dry (avalanche-cli #2526): consensus halts when it does, and one top-up keeps it, with how much', () => {
    const w = weigh([v('big', 50, 2), v('a', 20, 100), v('b', 20, 100), v('c', 10, 100)], limits);
    expect(w.activeShare).toBe(1);
    expect(w.lowShare).toBe(0.5);
    expect(w.consensusIn).toBe(2 * DAY);
    expect(w.warpIn).toBe(2 * DAY);
    expect(w.topUps).toEqual([{ validationId: 'big', nodeId: 'NodeID-big', need: BigInt(5 * DAY * MIN_FEE_NAVAX_PER_S) }]);
  });

  it('small validators running dry one after another: consensus first, Warp later; the heaviest few top up', () => {
    const w = weigh([v('a', 10, 1), v('b', 15, 2), v('c', 10, 3), v('d', 65, 300)], limits);
    expect(w.consensusIn).toBe(2 * DAY); // 90% left after a, 75% after b
    expect(w.warpIn).toBe(3 * DAY); // 65% after c
    expect(w.topUps.map((t) => t.validationId)).toEqual(['b']); // 65 + 15 = 80%
  });

  it('inactive weight counts in the total: below consensus now, no forecast to make', () => {
    const w = weigh([v('gone', 25, 0, false), v('a', 75, 300)], limits);
    expect(w.activeShare).toBe(0.75);
    expect(w.consensusIn).toBe(0);
    expect(w.warpIn).toBeUndefined();
    expect(w.topUps).toEqual([]);
  });

  it('a burn not measured yet is taken as the others\' (every active validator pays the same fee)', () => {
    const unmeasured = { ...v('big', 50, 2), burnPerSecond: null, balance: BigInt(2 * DAY * 1024) };
    const w = weigh([unmeasured, { ...v('a', 50, 100), burnPerSecond: 1024, balance: BigInt(100 * DAY * 1024) }], limits);
    expect(w.consensusIn).toBe(2 * DAY);
  });

  it('everything lasting past the horizon: no forecast, no top-up', () => {
    expect(weigh([v('a', 50, 30), v('b', 50, 30)], limits)).toMatchObject({ consensusIn: undefined, warpIn: undefined, lowShare: 0, topUps: [] });
  });
});
