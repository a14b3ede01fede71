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

/** Per validation ID: the balance and the burn measured from it (l1-burn.ts). */
export { burnState as state, type BurnState as State } from '../l1-burn.js';
