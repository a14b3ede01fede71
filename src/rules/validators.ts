import { z } from 'zod';
import { apiCall } from '../api/catalog.js';
import type { Validator } from '../api/schemas.js';
import { PRIMARY_NETWORK, type Network } from './fields.js';
import { lookupEach, type Outcome } from './lookup.js';
import type { Cost, ObserveContext } from './types.js';

// What the kinds that read validators (validator-status, validation-end) share: one lookup
// per node, the periods of the rule's subnet, and which one is current.

/** NodeID → every period the service lists for it, `not-found` (404), or why its lookup failed. */
export type Observation = Record<string, Outcome<Validator[] | 'not-found'>>;

const LOOKUP_CONCURRENCY = 4;

/** The validation period avawatch last saw as a node's current one. */
export const period = z.object({
  txHash: z.string(),
  status: z.string(),
  startTimestamp: z.number(),
  endTimestamp: z.number(),
});
export type Period = z.output<typeof period>;

/** One lookup per node (shared with validation-end rules watching the same nodes). */
export function validatorLookups(s: { network: string; nodeIds: string[] }): Cost {
  return { calls: s.nodeIds.map((id) => apiCall('GET', `/v1/networks/${s.network}/validators/${id}`)) };
}

/**
 * Every listed node's validation periods on the rule's subnet (the primary network unless
 * it names one): one call per node; a node whose lookup fails fails alone.
 */
export async function observeValidators(s: { network: Network; nodeIds: string[]; subnetId: string }, { data, signal }: ObserveContext): Promise<Observation> {
  const results = await lookupEach(s.nodeIds, LOOKUP_CONCURRENCY, signal, (id) => data.validatorPeriods(s.network, id, signal));
  for (const [id, read] of Object.entries(results)) {
    if (Array.isArray(read) && !read.every((p) => p.subnetId === s.subnetId)) results[id] = read.filter((p) => p.subnetId === s.subnetId);
  }
  return results;
}

/** Said only when a rule reads another subnet than the primary network. */
export function subnetText(s: { subnetId: string }): string {
  return s.subnetId === PRIMARY_NETWORK ? '' : ` subnet ${s.subnetId}`;
}

/** The active period if there is one, else the one that started last. */
export function currentPeriod(periods: readonly Validator[]): Validator {
  const byStart = [...periods].sort((a, b) => b.startTimestamp - a.startTimestamp);
  const active = byStart.find((p) => p.validationStatus === 'active');
  const chosen = active ?? byStart[0];
  if (!chosen) throw new Error('currentPeriod needs at least one period');
  return chosen;
}

export function toPeriod(v: Validator): Period {
  return { txHash: v.txHash, status: v.validationStatus, startTimestamp: v.startTimestamp, endTimestamp: v.endTimestamp };
}
