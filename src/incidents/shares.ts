import type { Baseline } from './types.js';

// Shares of stake an incident affects, as fractions (0..1). Each validator counts once
// however many of its alerts the incident holds.

/** The network's stake the validators carry, from the baseline's sweep; undefined when it does not know one of them. */
export function networkShareOf(nodeIds: ReadonlySet<string>, baseline: Baseline | undefined): number | undefined {
  if (!baseline?.complete) return undefined;
  let pct = 0;
  for (const id of nodeIds) {
    const f = baseline.figureOf(id);
    if (!f) return undefined;
    pct += f.stakePct;
  }
  return Math.min(1, pct / 100);
}

/** The stake of each of the operator's validators on one network; undefined while one of them is unknown. */
export interface FleetStake {
  total: number;
  of: ReadonlyMap<string, number>;
}

export function fleetStakeOf(fleet: readonly string[], stakeOf: (nodeId: string) => number | undefined): FleetStake | undefined {
  const of = new Map<string, number>();
  let total = 0;
  for (const id of fleet) {
    const s = stakeOf(id);
    if (s === undefined || !(s >= 0)) return undefined;
    if (!of.has(id)) total += s;
    of.set(id, s);
  }
  return total > 0 ? { total, of } : undefined;
}

/** The operator's stake on the network the validators carry: their stake (own and delegated) over that of every own validator there. */
export function ownShareOf(nodeIds: ReadonlySet<string>, fleet: FleetStake | undefined): number | undefined {
  if (!fleet) return undefined;
  let affected = 0;
  for (const id of nodeIds) affected += fleet.of.get(id) ?? 0;
  return affected / fleet.total;
}
