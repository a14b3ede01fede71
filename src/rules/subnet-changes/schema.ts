import { z } from 'zod';
import { network } from '../fields.js';

const subnetId = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,60}$/, 'expected a subnet id (base58, e.g. 2Hm6eGyCNtJ5h5rGcS1DFRxNp1Mrx8FTRQRr2s5L3aFcmJzRqg)');

export const spec = z.strictObject({
  network,
  subnetIds: z
    .array(subnetId)
    .min(1, 'list at least one subnet id')
    .refine((ids) => new Set(ids).size === ids.length, 'a subnet id is listed twice'),
  /** Subnets a page of the list (20 CU each): lower it if a page outgrows api.maxResponseBytes. */
  pageSize: z.number().int().min(1).max(10_000).default(10_000),
});
export type Spec = z.output<typeof spec>;

const owners = z.object({ addresses: z.array(z.string()), threshold: z.number(), locktime: z.number() });
const blockchain = z.object({ id: z.string(), name: z.string(), vmId: z.string(), evmChainId: z.number().optional() });

/** What the rule compares; a field the service sent in another shape is absent and keeps what held. */
export const facts = z.object({
  isL1: z.boolean().optional(),
  conversionTx: z.string().optional(),
  owners: owners.optional(),
  manager: z.object({ blockchainId: z.string(), contractAddress: z.string() }).optional(),
  blockchains: z.array(blockchain).optional(),
});
export type Facts = z.output<typeof facts>;
export type Owners = z.output<typeof owners>;
export type Blockchain = z.output<typeof blockchain>;

/**
 * Per watched subnet: whether the last complete list held it, and what it showed when it did
 * (none when it never did: its first sighting is then a baseline).
 */
export const state = z.object({ listed: z.boolean(), subnet: facts.optional() });
export type State = z.output<typeof state>;
