import { createHash } from 'node:crypto';

// CB58: base58 (Bitcoin alphabet) of payload ‖ last 4 bytes of sha256(payload), as Avalanche writes ids.
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const VALUE = new Map([...ALPHABET].map((c, i) => [c, BigInt(i)]));

/** The bytes a base58 text encodes; undefined for a character outside the alphabet. */
export function base58Decode(text: string): Uint8Array | undefined {
  let n = 0n;
  for (const c of text) {
    const v = VALUE.get(c);
    if (v === undefined) return undefined;
    n = n * 58n + v;
  }
  const bytes: number[] = [];
  while (n > 0n) {
    bytes.push(Number(n & 0xffn));
    n >>= 8n;
  }
  // Each leading "1" is a leading zero byte.
  for (const c of text) {
    if (c !== '1') break;
    bytes.push(0);
  }
  return Uint8Array.from(bytes.reverse());
}

/** base58 of payload ‖ checksum: the text Avalanche writes for an id. */
export function cb58Encode(payload: Uint8Array): string {
  const data = Buffer.concat([payload, createHash('sha256').update(payload).digest().subarray(-4)]);
  let n = BigInt(`0x${data.toString('hex') || '0'}`);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of data) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
}

/** The payload of a CB58 text, or why it is not one. */
export function cb58Decode(text: string): { payload: Uint8Array } | { error: string } {
  const bytes = base58Decode(text);
  if (!bytes) return { error: 'not base58' };
  if (bytes.length < 5) return { error: 'too short' };
  const payload = bytes.subarray(0, bytes.length - 4);
  const sum = createHash('sha256').update(payload).digest().subarray(-4);
  if (!sum.equals(bytes.subarray(bytes.length - 4))) return { error: 'checksum does not match (a typo?)' };
  return { payload };
}

const NODE_ID_BYTES = 20;

/** Why this is not a valid NodeID (`NodeID-` + CB58 of 20 bytes), or undefined when it is. */
export function nodeIdProblem(id: string): string | undefined {
  if (!id.startsWith('NodeID-')) return 'expected a NodeID: "NodeID-" followed by base58 characters';
  const decoded = cb58Decode(id.slice('NodeID-'.length));
  if ('error' in decoded) return decoded.error;
  if (decoded.payload.length !== NODE_ID_BYTES) return `holds ${decoded.payload.length} bytes, a NodeID holds ${NODE_ID_BYTES}`;
  return undefined;
}
