/**
 * Narrowing a spec to some of its entities (docs/design/entity-spread.md §1), for the common
 * shapes: a list of ids, and maps keyed by NodeID. Pure; nothing at run time calls it yet.
 */
import type { Owned, Spread } from './types.js';

export type Keep = (entity: string) => boolean;

/** `list` filtered, or undefined as it was (an optional key stays absent). */
export function keepList<T extends string>(list: readonly T[] | undefined, keep: Keep): T[] | undefined {
  return list === undefined ? undefined : list.filter((id) => keep(id));
}

/** `map` with only the kept keys, in its order; undefined as it was. */
export function keepKeys<V>(map: Readonly<Record<string, V>> | undefined, keep: Keep): Record<string, V> | undefined {
  if (map === undefined) return undefined;
  const out: Record<string, V> = {};
  for (const [k, v] of Object.entries(map)) if (keep(k)) out[k] = v;
  return out;
}

/** `spec` with each named key narrowed (lists filtered, maps by key); other keys kept as they are. */
export function narrowKeys<Spec extends object>(spec: Spec, keep: Keep, lists: readonly (keyof Spec)[], maps: readonly (keyof Spec)[] = []): Spec {
  const out: Record<string, unknown> = { ...(spec as Record<string, unknown>) };
  for (const k of lists) {
    const v = out[k as string];
    if (Array.isArray(v)) out[k as string] = keepList(v as string[], keep);
  }
  // A map not filled yet (`subnets: from-inventory`) is left as it is.
  for (const k of maps) {
    const v = out[k as string];
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) out[k as string] = keepKeys(v as Record<string, unknown>, keep);
  }
  return out as Spec;
}

/** The spread of a kind whose entities are its `nodeIds` (and maps keyed by them), with every default owner. */
export function byNodeIds<Spec extends { nodeIds: readonly string[] }, S>(maps: readonly (keyof Spec)[] = []): Spread<Spec, S> {
  return {
    entities: (s) => s.nodeIds,
    narrow: (s, keep) => narrowKeys(s, keep, ['nodeIds'], maps),
  };
}

/** The spread of a kind whose entities are the keys of its `urls` (node-health, node-upgrade, node-metrics). */
export function byUrls<Spec extends { urls: Readonly<Record<string, string>> }, S>(lists: readonly (keyof Spec)[] = [], maps: readonly (keyof Spec)[] = []): Spread<Spec, S> {
  return {
    entities: (s) => Object.keys(s.urls),
    narrow: (s, keep) => narrowKeys(s, keep, lists, ['urls', ...maps]),
  };
}

/** Defaults of the owner mappings: a state's owner is its key, an alert's its `node` label, a failed key's itself. */
export function ownersOf<Spec, S>(spread: Spread<Spec, S>, full: Spec, stateOf: (key: string) => S | undefined) {
  return {
    state: (key: string, st: S): string | undefined => (spread.stateOwner ? spread.stateOwner(key, st, full) : key),
    alert: (a: Owned): string | undefined =>
      spread.alertOwner ? spread.alertOwner(a, stateOf, full) : a.labels['node'],
    failed: (key: string): string | undefined => (spread.failedOwner ? spread.failedOwner(key, stateOf, full) : key),
  };
}
