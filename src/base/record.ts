/**
 * A map keyed by ids that come from the chain (tx hashes, validation ids, message ids): no
 * prototype, so an id such as `__proto__` or `constructor` is an ordinary key.
 */
export function record<T>(entries?: Iterable<readonly [string, T]>): Record<string, T> {
  const out = Object.create(null) as Record<string, T>;
  for (const [k, v] of entries ?? []) out[k] = v;
  return out;
}
