import type { StateDiff, StateStore } from '../store/index.js';
import { loadParts, type LoadedParts, type Narrowed } from './parts.js';
import { loadActiveOf } from './states.js';

/**
 * Each spread rule's held parts' states as last read or committed here, kept between
 * evaluations while every part's revision in the store is still the kept one: one query of the
 * revisions instead of every row read and checked again. A change of the shards held reads them
 * again. A commit keeps a new value, never changes the one an evaluation read: an evaluation
 * that read it before commits against the old revisions and is refused. The state alerts are
 * read every time, as a whole rule's are: what the pipeline planned of them (receivers notified,
 * owed after a mute) is only in the store.
 */
export class PartsCache {
  readonly #kept = new Map<string, { key: string; loaded: LoadedParts }>();

  async load(store: StateStore, n: Narrowed): Promise<LoadedParts> {
    const key = n.shards.join(',');
    const kept = this.#kept.get(n.full.name);
    if (kept?.key === key) {
      const names = [...kept.loaded.names.values()];
      const stored = await store.revisionsOf(names);
      if ([...kept.loaded.revisions].every(([part, revision]) => stored.get(part) === revision)) {
        const active = await loadActiveOf(store, n.full.name, names);
        // Read after the revisions: a commit in between moves them, and this evaluation's commit is refused.
        return { ...kept.loaded, active };
      }
    }
    const loaded = await loadParts(store, n);
    this.#kept.set(n.full.name, { key, loaded });
    return loaded;
  }

  /** After `writes` (every held part) committed what the evaluation of `loaded` found: kept at their next revisions. */
  committed(rule: string, loaded: LoadedParts, writes: ReadonlyArray<{ storeRule: string; states: StateDiff }>, states: Map<string, unknown>): void {
    const kept = this.#kept.get(rule);
    if (kept?.loaded.revisions !== loaded.revisions) return;
    const revisions = new Map(loaded.revisions);
    const json = new Map(loaded.json);
    for (const { storeRule, states: diff } of writes) {
      revisions.set(storeRule, (revisions.get(storeRule) ?? 0) + 1);
      if (diff.upsert.length === 0 && diff.remove.length === 0) continue;
      const rows = new Map(json.get(storeRule));
      for (const [entity, text] of diff.upsert) rows.set(entity, text);
      for (const entity of diff.remove) rows.delete(entity);
      json.set(storeRule, rows);
    }
    this.#kept.set(rule, { key: kept.key, loaded: { names: loaded.names, revisions, json, states, active: [] } });
  }

  drop(rule: string): void {
    this.#kept.delete(rule);
  }
}
