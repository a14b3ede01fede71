import { describe, expect, it } from 'vitest';
import { testNodeId } from '../../test/helpers/node-ids.js';
import type { LoadedRule } from '../config/load.js';
import { ruleKind } from '../rules/registry.js';
import type { SharedShards } from '../store/index.js';
import { diffParts, ofPart, partName, partShard, spreadOf, type LoadedParts } from './parts.js';

const loaded = (json: Record<string, Record<string, string>>, revisions: Record<string, number>): LoadedParts => ({
  names: new Map(Object.keys(json).map((p) => [partShard(p)!, p])),
  revisions: new Map(Object.entries(revisions)),
  json: new Map(Object.entries(json).map(([p, rows]) => [p, new Map(Object.entries(rows))])),
  states: new Map(),
  active: [],
});

describe('parts', () => {
  it("a part's name is the rule's with its shard in three digits; the rule is read back from it", () => {
    expect(partName('ends', 7)).toBe('ends#007');
    expect(partShard('ends#007')).toBe(7);
    expect(partShard('ends')).toBeUndefined();
    expect(ofPart('ends#255')).toBe('ends');
    expect(ofPart('!rule-failing:ends#001')).toBe('!rule-failing:ends');
    expect(ofPart('ends')).toBe('ends');
  });

  it('diff: each held part writes only what changed; a row whose owner moved is removed from its old part and written to the new; every part checks the revision it was read at', () => {
    const parts = loaded({ 'r#001': { a: '1', b: '2' }, 'r#002': { c: '3' } }, { 'r#001': 4, 'r#002': 9 });
    const found = new Map([
      [1, new Map<string, unknown>([['a', 1]])],
      [2, new Map<string, unknown>([['c', 30], ['b', 2]])],
    ]);
    const writes = diffParts(parts, found, (t) => t);
    expect(writes.map((w) => ({ part: w.storeRule, upsert: w.states.upsert, remove: w.states.remove, expect: w.expectRevision }))).toEqual([
      { part: 'r#001', upsert: [], remove: ['b'], expect: 4 },
      { part: 'r#002', upsert: [['c', '30'], ['b', '2']], remove: [], expect: 9 },
    ]);
  });

  it("diff: a state keeping a secret is written scrubbed, and the same scrubbed text is no change", () => {
    const parts = loaded({ 'r#001': { a: '"[REDACTED]"' } }, { 'r#001': 1 });
    const redact = (t: string) => t.replaceAll('secret', '[REDACTED]');
    expect(diffParts(parts, new Map([[1, new Map<string, unknown>([['a', 'secret']])]]), redact)[0]?.states.upsert).toEqual([]);
    expect(diffParts(parts, new Map([[1, new Map<string, unknown>([['a', 'x secret']])]]), redact)[0]?.states.upsert).toEqual([['a', '"x [REDACTED]"']]);
  });

  it('a rule is spread only where that saves work: past one page of its bulk lists, a call per node, or only the own nodes; else it stays whole', () => {
    const shared = { shards: {} as SharedShards };
    const rule = (kind: string, spec: unknown) => ({ name: 'r', kind, severity: 'warning', spec: ruleKind(kind).spec.parse(spec) }) as unknown as LoadedRule;
    const nodes = (n: number) => Array.from({ length: n }, (_, i) => testNodeId(`spread-${i}`));
    const spread = (r: LoadedRule) => spreadOf(shared, r) !== undefined;
    // One page (100 nodes a call): spread, each instance holding one would list again.
    expect(spread(rule('validator-status', { network: 'mainnet', nodeIds: nodes(100) }))).toBe(false);
    expect(spread(rule('validator-status', { network: 'mainnet', nodeIds: nodes(101) }))).toBe(true);
    expect(spread(rule('validator-status', { network: 'mainnet', nodeIds: nodes(1) }))).toBe(false);
    // A call per node: spread costs nothing more.
    expect(spread(rule('l1-validator-balance', { network: 'mainnet', nodeIds: nodes(2), minRunway: '3d' }))).toBe(true);
    // Only the own nodes (no compute units): spread from two.
    const urls = Object.fromEntries(nodes(2).map((n, i) => [n, `http://127.0.0.1:${9650 + i}`]));
    expect(spread(rule('node-health', { network: 'mainnet', urls, outside: false }))).toBe(true);
    // With its outside view (one bulk list of the nodes): whole.
    expect(spread(rule('node-health', { network: 'mainnet', urls }))).toBe(false);
    // One machine's store: never.
    expect(spreadOf({ shards: undefined }, rule('validator-status', { network: 'mainnet', nodeIds: nodes(101) }))).toBeUndefined();
  });
});
