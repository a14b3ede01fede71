import { describe, expect, it } from 'vitest';
import { isFailed, lookupEach } from './lookup.js';

const never = new AbortController().signal;

describe('lookupEach', () => {
  it('keeps the concurrency limit and answers per entity', async () => {
    let inFlight = 0;
    let most = 0;
    const out = await lookupEach(['a', 'b', 'c', 'd', 'e'], 2, never, async (e) => {
      most = Math.max(most, ++inFlight);
      // A turn of the event loop: the lookups started meanwhile overlap this one.
      await new Promise((r) => setImmediate(r));
      inFlight--;
      return e.toUpperCase();
    });
    expect(out).toMatchObject({ a: 'A', e: 'E' });
    expect(Object.keys(out)).toHaveLength(5);
    expect(most).toBe(2);
  });

  it('a failed lookup fails only its entity; the others are still looked up', async () => {
    const out = await lookupEach(['a', 'broken', 'c'], 2, never, async (e) => {
      if (e === 'broken') throw new Error('unexpected response: validators.0.txHash');
      return e;
    });
    expect(out['a']).toBe('a');
    expect(out['c']).toBe('c');
    expect(out['broken']).toEqual({ failed: 'unexpected response: validators.0.txHash' });
    expect(isFailed(out['broken'])).toBe(true);
    expect(isFailed(out['a'])).toBe(false);
  });

  it('when every lookup fails, the evaluation fails with the first error', async () => {
    await expect(
      lookupEach(['a', 'b'], 2, never, async (e) => {
        throw new Error(`down ${e}`);
      }),
    ).rejects.toThrow('down a');
  });

  it('shutdown is not an entity failure: it rejects', async () => {
    const controller = new AbortController();
    const run = lookupEach(['a', 'b'], 1, controller.signal, async () => {
      controller.abort(new Error('shutting down'));
      throw new Error('aborted');
    });
    await expect(run).rejects.toThrow('shutting down');
  });
});
