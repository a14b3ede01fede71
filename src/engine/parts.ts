/**
 * A rule spread by entity over a shared store (docs/design/entity-spread.md): its rows live in
 * part store rules `name#SSS`, SSS the shard of the entities they are of. This instance narrows
 * the rule to the entities of the shards it holds, reads those parts together, and commits what
 * the evaluation found back to each owner's part.
 */
import type { ActiveAlert } from '../alerts/lifecycle.js';
import { scrubState, type Redact } from '../alerts/pipeline/scrub.js';
import { shardOf } from '../base/shard.js';
import type { LoadedRule } from '../config/load.js';
import { ruleKind } from '../rules/registry.js';
import type { AlertDraft, Condition } from '../base/types.js';
import type { Evaluation, Spread } from '../rules/types.js';
import { StateDiff, type StateStore } from '../store/index.js';
import { mergeParts, partition } from './partition.js';
import { loadActiveOf, readRows } from './states.js';

/** A part's store rule: `name#SSS`. A rule name cannot hold `#`, so the suffix is never the name's own. */
export function partName(rule: string, shard: number): string {
  return `${rule}#${String(shard).padStart(3, '0')}`;
}

/** The shard of a part's store rule, or undefined for a store rule that is no part. */
export function partShard(storeRule: string): number | undefined {
  const m = /#(\d{3})$/.exec(storeRule);
  return m ? Number(m[1]) : undefined;
}

/** The rule a store rule is of: a part's suffix cut off. */
export function ofPart(storeRule: string): string {
  return partShard(storeRule) === undefined ? storeRule : storeRule.slice(0, -4);
}

/**
 * The kind's spread, when this rule is spread by entity: only on a shared store, only a spec
 * naming entities, and only where spreading saves work (`worthSpreading`). Decided once per
 * loaded rule: every instance has the same config, so all decide alike.
 */
export function spreadOf(store: Pick<StateStore, 'shards'>, rule: LoadedRule): Spread<unknown, unknown> | undefined {
  return store.shards === undefined ? undefined : decided(rule);
}

/** Whether this rule is spread by entity on a shared store (`avawatch check` says so). */
export function spreadsByEntity(rule: LoadedRule): boolean {
  return decided(rule) !== undefined;
}

const decisions = new WeakMap<LoadedRule, Spread<unknown, unknown> | undefined>();

function decided(rule: LoadedRule): Spread<unknown, unknown> | undefined {
  if (!decisions.has(rule)) decisions.set(rule, spreadWorthIt(rule));
  return decisions.get(rule);
}

function spreadWorthIt(rule: LoadedRule): Spread<unknown, unknown> | undefined {
  const kind = ruleKind(rule.kind);
  const spread = kind.spread as Spread<unknown, unknown> | undefined;
  const entities = spread?.entities(rule.spec);
  return spread && entities && worthSpreading(entities, (spec) => kind.cost(spec).calls.length, rule.spec, spread) ? spread : undefined;
}

/**
 * Whether spreading a rule's entities over instances saves work. It does when its poll makes
 * more Data API calls than a rule of one of its entities would (its bulk lists run past one
 * page of 100 nodes, or it asks per node), or when it reads only the operator's own nodes (no
 * compute units). A rule whose poll is one page of lists stays whole: spread, every instance
 * holding one of its entities would make those calls again for its share (ten small rules on
 * five instances: five times the compute units).
 */
export function worthSpreading<Spec>(entities: readonly string[], calls: (spec: Spec) => number, spec: Spec, spread: Pick<Spread<Spec, unknown>, 'narrow'>): boolean {
  if (entities.length < 2) return false;
  const whole = calls(spec);
  if (whole === 0) return true;
  const first = entities[0];
  return whole > calls(spread.narrow(spec, (e) => e === first));
}

