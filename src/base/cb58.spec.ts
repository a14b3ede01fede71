import { describe, expect, it } from 'vitest';
import { base58Decode, cb58Decode, cb58Encode, nodeIdProblem } from './cb58.js';

// Mainnet NodeIDs the simulator's demo and fixtures use.
const MAINNET = ['NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ', 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu', 'NodeID-NFBbbJ4qCmNaCzeW7sxErhvWqvEQMnYcN', 'NodeID-P7oB2McjBGgW2NXXWVYjV8JEDFoW9xDE5'];

describe('cb58', () => {
  it('accepts real mainnet NodeIDs and round-trips their 20 bytes', () => {
    for (const id of MAINNET) {
      expect(nodeIdProblem(id)).toBeUndefined();
      const decoded = cb58Decode(id.slice('NodeID-'.length));
      if (!('payload' in decoded)) throw new Error(decoded.error);
      expect(decoded.payload).toHaveLength(20);
      expect(`NodeID-${cb58Encode(decoded.payload)}`).toBe(id);
    }
  });

  it('says a one-character typo does not match its checksum', () => {
    expect(nodeIdProblem('NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lh')).toBe('checksum does not match (a typo?)');
    expect(nodeIdProblem('NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3L')).toBe('checksum does not match (a typo?)');
  });

  it('keeps leading zero bytes as leading 1s', () => {
    expect(nodeIdProblem('NodeID-111111111111111111116DBWJs')).toBeUndefined();
    expect(base58Decode('11z')).toEqual(Uint8Array.from([0, 0, 57]));
  });

  it('names what is not a NodeID', () => {
    expect(nodeIdProblem('7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg')).toMatch(/^expected a NodeID/);
    expect(nodeIdProblem('NodeID-0OIl')).toBe('not base58');
    expect(nodeIdProblem(`NodeID-${cb58Encode(new Uint8Array(32).fill(7))}`)).toBe('holds 32 bytes, a NodeID holds 20');
  });
});
