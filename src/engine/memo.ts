import type { RuleMemo } from '../rules/types.js';

/**
 * A rule's memo (ObserveContext.memo): one value per key object, made at its first use. Weak,
 * so a key the spec no longer holds (a kind that asks with an array it made this poll) is
 * dropped with it.
 */
export function ruleMemo(): RuleMemo {
  const kept = new WeakMap<object, unknown>();
  return {
    of<T>(key: object, make: () => T): T {
      // Only `make` ever sets the value of `key`, and it made a T.
      if (kept.has(key)) return kept.get(key) as T;
      const value = make();
      kept.set(key, value);
      return value;
    },
  };
}
