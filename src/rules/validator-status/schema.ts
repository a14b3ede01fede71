import { z } from 'zod';

export const NETWORKS = ['mainnet', 'fuji', 'testnet'] as const;
export const network = z.enum(NETWORKS);

const NODE_ID = /^NodeID-[1-9A-HJ-NP-Za-km-z]{20,50}$/;
export const nodeId = z.string().regex(NODE_ID, 'expected a NodeID: "NodeID-" followed by base58 characters');

export const nodeIds = z
  .array(nodeId)
  .min(1, 'list at least one NodeID')
  .refine((ids) => new Set(ids).size === ids.length, 'a NodeID is listed twice');

export const spec = z.strictObject({ network, nodeIds });
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
