import { describe, expect, it } from 'vitest';
import type { InventoryValidator } from '../inventory/schema.js';
import { groupsOf } from './groups.js';

const v = (name: string, labels: Record<string, string>, network: InventoryValidator['network'] = 'mainnet'): InventoryValidator => ({ nodeId: `NodeID-${name}`, name, network, labels });

describe('groupsOf', () => {
  it('groups validators sharing a label value on one network, most specific label first', () => {
    const inventory = [v('a', { host: 'h1', region: 'eu' }), v('b', { host: 'h1', region: 'eu' }), v('c', { host: 'h2', region: 'eu' }), v('d', { host: 'h2', region: 'us' })];
    expect(groupsOf(inventory, ['host', 'region']).map((g) => `${g.network} ${g.name}: ${g.nodeIds.join(',')}`)).toEqual([
      'mainnet host=h1: NodeID-a,NodeID-b',
      'mainnet host=h2: NodeID-c,NodeID-d',
      'mainnet region=eu: NodeID-a,NodeID-b,NodeID-c',
    ]);
  });

  it('a label on one validator only is no group; an empty value and an unlisted label are none either', () => {
    const inventory = [v('a', { host: 'h1', team: 'x' }), v('b', { host: 'h2', team: 'x' }), v('c', { host: '' }), v('d', { host: '' })];
    expect(groupsOf(inventory, ['host'])).toEqual([]);
  });

  it('the same value on two networks is two groups of one: none; testnet and fuji are one network', () => {
    expect(groupsOf([v('a', { host: 'h1' }, 'mainnet'), v('b', { host: 'h1' }, 'fuji')], ['host'])).toEqual([]);
    expect(groupsOf([v('a', { host: 'h1' }, 'testnet'), v('b', { host: 'h1' }, 'fuji')], ['host']).map((g) => [g.network, g.nodeIds.length])).toEqual([['fuji', 2]]);
  });
});
