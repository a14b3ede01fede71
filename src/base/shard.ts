import { createHash } from 'node:crypto';

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

/** `I/N` with 1 ≤ I ≤ N. */
export function parseShard(text: string): Shard | undefined {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  if (!m) return undefined;
  const index = Number(m[1]);
  const count = Number(m[2]);
  return index >= 1 && index <= count ? { index, count } : undefined;
}

/**
 * Whether a rule belongs to the shard: by a hash of its name, so every instance agrees
 * without talking to the others, and a rule stays on its shard when others are added.
 */
export function inShard(ruleName: string, shard: Shard): boolean {
  const n = createHash('sha256').update(ruleName).digest().readUInt32BE(0);
  return n % shard.count === shard.index - 1;
}

/** The number of virtual shards of shared state: a rule's shard is a stable hash of its name, mod SHARDS. */
export const SHARDS = 256;

/**
 * A shard of shared state (docs/operations.md "Shared state"): FNV-1a (32 bits) of a rule's
 * name's (or an entity id's) UTF-8, mod SHARDS. Every instance computes it alone and agrees; it never changes
 * with the number of instances, so a rule's state stays where it was when they come and go.
 */
export function shardOf(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % SHARDS;
}

/** A rule's shard (rule-level) is the hash of its name; an entity's (spread by entity) the hash of its id. */
export const ruleShard = shardOf;
