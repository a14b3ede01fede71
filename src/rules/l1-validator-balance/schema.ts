import { z } from 'zod';
import { avaxAmount, durationMs } from '../../base/fields.js';
import { network, nodeId } from '../fields.js';

export const spec = z
  .strictObject({
    network,
    subnetId: z.string().min(1).optional(),
    nodeIds: z.array(nodeId).min(1).optional(),
    validationIds: z.array(z.string().min(1)).min(1).optional(),
    /** Fire when the remaining balance is below this many AVAX. */
    minBalance: avaxAmount.optional(),
    /** Fire when the balance lasts less than this at the fee actually burned. */
    minRunway: durationMs.optional(),
  })
  .refine((s) => s.subnetId ?? s.nodeIds ?? s.validationIds, { message: 'set subnetId, nodeIds or validationIds' })
  .refine((s) => s.minBalance !== undefined || s.minRunway !== undefined, { message: 'set minBalance, minRunway or both' });
export type Spec = z.output<typeof spec>;

export const state = z.object({
  nodeId: z.string(),
  subnetId: z.string(),
  /** nAVAX, exact. */
  balance: z.string().regex(/^\d+$/),
  /** When the balance was read (unix s). */
  at: z.number(),
  /** The read the burn is measured from (absent in states written before it was kept apart). */
  since: z.object({ balance: z.string().regex(/^\d+$/), at: z.number(), steady: z.number().optional() }).optional(),
  /** nAVAX per second burned, measured over `burnOver` seconds. */
  burnPerSecond: z.number().nullable(),
  burnOver: z.number().optional(),
  inactive: z.boolean(),
});
export type State = z.output<typeof state>;
