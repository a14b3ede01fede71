/**
 * l1-liveness by L1: the subnet ids its `subnets` lists. Narrowing filters each node's list;
 * `l1Nodes` still picks the same node per subnet, as it skips only other subnets.
 */
import type { Spread } from '../types.js';
import type { Spec, State } from './schema.js';

export const spread: Spread<Spec, State> = {
  // Not filled yet (from-inventory): nothing to spread.
  entities: (s) => (typeof s.subnets === 'string' ? undefined : [...new Set(Object.values(s.subnets).flat())]),
  narrow(s, keep) {
    if (typeof s.subnets === 'string') return s;
    return { ...s, subnets: Object.fromEntries(Object.entries(s.subnets).map(([node, list]) => [node, list.filter((id) => keep(id))])) };
  },
  // Keyed by subnet; its conditions carry the node that was read, the subnet owns them.
  alertOwner: (a) => a.labels['subnet'],
};
