import { z } from 'zod';
import { durationMs } from '../../base/fields.js';
import { network, nodeId } from '../fields.js';

// P-chain addresses come back bare (avax1…); filters may carry P-/X-: compare them bare.
const address = z
  .string()
  .regex(/^([PX]-)?(avax|fuji|local)1[02-9ac-hj-np-z]{38}$/, 'expected a P-chain address such as P-avax1…')
  .transform((a) => a.replace(/^[PX]-/, ''));

export const spec = z
  .strictObject({
    network,
    nodeIds: z.array(nodeId).min(1).optional(),
    rewardAddresses: z.array(address).min(1).optional(),
    /** Fire while a delegation ends within the largest; escalate at each smaller one. */
    warnBefore: z
      .union([durationMs.transform((d) => [d]), z.array(durationMs).min(1)])
      .transform((list) => [...new Set(list)].sort((a, b) => b - a))
      .optional(),
    /** An info event for each new delegation. */
    notifyNew: z.boolean().default(false),
    /**
     * An event (info) when a watched node can no longer accept a new delegation: its validation
     * (or an auto-renewed validator's cycle) ends before the shortest a delegation may last (14
     * days on Mainnet), and a delegation must fit inside it; another when it can again.
     */
    delegationWindow: z.boolean().default(true),
  })
  .refine((s) => s.nodeIds ?? s.rewardAddresses, { message: 'set nodeIds, rewardAddresses or both' });
export type Spec = z.output<typeof spec>;

const delegation = z.object({
  nodeId: z.string(),
  /** nAVAX, exact. */
  amount: z.string(),
  startTimestamp: z.number(),
  endTimestamp: z.number(),
  rewardAddresses: z.array(z.string()),
});
/** A watched node's active validation as last listed (under `window:<NodeID>`): when it ends, and whether it was closed to new delegations. */
const window = z.object({ validator: z.string(), txHash: z.string(), end: z.number(), closed: z.boolean().optional() });

/**
 * One entry per active delegation, plus a marker of the node ids and reward addresses whose
 * delegations were read whole once (their baseline): after that only new ones are read; and
 * one per watched node's validation (its delegation window).
 */
export const state = z.union([delegation, z.object({ baseline: z.literal(true), entities: z.array(z.string()).optional() }), window]);
export type State = z.output<typeof state>;
export type DelegationState = z.output<typeof delegation>;
export type WindowState = z.output<typeof window>;
export const BASELINE_KEY = '_baseline';
export const WINDOW_PREFIX = 'window:';
