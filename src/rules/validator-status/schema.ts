import { z } from 'zod';

export const NETWORKS = ['mainnet', 'fuji', 'testnet'] as const;
export const network = z.enum(NETWORKS);

const NODE_ID = /^NodeID-[1-9A-HJ-NP-Za-km-z]{20,50}$/;
export const nodeId = z.string().regex(NODE_ID, 'expected a NodeID: "NodeID-" followed by base58 characters');

export const nodeIds = z
  .array(nodeId)
  .min(1, 'list at least one NodeID')
  .refine((ids) => new Set(ids).size === ids.length, 'a NodeID is listed twice');

/** The primary network's subnet id: a node's own validation, as opposed to its L1/subnet ones. */
export const PRIMARY_NETWORK = '11111111111111111111111111111111LpoYY';

/** The subnet whose validations a rule reads; the per-node lookup lists every subnet's. */
export const subnetId = z.string().min(1).default(PRIMARY_NETWORK);

export const spec = z.strictObject({ network, nodeIds, subnetId });
export type Spec = z.output<typeof spec>;

/** The validation period avawatch last saw as a node's current one. */
export const period = z.object({
  txHash: z.string(),
  status: z.string(),
  startTimestamp: z.number(),
  endTimestamp: z.number(),
});
export type Period = z.output<typeof period>;

export const state = z.object({
  period: period.nullable(),
  /** The service did not list the node at the last poll (reported once, when it happened). */
  missing: z.boolean(),
});
export type State = z.output<typeof state>;
