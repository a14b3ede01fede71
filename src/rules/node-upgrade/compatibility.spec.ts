import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTable, protocolOf, readTables, versionKey } from './compatibility.js';

// The compatibility tables an operator gives (`compatibility:`): what is read, and what is said
// of a file that is not.

describe('node-upgrade compatibility tables', () => {
  it("AvalancheGo's shape and a plugin's own are read; a pre-release, a build's commit and a prefix name the same release", () => {
    expect([...parseTable({ '46': ['v1.15.0', '1.15.1'], '45': [] })]).toEqual([
      ['v1.15.0', 46],
      ['v1.15.1', 46],
    ]);
    expect([...parseTable({ rpcChainVMProtocolVersion: { 'v0.8.0': 44, '0.7.9': 0 } })]).toEqual([
      ['v0.8.0', 44],
      ['v0.7.9', 0],
    ]);
    expect(['v0.8.0@abc123', 'avalanchego/1.15.0', '1.15.0-fuji', 'v01.002.3', 'go1.22.8 avalanche/1.13.0'].map(versionKey)).toEqual(['v0.8.0', 'v1.15.0', 'v1.15.0', 'v1.2.3', 'v1.13.0']);
    expect(['banana', 'v1.2', 'x1.2.3', '1.2.34567890', `${' '.repeat(200)}1.2.3`].map(versionKey)).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it('a file of another shape is refused with what is wrong in it', () => {
    const refused = (json: unknown) => {
      try {
        parseTable(json);
        return 'read';
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect([null, [], 'text', 7].map(refused)).toEqual(Array(4).fill('expected a JSON object'));
    expect([null, [], 'x'].map((p) => refused({ rpcChainVMProtocolVersion: p }))).toEqual(Array(3).fill('rpcChainVMProtocolVersion: expected {"v0.8.0": 44, …}'));
    expect(refused({ rpcChainVMProtocolVersion: { 'v0.8.0': '44' } })).toBe('rpcChainVMProtocolVersion.v0.8.0: expected a protocol number');
    expect(refused({ rpcChainVMProtocolVersion: { 'v0.8.0': -1 } })).toBe('rpcChainVMProtocolVersion.v0.8.0: expected a protocol number');
    expect(refused({ rpcChainVMProtocolVersion: { 'v0.8.0': 4.5 } })).toBe('rpcChainVMProtocolVersion.v0.8.0: expected a protocol number');
    expect(refused({ rpcChainVMProtocolVersion: { [`latest${'x'.repeat(100)}`]: 44 } })).toBe(`rpcChainVMProtocolVersion: "latest${'x'.repeat(34)}" is not a version`);
    expect(refused({ v46: ['v1.15.0'] })).toBe('"v46": expected a protocol number as the key ({"46": ["v1.15.0"]})');
    expect(refused({ '1234567': ['v1.15.0'] })).toBe('"1234567": expected a protocol number as the key ({"46": ["v1.15.0"]})');
    expect(refused({ [`4${'6'.repeat(60)}`]: ['v1.15.0'] })).toBe(`"4${'6'.repeat(39)}": expected a protocol number as the key ({"46": ["v1.15.0"]})`);
    expect(refused({ '46': 'v1.15.0' })).toBe('"46": expected a list of versions');
    expect(refused({ '46': ['v1.15.0', 46] })).toBe('"46": expected a list of versions');
    expect(refused({ '46': [`next${'y'.repeat(60)}`] })).toBe(`"46": "next${'y'.repeat(36)}" is not a version`);
  });

  it("the operator's table is asked first, then the shipped ones; a version none lists has no protocol", () => {
    expect(protocolOf('v1.15.0', [])).toBe(46);
    expect(protocolOf('v0.7.4', [])).toBe(40);
    expect(protocolOf('v1.15.0', [new Map([['v1.15.0', 99]])])).toBe(99);
    expect(protocolOf('v1.15.0', [new Map([['v9.9.9', 1]]), new Map([['v1.15.0', 98]])])).toBe(98);
    expect(protocolOf('v9.9.9', [])).toBeUndefined();
    expect(protocolOf('banana', [new Map([['banana', 1]])])).toBeUndefined();
  });

  it('files that do not read or parse are named with why, the others read in order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avawatch-compat-'));
    const good = join(dir, 'good.json');
    const big = join(dir, 'big.json');
    const bad = join(dir, 'bad.json');
    writeFileSync(good, JSON.stringify({ '47': ['v1.16.0'] }));
    writeFileSync(big, ' '.repeat(1024 * 1024 + 1));
    writeFileSync(bad, JSON.stringify({ '47': 'v1.16.0' }));
    const missing = join(dir, 'missing.json');
    const r = await readTables([good, big, bad, missing]);
    expect(r.tables.map((t) => [...t])).toEqual([[['v1.16.0', 47]]]);
    expect(r.errors).toEqual({ [big]: 'over 1048576 bytes', [bad]: '"47": expected a list of versions', [missing]: 'cannot read it (ENOENT)' });
    const exact = join(dir, 'exact.json');
    const table = JSON.stringify({ '47': ['v1.16.0'] });
    // Exactly the largest size read.
    writeFileSync(exact, `${table}${' '.repeat(1024 * 1024 - table.length)}`);
    expect((await readTables([exact])).errors).toEqual({});
  });
});
