/**
 * Splits one evaluation by owner entity → shard (docs/design/entity-spread.md §3 "Partition").
 * Pure, and not called by the engine yet. What has no owner it can tell goes to `ruleWide`:
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
  const seen = new Map<string, S[]>();
  for (const part of parts) for (const [key, st] of part) seen.set(key, [...(seen.get(key) ?? []), st]);
  const out = new Map<string, S>();
  for (const [key, rows] of seen) {
    if (rows.length === 1 || !spread.merge) out.set(key, rows[rows.length - 1] as S);
    else out.set(key, spread.merge(key, rows));
  }
  return out;
}
