import { SqliteStore, type SharedShards, type StateStore } from '../../src/store/index.js';

/**
 * An in-memory SQLite store given `shards`: the layout of a shared store (a rule spread by
 * entity keeps its rows in parts) in a spec. Its fences are PostgreSQL's (store/contract-parts.ts).
 */
export function sharedSqlite(): StateStore {
  const sqlite = SqliteStore.open(':memory:');
  const shards = { fenceBy: () => undefined } as unknown as SharedShards;
  return new Proxy(sqlite, {
    get: (target, key) => {
      if (key === 'shards') return shards;
      const v: unknown = Reflect.get(target, key, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
