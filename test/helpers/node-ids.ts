import { createHash } from 'node:crypto';
import { cb58Encode } from '../../src/base/cb58.js';

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