/** The shards of a spread rule's entities; undefined for a rule-level one. */
export function entityShards(store: Pick<StateStore, 'shards'>, rule: LoadedRule): Set<number> | undefined {
  return spreadOf(store, rule) && placed(rule).shards;
}

/** Each entity's shard and the set of them, hashed once per loaded rule (100,000 hashes a cycle were a tenth of one). */
function placed(rule: LoadedRule): { of: Map<string, number>; shards: Set<number> } {
  let p = placements.get(rule);
  if (!p) {
    const of = new Map((ruleKind(rule.kind).spread?.entities(rule.spec) ?? []).map((e) => [e, shardOf(e)] as const));
    placements.set(rule, (p = { of, shards: new Set(of.values()) }));
  }
  return p;
}

const placements = new WeakMap<LoadedRule, { of: Map<string, number>; shards: Set<number> }>();

/** An entity's shard: the rule's own ones looked up, any other (an owner it found, an address) hashed. */
function shardIn(rule: LoadedRule): (entity: string) => number {
  const { of } = placed(rule);
  return (entity) => of.get(entity) ?? shardOf(entity);
}

/** A spread rule as this instance evaluates it: the spec narrowed to the entities of the shards it holds. */
export interface Narrowed {
  full: LoadedRule;
  rule: LoadedRule;
  spread: Spread<unknown, unknown>;
  /** The held shards of its entities, ascending; the first is the anchor part (rule-wide rows). */
  shards: readonly number[];
  /** An entity's shard (the rule's own looked up). */
  shardOf: (entity: string) => number;
}

/**
 * Narrowed rules, kept per loaded rule while the held shards stay the same: the kind's memo
 * (bulk batches) hangs on the narrowed rule, so it is rebuilt only when shards move.
 */
export class Narrowing {
  readonly #kept = new WeakMap<LoadedRule, { key: string; narrowed: Narrowed }>();

  of(store: Pick<StateStore, 'shards'>, rule: LoadedRule, holds: (shard: number) => boolean): Narrowed | undefined {
    const spread = spreadOf(store, rule);
    if (!spread) return undefined;
    const shards = [...(entityShards(store, rule) ?? [])].filter(holds).sort((a, b) => a - b);
    const key = shards.join(',');
    const kept = this.#kept.get(rule);
    if (kept?.key === key) return kept.narrowed;
    const held = new Set(shards);
    const shardOfEntity = shardIn(rule);
    const narrowed = { full: rule, rule: { ...rule, spec: spread.narrow(rule.spec, (e) => held.has(shardOfEntity(e))) as LoadedRule['spec'] }, spread, shards, shardOf: shardOfEntity };
    this.#kept.set(rule, { key, narrowed });
    return narrowed;
  }
}

/** The held parts of a spread rule as read together. */
export interface LoadedParts {
  /** Store rule of each held part, by shard. */
  names: Map<number, string>;
  revisions: Map<string, number>;
  /** Each part's rows as stored (JSON text). */
  json: Map<string, Map<string, string>>;
  /** Every held part's states as one map (split rows merged). */
  states: Map<string, unknown>;
  active: ActiveAlert[];
}

/** The held parts' states and state alerts, each read in one query; a row that does not parse is an error, as a rule's is. */
export async function loadParts(store: StateStore, n: Narrowed): Promise<LoadedParts> {
  const names = new Map(n.shards.map((s) => [s, partName(n.full.name, s)]));
  const rows = await store.stateRowsOf([...names.values()]);
  const revisions = new Map<string, number>();
  const json = new Map<string, Map<string, string>>();
  const parsed: Array<Map<string, unknown>> = [];
  for (const [part, { rows: partRows, revision }] of rows) {
    revisions.set(part, revision);
    const texts = new Map<string, string>();
    const states = new Map<string, unknown>();
    readRows(n.full.kind, part, partRows, states, texts);
    json.set(part, texts);
    parsed.push(states);
  }
  const active = await loadActiveOf(store, n.full.name, [...names.values()]);
  return { names, revisions, json, states: mergeParts(n.spread, parsed), active };
}

