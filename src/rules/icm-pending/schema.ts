import { z } from 'zod';
import { durationMs } from '../../base/fields.js';
import { network } from '../fields.js';

const evmAddress = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'expected an EVM address: 0x and 40 hex digits')
  .transform((a) => a.toLowerCase());

export const spec = z.strictObject({
  network,
  addresses: z.array(evmAddress).min(1),
  /** Fire for a message still pending this long after its source transaction. */
  olderThan: durationMs.default(900_000),
  /** Newest-first pages read per address (100 messages a page). */
  maxPages: z.number().int().min(1).max(100).default(5),
  /** A tracked message not seen for lack of pages is dropped once this old. */
  maxAge: durationMs.default(604_800_000),
});
export type Spec = z.output<typeof spec>;

/** A message avawatch tracks until it is seen delivered: pending, or a status the service added later. */
export const state = z.object({
  address: z.string(),
  sourceTimestamp: z.number(),
  destination: z.string(),
  token: z.string(),
  /** The service's status as it said it; states written before it existed were pending. */
  status: z.string().default('pending'),
  /** Past maxAge and no longer read: kept one more evaluation so its alert resolves saying so. */
  expired: z.boolean().optional(),
});
export type State = z.output<typeof state>;
