import { describe, expect, it } from 'vitest';
import { inShard, parseShard, ruleShard, SHARDS } from './shard.js';

describe('--shard I/N', () => {
  const names = Array.from({ length: 300 }, (_, i) => `rule-${i}`);

  it('puts every rule on exactly one shard, spread about evenly', () => {
    const shards = [1, 2, 3].map((index) => names.filter((n) => inShard(n, { index, count: 3 })));
    expect(shards.flat().sort()).toEqual([...names].sort());
    for (const s of shards) expect(s.length).toBeGreaterThan(70);
  });

  it('depends on the name only, the same in every version: instances mid-upgrade still agree', () => {
    const shipped = ['my-validators', 'validation-ending', 'l1-balance', 'c-chain-tx-drop', 'delegations', 'icm-stuck', 'daily-export'];
    const shardOf = (n: string) => [1, 2, 3].find((index) => inShard(n, { index, count: 3 }));
    // Pinned: changing the hash would move rules between running instances.
    expect(shipped.map(shardOf)).toEqual([2, 2, 3, 1, 3, 2, 3]);
  });

  it('reads I/N and refuses what is not one', () => {
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 });
    for (const bad of ['0/3', '4/3', '1', '1/0', 'a/b', '1/2/3', '-1/2']) expect(parseShard(bad)).toBeUndefined();
  });
});

describe('a rule\'s shard of shared state', () => {
  it('is FNV-1a of the name mod 256: the published test vectors, so every instance and version agrees', () => {
    // FNV-1a 32: "" 0x811c9dc5, "a" 0xe40c292c, "foobar" 0xbf9cf968 (their low bytes).
    expect(['', 'a', 'foobar'].map(ruleShard)).toEqual([0xc5, 0x2c, 0x68]);
  });

  it('spreads rule names over every shard', () => {
    const counts = new Array<number>(SHARDS).fill(0);
    for (let i = 0; i < 25_600; i++) counts[ruleShard(`rule-${i}`)]! += 1;
    expect(Math.min(...counts)).toBeGreaterThan(50);
    expect(Math.max(...counts)).toBeLessThan(170);
  });
});
