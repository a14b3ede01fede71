import { describe, expect, it } from 'vitest';
import { baselineOf, nodeOf } from '../../test/helpers/incidents-world.js';
import { fleetStakeOf, networkShareOf, ownShareOf } from './shares.js';

describe('shares of stake', () => {
  it('of the network: the stake percentages of the affected validators in the sweep', () => {
    const baseline = baselineOf(4, (i) => ({ stakePct: [40, 30, 20, 10][i] as number }));
    expect(networkShareOf(new Set([nodeOf(0), nodeOf(3)]), baseline)).toBeCloseTo(0.5);
  });

  it('of the network: unknown without a whole sweep or when the sweep lacks a validator', () => {
    expect(networkShareOf(new Set([nodeOf(0)]), undefined)).toBeUndefined();
    expect(networkShareOf(new Set([nodeOf(0)]), baselineOf(4, () => ({}), { complete: false }))).toBeUndefined();
    expect(networkShareOf(new Set([nodeOf(9)]), baselineOf(4, () => ({})))).toBeUndefined();
  });

  it('of the operator: stake, own and delegated, not the count of validators', () => {
    const stake: Record<string, number> = { a: 600, b: 300, c: 100 };
    expect(ownShareOf(new Set(['a']), fleetStakeOf(['a', 'b', 'c'], (id) => stake[id]))).toBeCloseTo(0.6);
    expect(ownShareOf(new Set(['b', 'c']), fleetStakeOf(['a', 'b', 'c'], (id) => stake[id]))).toBeCloseTo(0.4);
  });

  it('of the operator: unknown while one validator\'s stake is unknown or all is zero', () => {
    expect(ownShareOf(new Set(['a']), fleetStakeOf(['a', 'x'], (id) => (id === 'a' ? 1 : undefined)))).toBeUndefined();
    expect(ownShareOf(new Set(['a']), fleetStakeOf(['a'], () => 0))).toBeUndefined();
  });
});
