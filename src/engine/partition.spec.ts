import { describe, expect, it } from 'vitest';
import type { AlertDraft, Condition } from '../base/types.js';
import { spread as delegationSpread } from '../rules/delegation-end/spread.js';
import { spec as delegationSpec, type State as DelegationState } from '../rules/delegation-end/schema.js';
import { validatorHealth } from '../rules/validator-health/index.js';
import type { Spread } from '../rules/types.js';
import { mergeParts, partition } from './partition.js';

const shards: Record<string, number> = { a: 1, b: 2, c: 1 };
const shardOf = (e: string) => shards[e] ?? Number.NaN;
const plain: Spread<{ ids: string[] }, number> = { entities: (s) => s.ids, narrow: (s, keep) => ({ ids: s.ids.filter(keep) }) };
const cond = (key: string, labels: Record<string, string>): Condition => ({ key, subject: key, summary: key, labels, details: {} });
const event = (subject: string, labels: Record<string, string>): AlertDraft => ({ status: 'event', subject, summary: subject, labels, details: {} });

describe('partition', () => {
  it("by default: a state by its key, a condition or event by its node label, a failed key by itself", () => {
    const p = partition({
      spread: plain,
      full: { ids: ['a', 'b', 'c'] },
      evaluation: { states: new Map([['a', 1], ['b', 2], ['c', 3]]), alerts: [event('x', { node: 'b' })], conditions: [cond('a:up', { node: 'a' })], failed: { c: 'timeout' } },
      previous: new Map(),
      shardOf,
    });
    expect([...p.shards.keys()].sort()).toEqual([1, 2]);
    expect(p.shards.get(1)).toEqual({ states: new Map([['a', 1], ['c', 3]]), conditions: [cond('a:up', { node: 'a' })], events: [], failed: { c: 'timeout' } });
    expect(p.shards.get(2)).toEqual({ states: new Map([['b', 2]]), conditions: [], events: [event('x', { node: 'b' })], failed: {} });
    expect(p.ruleWide).toEqual({ states: new Map(), conditions: [], events: [], failed: {} });
  });

  it('what has no owner it can tell goes rule-wide, never dropped: no node label, an entity with no shard, an owner mapping saying none', () => {
    const p = partition({
      spread: plain,
      full: { ids: ['a'] },
      evaluation: { states: new Map([['stranger', 9]]), alerts: [event('x', {})], conditions: [cond('k', { node: 'nobody' })], failed: { ghost: 'why' } },
      previous: new Map(),
      shardOf,
    });
    expect(p.shards.size).toBe(0);
    expect(p.ruleWide).toEqual({ states: new Map([['stranger', 9]]), conditions: [cond('k', { node: 'nobody' })], events: [event('x', {})], failed: { ghost: 'why' } });
    // validator-health: the rule's one P-Chain read is rule-wide, a node's own is the node's.
    const spread = validatorHealth.spread as NonNullable<typeof validatorHealth.spread>;
    // (A shardOf that places any text: only the mapping keeps `p-chain` rule-wide.)
    const health = partition({ spread, full: { nodeIds: ['a'] } as never, evaluation: { states: new Map(), alerts: [], failed: { 'p-chain': 'down', 'a:p-chain': 'slow' } }, previous: new Map(), shardOf: () => 1 });
    expect([health.ruleWide.failed, health.shards.get(1)?.failed]).toEqual([{ 'p-chain': 'down' }, { 'a:p-chain': 'slow' }]);
  });

  it("delegation-end: a delegation is its node's when the full spec watches the node, else its first watched address's; its events follow it", () => {
    const full = delegationSpec.parse({ network: 'mainnet', nodeIds: ['NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg'], rewardAddresses: ['avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw'] });
    const node = full.nodeIds?.[0] as string;
    const address = full.rewardAddresses?.[0] as string;
    const at = { [node]: 3, [address]: 4 };
    const d = (nodeId: string): DelegationState => ({ nodeId, amount: '1', startTimestamp: 0, endTimestamp: 1, rewardAddresses: [`P-${address}`] });
    const ended = event('t2', { node: 'NodeID-other' });
    const p = partition({
      spread: delegationSpread,
      full,
      evaluation: { states: new Map([['t1', d(node)], [`window:${node}`, { validator: node, txHash: 'v', end: 1 }]]), alerts: [ended], conditions: [cond('t1', { node })] },
      // t2 ended: its state is only in `previous`, and says who owned it.
      previous: new Map([['t2', d('NodeID-other')]]),
      shardOf: (e) => at[e] ?? Number.NaN,
    });
    expect([...(p.shards.get(3)?.states.keys() ?? [])]).toEqual(['t1', `window:${node}`]);
    expect(p.shards.get(3)?.conditions.map((c) => c.key)).toEqual(['t1']);
    expect(p.shards.get(4)?.events).toEqual([ended]);
  });

  it("delegation-end's _baseline: split per shard, merged back whole (union, sorted); a bare legacy marker covers the full spec's entities", () => {
    const full = delegationSpec.parse({ network: 'mainnet', nodeIds: ['NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', 'NodeID-2KVBngjXkeN8nNSZJCEw6XmDrToUW1RJh'], rewardAddresses: ['avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw'] });
    const entities = [...(full.nodeIds ?? []), ...(full.rewardAddresses ?? [])].sort();
    const at = (e: string) => entities.indexOf(e) % 2;
    const marker: DelegationState = { baseline: true, entities };
    const p = partition({ spread: delegationSpread, full, evaluation: { states: new Map([['_baseline', marker]]), alerts: [] }, previous: new Map(), shardOf: at });
    expect([...p.shards].map(([shard, part]) => [shard, part.states.get('_baseline')])).toEqual([
      [0, { baseline: true, entities: [entities[0], entities[2]] }],
      [1, { baseline: true, entities: [entities[1]] }],
    ]);
    expect(mergeParts(delegationSpread, [...p.shards.values()].map((part) => part.states)).get('_baseline')).toEqual(marker);
    const bare = partition({ spread: delegationSpread, full, evaluation: { states: new Map([['_baseline', { baseline: true }]]), alerts: [] }, previous: new Map(), shardOf: at });
    expect(mergeParts(delegationSpread, [...bare.shards.values()].map((part) => part.states)).get('_baseline')).toEqual(marker);
    expect(mergeParts(delegationSpread, [new Map([['_baseline', { baseline: true }]]), new Map([['_baseline', marker]])]).get('_baseline')).toEqual({ baseline: true });
  });
});
