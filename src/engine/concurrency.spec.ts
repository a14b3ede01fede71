import { describe, expect, it } from 'vitest';
import { mapConcurrent } from './concurrency.js';

describe('mapConcurrent', () => {
  it('keeps order and the concurrency limit', async () => {
    let inFlight = 0;
    let most = 0;
    const out = await mapConcurrent([1, 2, 3, 4, 5], 2, async (n) => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      return n * 10;
    });
    expect(out).toEqual([10, 20, 30, 40, 50]);
    expect(most).toBe(2);
  });

  it('starts no new call after the first failure', async () => {
    const started: number[] = [];
    await expect(
      mapConcurrent([1, 2, 3, 4, 5, 6], 2, async (n) => {
        started.push(n);
        await new Promise((r) => setTimeout(r, 5));
        if (n === 1) throw new Error('lookup failed');
        return n;
      }),
    ).rejects.toThrow('lookup failed');
    await new Promise((r) => setTimeout(r, 30));
    expect(started).toEqual([1, 2]); // 2 was already running; 3 and later never start
  });
});
