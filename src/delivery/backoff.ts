import { formatDuration } from '../base/duration.js';

/** The `delivery.*` settings that decide how long a receiver waits after a failed attempt. */
export interface RetryPolicy {
  backoffMs: number;
  backoffMaxMs: number;
  /** The longest wait a provider's 429 is granted (`delivery.maxRetryAfter`). */
  maxRetryAfterMs: number;
}

export interface RetryWait {
  waitMs: number;
  /** What to add to the attempt's error when the provider asked for more than it got. */
  note: string;
}

/**
 * Exponential backoff with full jitter; a provider's Retry-After is the least wait, up to
 * maxRetryAfter. A longer ask is still a failed attempt, retried after maxRetryAfter, and
 * its error says what was asked: one provider's "wait 25 h" must not hold the receiver
 * (and every notification behind it) that long, nor a timer past its ceiling.
 */
export function retryWait(policy: RetryPolicy, attempts: number, retryAfterMs: number | undefined, random: number, provider: string): RetryWait {
  const ceiling = Math.min(policy.backoffMaxMs, policy.backoffMs * 2 ** attempts);
  const backoff = random * ceiling;
  if (retryAfterMs === undefined || retryAfterMs <= policy.maxRetryAfterMs) return { waitMs: Math.max(backoff, retryAfterMs ?? 0), note: '' };
  const note = `; ${provider} asked to wait ${formatDuration(Math.ceil(retryAfterMs / 1000) * 1000)}, longer than delivery.maxRetryAfter ${formatDuration(policy.maxRetryAfterMs)}`;
  return { waitMs: Math.max(backoff, policy.maxRetryAfterMs), note };
}
