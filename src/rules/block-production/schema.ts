import { z } from 'zod';
import { durationMs } from '../../base/fields.js';
import { network, nodeIds } from '../fields.js';

export const CHAINS = ['p-chain', 'c-chain', 'x-chain'] as const;
export type Chain = (typeof CHAINS)[number];
const chain = z.enum(CHAINS);

export const spec = z
  .strictObject({
    network,
    nodeIds,
    /** Default: every chain silentFor names (all three when it is one duration). */
    chains: z
      .array(chain)
      .min(1)
      .refine((c) => new Set(c).size === c.length, 'a chain is listed twice')
      .optional(),
    /**
     * Fire when a node has proposed no block on a chain for longer than this: one duration for
     * every chain, or one per chain. No default: it follows the node's share of stake (docs/rules.md).
     */
    silentFor: z.union([durationMs, z.strictObject({ 'p-chain': durationMs.optional(), 'c-chain': durationMs.optional(), 'x-chain': durationMs.optional() })]),
    /** Pages of 100 read for the last hour's count; past them the count is a lower bound. */
    maxPages: z.number().int().min(1).max(10).default(1),
  })
  .superRefine((s, ctx) => {
    if (typeof s.silentFor === 'number') return;
    const named = CHAINS.filter((c) => typeof s.silentFor === 'object' && s.silentFor[c] !== undefined);
    if (named.length === 0) ctx.addIssue({ code: 'custom', path: ['silentFor'], message: 'give a duration, or one per chain (p-chain, c-chain, x-chain)' });
    for (const c of s.chains ?? []) {
      if (!named.includes(c)) ctx.addIssue({ code: 'custom', path: ['silentFor', c], message: `no duration for ${c}: give one, or leave ${c} out of chains` });
    }
  });
export type Spec = z.output<typeof spec>;

/** The chains a rule watches: `chains`, else those silentFor names, else all three. */
export function chainsOf(s: Spec): Chain[] {
  if (s.chains) return s.chains;
  const per = s.silentFor;
  return typeof per === 'number' ? [...CHAINS] : CHAINS.filter((c) => per[c] !== undefined);
}

export function silentForOf(s: Spec, c: Chain): number {
  return typeof s.silentFor === 'number' ? s.silentFor : (s.silentFor[c] ?? Infinity);
}

/** A block listed with a time in milliseconds (read in seconds), ahead of the clock or not a time (ignored). */
export const oddBlock = z.object({
  number: z.string(),
  /** The time as listed, as text (it may be 1e400, Infinity once read). */
  stamped: z.string(),
  why: z.enum(['milliseconds', 'ahead', 'invalid']).catch('invalid'),
  seenAt: z.number(),
});
export type OddBlock = z.output<typeof oddBlock>;

/** One node on one chain (key `node:chain`). Times are unix seconds. */
export const state = z.object({
  nodeId: z.string(),
  chain: z.string(),
  /** When avawatch first read this node and chain: "silent since" for a node with no block listed. */
  firstLookedAt: z.number(),
  /** The last successful read. */
  checkedAt: z.number(),
  lastBlockAt: z.number().optional(),
  lastBlockNumber: z.string().optional(),
  /** Blocks proposed in the hour before checkedAt; a lower bound when `hourComplete` is false. */
  hourCount: z.number(),
  hourComplete: z.boolean(),
  /**
   * When the node's active validation started (0: its start was no time); null when it does
   * not validate (no silence alert then). Absent: not known (taken as validating).
   */
  periodStart: z.number().nullable().optional(),
  /** The last odd block time met, said in the alert's details until the node's newest block changes. */
  oddBlock: oddBlock.optional(),
});
export type State = z.output<typeof state>;
