import { describe, expect, it } from 'vitest';
import { FILTER_CHARS, filterBatches, VALIDATOR_BATCH } from './filters.js';

describe('filterBatches', () => {
  const ids = (n: number, length = 40) => Array.from({ length: n }, (_, i) => `NodeID-${String(i).padStart(length - 7, '0')}`);

  it('splits sorted ids into batches whose URL stays under 8 KB', () => {
    for (const length of [40, 120]) {
      const batches = filterBatches(ids(1_000, length).reverse(), Number.POSITIVE_INFINITY);
      expect(batches.flat()).toEqual(ids(1_000, length));
      for (const b of batches) {
        const url = new URL('https://data-api.avax.network/v1/networks/mainnet/delegators');
        url.searchParams.set('nodeIds', b.join(','));
        url.searchParams.set('delegationStatus', 'completed');
        url.searchParams.set('sortOrder', 'desc');
        url.searchParams.set('pageSize', '100');
        url.searchParams.set('pageToken', 'x'.repeat(200));
        expect(url.href.length).toBeLessThan(8_192);
      }
      // Full batches: no more calls than the URL limit forces.
      expect(batches.length).toBe(Math.ceil((1_000 * (length + 3)) / (FILTER_CHARS + 3)));
    }
  });

  it('caps a batch at the page size and drops repeated ids', () => {
    expect(filterBatches([...ids(250), ...ids(250)], VALIDATOR_BATCH).map((b) => b.length)).toEqual([100, 100, 50]);
  });
});
