import { describe, expect, it } from 'vitest';
import { retryWait } from './backoff.js';

const policy = { backoffMs: 1_000, backoffMaxMs: 60_000, maxRetryAfterMs: 600_000 };

describe('the wait after a failed attempt', () => {
  it('exponential backoff with full jitter, up to backoffMax', () => {
    expect(retryWait(policy, 0, undefined, 1, 'slack')).toEqual({ waitMs: 1_000, note: '' });
    expect(retryWait(policy, 3, undefined, 1, 'slack')).toEqual({ waitMs: 8_000, note: '' });
    expect(retryWait(policy, 3, undefined, 0.5, 'slack')).toEqual({ waitMs: 4_000, note: '' });
    expect(retryWait(policy, 10, undefined, 1, 'slack')).toEqual({ waitMs: 60_000, note: '' });
  });

  it("a provider's Retry-After is the least wait, up to maxRetryAfter included", () => {
    expect(retryWait(policy, 3, 30_000, 1, 'slack')).toEqual({ waitMs: 30_000, note: '' });
    expect(retryWait(policy, 3, 2_000, 1, 'slack')).toEqual({ waitMs: 8_000, note: '' });
    expect(retryWait(policy, 0, 600_000, 1, 'slack')).toEqual({ waitMs: 600_000, note: '' });
  });

  it('a longer ask gets maxRetryAfter, and the error says what was asked', () => {
    expect(retryWait(policy, 0, 600_001, 1, 'telegram')).toEqual({ waitMs: 600_000, note: '; telegram asked to wait 10m1s, longer than delivery.maxRetryAfter 10m' });
    expect(retryWait({ ...policy, backoffMaxMs: 3_600_000 }, 20, 90_000_000, 1, 'discord')).toEqual({ waitMs: 3_600_000, note: '; discord asked to wait 1d1h, longer than delivery.maxRetryAfter 10m' });
  });
});
