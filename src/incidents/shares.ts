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

/**
 * The operator's stake on the network the validators carry: their stake (own and delegated)
 * over that of every own validator there; undefined while one of those is unknown.
 */
export function ownShareOf(nodeIds: ReadonlySet<string>, fleet: readonly string[], stakeOf: (nodeId: string) => number | undefined): number | undefined {
  let total = 0;
  let affected = 0;
  for (const id of new Set(fleet)) {
    const s = stakeOf(id);
    if (s === undefined || !(s >= 0)) return undefined;
    total += s;
    if (nodeIds.has(id)) affected += s;
  }
  return total > 0 ? affected / total : undefined;
}
