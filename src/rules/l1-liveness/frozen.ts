import type { Epoch } from '../proposervm.js';

// Is an L1's tip frozen? Its next block's epoch (proposervm.getCurrentEpoch) advances only
// when a block seals one; a tip no validator of its P-Chain view can extend never does, and
// every health check stays green (builders-hub proposervm.mdx). The same epoch held for
// `frozenAfter` on the steady clock while the P-Chain's proposed height moves is an old tip;
// the node's block_building_slot tells why: far off (its next turn is beyond the wait) the
// chain is frozen, near (it may build now) the chain is quiet, with no transactions to build.

/** What the rule keeps of the epoch between polls. */
export interface EpochSeen {
  number: number;
  startTime: number;
  pChainHeight: number;
  /** Steady ms it was first seen with this number, and the P-Chain's proposed height then. */
  sinceSteady: number;
  proposedThen: number;
}

export type Verdict = { tip: 'live' } | { tip: 'old'; why: 'frozen' | 'quiet' | 'unknown'; heldMs: number; pChainMoved: number };

/** The slot window (proposer/windower.go WindowDuration). */
export const SLOT_MS = 5_000;

/** The epoch kept for the next poll: a new number (or a restarted steady clock) starts counting again. */
export function nextSeen(before: EpochSeen | undefined, epoch: Epoch, proposed: number, steadyMs: number): EpochSeen {
  if (before && before.number === epoch.number && steadyMs >= before.sinceSteady) return { ...before, startTime: epoch.startTime, pChainHeight: epoch.pChainHeight };
  return { number: epoch.number, startTime: epoch.startTime, pChainHeight: epoch.pChainHeight, sinceSteady: steadyMs, proposedThen: proposed };
}

/**
 * The verdict on one reading. Before Granite the epoch is all zeros: no verdict (live). `slot`
 * is the node's avalanche_proposervm_block_building_slot for the chain, undefined when unread.
 */
export function verdict(seen: EpochSeen, proposed: number, steadyMs: number, frozenAfterMs: number, slot: number | undefined): Verdict {
  const heldMs = steadyMs - seen.sinceSteady;
  const pChainMoved = proposed - seen.proposedThen;
  // A P-Chain that stands still too (the node's own view stuck) says nothing about the L1.
  if (seen.number === 0 || heldMs < frozenAfterMs || pChainMoved <= 0) return { tip: 'live' };
  const why = slot === undefined ? 'unknown' : slot * SLOT_MS >= frozenAfterMs ? 'frozen' : 'quiet';
  return { tip: 'old', why, heldMs, pChainMoved };
}
