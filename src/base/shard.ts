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
