import { z } from 'zod';
import { durationMs } from '../../base/fields.js';
import { network, nodeIds, subnetId } from '../fields.js';
import { period } from '../validators.js';

export const spec = z.strictObject({
  network,
  nodeIds,
  subnetId,
  /** Fire at the largest, escalate at each smaller one. */
  warnBefore: z
    .array(durationMs)
    .min(1)
    .default([1_209_600_000, 259_200_000, 86_400_000])
    .transform((list) => [...new Set(list)].sort((a, b) => b - a)),
});
export type Spec = z.output<typeof spec>;

/** The period avawatch last saw as the node's current one (kept when the node drops out of the list). */
export const state = z.object({ period: period.nullable() });
export type State = z.output<typeof state>;
