import { createHash } from 'node:crypto';
import { cb58Encode } from '../../src/base/cb58.js';
import { shardOf } from '../../src/base/shard.js';

/**
 * A valid NodeID (its CB58 checksum matches) made from a seed, for fixtures that need many
 * nodes: the loader refuses a NodeID whose checksum does not match. Always 33 characters after
 * `NodeID-`, as most mainnet ones are.
 */
export function testNodeId(seed: string | number): string {
  for (let salt = 0; ; salt++) {
    const bytes = createHash('sha256').update(`${seed}/${salt}`).digest().subarray(0, 20);
    const id = cb58Encode(bytes);
    if (id.length === 33) return `NodeID-${id}`;
  }
}

/**
 * `count` more NodeIDs, none on the shard of any of `apart`: with them a rule runs past one page
 * of the bulk list (100 nodes), so on a shared store it is spread by entity (engine/parts.ts,
 * worthSpreading), and the nodes a test names keep their shards to themselves.
 */
export function nodesApart(count: number, apart: readonly string[]): string[] {
  const taken = new Set(apart.map(shardOf));
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) {
    const id = testNodeId(`apart-${i}`);
    if (!taken.has(shardOf(id))) out.push(id);
  }
  return out;
}
