// When an HTTP answer is worth another attempt, and how long to wait first: one answer for
// the API client and every channel. A leaf: it imports nothing.

/** 408, 429 and every 5xx: the other side may take it later. */
export function retryableStatus(status: number): boolean {
  return status === 429 || status === 408 || status >= 500;
}

/**
 * ratelimit-reset or retry-after, as milliseconds to wait. The format is undocumented: a
 * number of seconds, unless it can only be a time (past 1e9 seconds is 31 years of waiting:
 * epoch seconds; past 1e12, epoch milliseconds); retry-after may also be an HTTP date.
 */
export function resetWaitMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) {
    const date = Date.parse(value);
    return Number.isNaN(date) ? undefined : Math.max(0, date - now);
  }
  if (n <= 0) return undefined;
  if (n > 1e12) return Math.max(0, n - now);
  if (n > 1e9) return Math.max(0, n * 1000 - now);
  return Math.ceil(n * 1000);
}

/** A Retry-After header (as one value or Node's list), in milliseconds; a date is read against the wall time `now`. */
export function parseRetryAfter(header: string | string[] | undefined | null, now: number): number | undefined {
  return resetWaitMs((Array.isArray(header) ? header[0] : header) ?? undefined, now);
}