/** What each held part writes: only what changed against its stored text, every part's revision checked. */
export function diffParts(loaded: LoadedParts, found: ReadonlyMap<number, ReadonlyMap<string, unknown>>, redact: Redact): Array<{ storeRule: string; states: StateDiff; expectRevision: number }> {
  return [...loaded.names].map(([shard, storeRule]) => {
    const stored = loaded.json.get(storeRule) ?? new Map<string, string>();
    const now = found.get(shard) ?? new Map<string, unknown>();
    const upsert: Array<[string, string]> = [];
    for (const [entity, raw] of now) {
      // The very state kept (a kind gives back an unchanged one as it was): its stored text stands.
      // Encoding every state of 100,000 each cycle was a third of one.
      if (raw === loaded.states.get(entity) && stored.has(entity)) continue;
      const text = JSON.stringify(raw);
      if (text === stored.get(entity)) continue;
      // A state may keep the service's text (an error message): scrubbed as the alerts are.
      const clean = scrubState(raw, redact, text).json;
      if (clean !== stored.get(entity)) upsert.push([entity, clean]);
    }
    const remove = [...stored.keys()].filter((e) => !now.has(e));
    return { storeRule, states: new StateDiff(upsert, remove), expectRevision: loaded.revisions.get(storeRule) ?? 0 };
  });
}

/** The held part a state alert is kept in: its owner's, or the anchor's for a rule-wide one (or one of a shard not held). */
export function activePart(n: Narrowed, loaded: LoadedParts, stateOf: (key: string) => unknown): (a: ActiveAlert) => string {
  const anchor = loaded.names.get(n.shards[0]!)!;
  return (a) => {
    const c = a.condition;
    const owner = n.spread.alertOwner ? n.spread.alertOwner({ key: c.key, subject: c.subject, labels: c.labels }, stateOf, n.full.spec) : c.labels['node'];
    return (owner !== undefined && loaded.names.get(n.shardOf(owner))) || anchor;
  };
}

/** What of one evaluation this instance keeps: its held parts' share, the rule-wide rest on the anchor part. */
export interface HeldShare {
  /** Each held shard's states (every held shard present, maybe empty). */
  states: Map<number, Map<string, unknown>>;
  conditions: Condition[] | undefined;
  events: AlertDraft[];
  failed: Record<string, string>;
}

/**
 * The evaluation partitioned by owner shard; what belongs to a shard not held here is dropped
 * (its holder evaluates it: a delegation seen under a node here and an address there).
 * Conditions and events keep the evaluation's order.
 */
export function heldShare(n: Narrowed, evaluation: Evaluation<unknown>, previous: ReadonlyMap<string, unknown>, dropped: (shards: number[]) => void): HeldShare {
  const p = partition({ spread: n.spread, full: n.full.spec, evaluation, previous, shardOf: n.shardOf });
  const states = new Map(n.shards.map((s) => [s, new Map<string, unknown>()]));
  const anchor = states.get(n.shards[0]!)!;
  const gone = new Set<unknown>();
  const failed: Record<string, string> = { ...p.ruleWide.failed };
  for (const [key, st] of p.ruleWide.states) anchor.set(key, st);
  const strays: number[] = [];
  for (const [shard, part] of p.shards) {
    const mine = states.get(shard);
    if (!mine) {
      strays.push(shard);
      for (const x of [...part.conditions, ...part.events]) gone.add(x);
      continue;
    }
    for (const [key, st] of part.states) mine.set(key, st);
    Object.assign(failed, part.failed);
  }
  if (strays.length > 0) dropped(strays);
  return {
    states,
    conditions: evaluation.conditions?.filter((c) => !gone.has(c)),
    events: evaluation.alerts.filter((a) => !gone.has(a)),
    failed,
  };
}
