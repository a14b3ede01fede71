/**
 * Splits one evaluation by owner entity → shard (docs/design/entity-spread.md §3 "Partition").
 * Pure. What has no owner it can tell goes to `ruleWide`:
 * nothing is dropped here (choosing what a holder keeps is the caller's).
 */
import type { AlertDraft, Condition } from '../base/types.js';
import { ownersOf } from '../rules/spread.js';
import type { Evaluation, Spread } from '../rules/types.js';

/** One shard's share of an evaluation (or the rule-wide rest). */
export interface Part<S> {
  states: Map<string, S>;
  conditions: Condition[];
  events: AlertDraft[];
  failed: Record<string, string>;
}

export interface Partitioned<S> {
  shards: Map<number, Part<S>>;
  ruleWide: Part<S>;
}

export interface PartitionInput<Spec, S> {
  spread: Spread<Spec, S>;
  /** The unnarrowed spec (owners such as delegation-end's read it). */
  full: Spec;
  evaluation: Evaluation<S>;
  previous: ReadonlyMap<string, S>;
  shardOf: (entity: string) => number;
}

export function emptyPart<S>(): Part<S> {
  return { states: new Map(), conditions: [], events: [], failed: {} };
}

export function partition<Spec, S>({ spread, full, evaluation, previous, shardOf }: PartitionInput<Spec, S>): Partitioned<S> {
  const shards = new Map<number, Part<S>>();
  const ruleWide = emptyPart<S>();
  const stateOf = (key: string): S | undefined => evaluation.states.get(key) ?? previous.get(key);
  const owners = ownersOf(spread, full, stateOf);
  const partOf = (owner: string | undefined): Part<S> => {
    if (owner === undefined) return ruleWide;
    const shard = shardOf(owner);
    // A shardOf that cannot place the owner: rule-wide, as one with no owner.
    return Number.isInteger(shard) ? shardPart(shards, shard) : ruleWide;
  };

  for (const [key, st] of evaluation.states) {
    const split = spread.split?.(key, st, shardOf, full);
    if (split) {
      for (const [shard, piece] of split) shardPart(shards, shard).states.set(key, piece);
      continue;
    }
    partOf(owners.state(key, st)).states.set(key, st);
  }
  for (const c of evaluation.conditions ?? []) partOf(owners.alert(c)).conditions.push(c);
  for (const a of evaluation.alerts) partOf(owners.alert({ subject: a.subject, labels: a.labels })).events.push(a);
  for (const [key, why] of Object.entries(evaluation.failed ?? {})) partOf(owners.failed(key)).failed[key] = why;
  return { shards, ruleWide };
}

function shardPart<S>(shards: Map<number, Part<S>>, shard: number): Part<S> {
  let part = shards.get(shard);
  if (!part) shards.set(shard, (part = emptyPart()));
  return part;
}

/**
 * The rows of several parts as one map, as the engine loads a spread rule: a key in more than
 * one part (a split row) is merged by the kind; elsewhere a key is in one part only.
 */
export function mergeParts<Spec, S>(spread: Spread<Spec, S>, parts: Iterable<ReadonlyMap<string, S>>): Map<string, S> {
  // One map, and a list only for the few keys in several parts: at 100,000 keys a list for each was a tenth of a cycle.
  const out = new Map<string, S>();
  let several: Map<string, S[]> | undefined;
  for (const part of parts) {
    for (const [key, st] of part) {
      if (!out.has(key)) out.set(key, st);
      else {
        several ??= new Map();
        several.set(key, [...(several.get(key) ?? [out.get(key) as S]), st]);
      }
    }
  }
  for (const [key, rows] of several ?? []) out.set(key, spread.merge ? spread.merge(key, rows) : (rows[rows.length - 1] as S));
  return out;
}
