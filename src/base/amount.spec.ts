import { describe, expect, it } from 'vitest';
import { avaxToNavax, navaxToAvax } from './amount.js';

describe('navaxToAvax', () => {
  it('gives AVAX for gauges, keeping the nAVAX of large balances', () => {
    expect(navaxToAvax(avaxToNavax('2000000.000000001'))).toBe(2_000_000.000000001);
    expect(navaxToAvax(1n)).toBe(1e-9);
    expect(navaxToAvax(0n)).toBe(0);
    expect(navaxToAvax(avaxToNavax('25.5'))).toBe(25.5);
  });
});
