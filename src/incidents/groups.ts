import type { InventoryValidator } from '../inventory/schema.js';

// Fleet groups: the validators of one network sharing an inventory label's value. Built from
// the inventory, not from alerts, so a group knows its quiet members too.

export interface Group {
  network: string;
  label: string;
  value: string;
  /** `label=value`. */
  name: string;
  /** Its members' NodeIDs, sorted. */
  nodeIds: string[];
}

/** testnet and fuji are one network: one group. */
export function networkKey(network: string): string {
  return network === 'testnet' ? 'fuji' : network;
}

/**
 * The groups of the inventory, most specific first: in `groupBy`'s order, then by network and
 * value. A label's value on one validator only is no group: that validator is judged alone.
 */
export function groupsOf(inventory: readonly InventoryValidator[], groupBy: readonly string[]): Group[] {
  const groups: Group[] = [];
  for (const label of groupBy) {
    const byValue = new Map<string, Group>();
    for (const v of inventory) {
      const value = v.labels[label];
      if (value === undefined || value === '') continue;
      const network = networkKey(v.network);
      const id = `${network}\u0000${value}`;
      let g = byValue.get(id);
      if (!g) byValue.set(id, (g = { network, label, value, name: `${label}=${value}`, nodeIds: [] }));
      g.nodeIds.push(v.nodeId);
    }
    const found = [...byValue.values()].filter((g) => g.nodeIds.length >= 2);
    found.sort((a, b) => (a.network === b.network ? (a.value < b.value ? -1 : 1) : a.network < b.network ? -1 : 1));
    for (const g of found) groups.push({ ...g, nodeIds: [...g.nodeIds].sort() });
  }
  return groups;
}
