import { readActive, type ActiveAlert } from '../alerts/lifecycle.js';
import { scrubState, type Redact } from '../alerts/pipeline/scrub.js';
import type { LoadedRule } from '../config/load.js';
import { ruleKind } from '../rules/registry.js';
import { StateDiff, StoreError, type StateStore } from '../store/index.js';

// Each rule's committed states, kept between evaluations while no other process writes the
// file, and the diff of an evaluation against them: only the states that changed are written.

export interface CachedStates {
  /** The file's data_version when read: another process's commit changes it. */
  version: number;
  /** The rule's revision the states are of: the commit checks it is still the stored one. */
  revision: number;
  states: Map<string, unknown>;
  /** Each entity's state as stored, to write only what changed. */
  json: Map<string, string>;
  /** Each state's JSON is exactly its stored text (kept from this process's commit, not parsed from the file). */
  exact: boolean;
}

export class RuleStates {
  readonly #store: StateStore;
  readonly #cache = new Map<string, CachedStates>();

  constructor(store: StateStore) {
    this.#store = store;
  }

  /** The rule's committed states: kept from its last commit, or read (and checked) from the file. */
  async load(rule: LoadedRule): Promise<CachedStates> {
    const version = await this.#store.dataVersion();
    const cached = this.#cache.get(rule.name);
    if (cached && cached.version === version) return cached;
    const kind = ruleKind(rule.kind);
    const states = new Map<string, unknown>();
    const json = new Map<string, string>();
    const { rows, revision } = await this.#store.stateRows(rule.name);
    const order = kind.entityOrder?.(rule.spec);
    readRows(rule.kind, rule.name, order ? rowsInOrder(rows, order) : rows, states, json);
    const loaded = { version, revision, states, json, exact: false };
    this.#cache.set(rule.name, loaded);
    return loaded;
  }

  /** Whether these are still the kept states of the rule at this revision (no commit of it came meanwhile). */
  current(rule: string, cached: CachedStates, revision: number): boolean {
    return this.#cache.get(rule) === cached && cached.revision === revision;
  }

  /** Read from the file next time. */
  drop(rule: string): void {
    this.#cache.delete(rule);
  }

  /** After a commit of the rule: its kept states are at the next revision, unless another process wrote meanwhile. */
  async committed(rule: string, cached?: CachedStates): Promise<void> {
    const kept = cached ?? this.#cache.get(rule);
    if (!kept) return;
    if ((await this.#store.dataVersion()) === kept.version) kept.revision += 1;
    else if (cached) this.#cache.delete(rule);
  }

  /**
   * The cache updated in place with what the evaluation found, and what to write. At 100k
   * entities a new record and map of every state each cycle were most of its work. Until the
   * commit holds it is not what the file has: the caller drops it on any failure.
   */
  diff(cached: CachedStates, evaluated: ReadonlyMap<string, unknown>, partial: boolean, redact: Redact): StateDiff {
    const { states, json } = cached;
    const storedCount = json.size;
    const upsert: Array<[string, string]> = [];
    let kept = 0;
    for (const [entity, raw] of evaluated) {
      // `states` is `previous` (the cache), and holds an entity exactly when `json` does.
      const before = states.get(entity);
      if (before !== undefined || json.has(entity)) kept++;
      // The very state the cache holds (the kind changed nothing): its stored text, already
      // scrubbed; nothing to encode, compare or write.
      if (before !== undefined && cached.exact && raw === before) continue;
      const stored = json.get(entity);
      const text = JSON.stringify(raw);
      // As stored (and the stored text was scrubbed): nothing in it to scrub, nothing to write.
      if (text === stored) {
        states.set(entity, raw);
        continue;
      }
      // A state may keep the service's text (an error message): scrubbed as the alerts are.
      const clean = scrubState(raw, redact, text);
      states.set(entity, clean.state);
      json.set(entity, clean.json);
      if (stored !== clean.json) upsert.push([entity, clean.json]);
    }
    // Every stored entity evaluated again: nothing to remove, no walk over the stored ones.
    const remove: string[] = [];
    if (!partial && kept !== storedCount) for (const entity of json.keys()) if (!evaluated.has(entity)) remove.push(entity);
    for (const entity of remove) {
      json.delete(entity);
      states.delete(entity);
    }
    // Every state left was evaluated now: its text is exactly its JSON.
    cached.exact = true;
    return new StateDiff(upsert, remove, { version: cached.version, all: json });
  }
}

/** A rule's stored state alerts (or its rule-failing, cause or incident alerts'), each checked. */
export async function loadActive(store: StateStore, rule: string, storeRule = rule): Promise<ActiveAlert[]> {
  return (await store.loadActive(storeRule)).map((row) => {
    const active = readActive(row);
    if ('invalid' in active) throw new StoreError(`stored alert "${row.key}" of rule "${rule}" is invalid: ${active.invalid}`);
    return active;
  });
}

/** loadActive of several store rules (a spread rule's parts) as one list, each checked. */
export async function loadActiveOf(store: StateStore, rule: string, storeRules: readonly string[]): Promise<ActiveAlert[]> {
  return [...(await store.loadActiveOf(storeRules)).values()].flat().map((row) => {
    const active = readActive(row);
    if ('invalid' in active) throw new StoreError(`stored alert "${row.key}" of rule "${rule}" is invalid: ${active.invalid}`);
    return active;
  });
}

/** A store rule's state rows parsed into `states` and kept as text in `json`. Never guessed: a row that does not parse would replay or hide alerts. */
export function readRows(kind: string, storeRule: string, rows: Iterable<{ entity: string; state: string }>, states: Map<string, unknown>, json: Map<string, string>): void {
  const schema = ruleKind(kind).state;
  for (const { entity, state } of rows) {
    const parsed = schema.safeParse(JSON.parse(state));
    if (!parsed.success) throw new StoreError(`stored state of rule "${storeRule}" entity "${entity}" is invalid: ${parsed.error.message}`);
    states.set(entity, parsed.data);
    json.set(entity, state);
  }
}

/**
 * The rows in the order of `order`, then the rest as they came. At 100k entities a poll that
 * walks its states out of the order it looks them up in took half as long again.
 */
function rowsInOrder<R extends { entity: string }>(rows: readonly R[], order: readonly string[]): R[] {
  const byEntity = new Map(rows.map((r) => [r.entity, r]));
  const out: R[] = [];
  for (const entity of order) {
    const row = byEntity.get(entity);
    if (row === undefined) continue;
    out.push(row);
    byEntity.delete(entity);
  }
  for (const row of byEntity.values()) out.push(row);
  return out;
}
