import { z } from 'zod';
import { network, nodeIds, subnetId } from '../fields.js';
import { period } from '../validators.js';

export const spec = z.strictObject({ network, nodeIds, subnetId });
export type Spec = z.output<typeof spec>;

export const state = z.object({
  period: period.nullable(),
  /** The service did not list the node at the last poll (reported once, when it happened). */
  missing: z.boolean(),
});
export type State = z.output<typeof state>;
