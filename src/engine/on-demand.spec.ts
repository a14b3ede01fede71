import { describe, expect, it } from 'vitest';
import { OnDemandSweeps } from './on-demand.js';

describe('on-demand sweeps', () => {
  it('one per 2 minutes at most', () => {
    const cap = new OnDemandSweeps();
    expect([cap.take(0), cap.take(60_000), cap.take(119_999), cap.take(120_000)]).toEqual([true, false, false, true]);
  });

  it('at most 30 in any 24 hours, the oldest freeing its place a day later', () => {
    const cap = new OnDemandSweeps();
    const taken = Array.from({ length: 40 }, (_, i) => cap.take(i * 120_000)).filter(Boolean).length;
    expect(taken).toBe(30);
    expect(cap.take(86_399_999)).toBe(false);
    expect(cap.take(86_400_000)).toBe(true);
  });
});
