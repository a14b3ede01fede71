import { z } from 'zod';
import { nodeIdProblem } from '../base/cb58.js';

// Keys several rule kinds share.

export const NETWORKS = ['mainnet', 'fuji', 'testnet'] as const;
export const network = z.enum(NETWORKS);
export type Network = z.output<typeof network>;

const NODE_ID = /^NodeID-[1-9A-HJ-NP-Za-km-z]{20,50}$/;
export const nodeId = z
  .string()
  .regex(NODE_ID, { message: 'expected a NodeID: "NodeID-" followed by base58 characters', abort: true })
  // A one-character typo still looks like a NodeID: only the checksum tells.
  .superRefine((id, ctx) => {
    const problem = nodeIdProblem(id);
    if (problem) ctx.addIssue({ code: 'custom', message: `${id}: ${problem}` });
  });

export const nodeIds = z
  .array(nodeId)
  .min(1, 'list at least one NodeID')
  .refine((ids) => new Set(ids).size === ids.length, 'a NodeID is listed twice');

/** The primary network's subnet id: a node's own validation, as opposed to its L1/subnet ones. */
export const PRIMARY_NETWORK = '11111111111111111111111111111111LpoYY';

/** The subnet whose validations a rule reads; the per-node lookup lists every subnet's. */
export const subnetId = z.string().min(1).default(PRIMARY_NETWORK);
