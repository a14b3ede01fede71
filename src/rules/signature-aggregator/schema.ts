import { z } from 'zod';
import { network } from '../fields.js';

/** A primary-network (P- or X-chain) transaction hash: cb58, as the chains write them. */
const txHash = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{40,60}$/, 'expected a P- or X-chain transaction hash (cb58, e.g. 2sJ6UoPS…)');

export const spec = z.strictObject({
  network,
  /** Each is probed every `every`: GET /v1/signatureAggregator/{network}/aggregateSignatures/{txHash}. */
  txHashes: z
    .array(txHash)
    .min(1, 'list at least one txHash')
    .refine((t) => new Set(t).size === t.length, 'a txHash is listed twice'),
  /** Failed probes in a row before it fires. */
  failures: z.number().int().min(1).max(100).default(3),
});
export type Spec = z.output<typeof spec>;

/** One probed txHash. Times are unix seconds. */
export const state = z.object({
  /** Failed probes in a row (0 after a success). */
  failures: z.number(),
  /** The last probe: when, whether it succeeded, how long it took (seconds). */
  at: z.number(),
  ok: z.boolean(),
  latency: z.number(),
  /** The first failure of the current run, and how the last one failed. */
  failingSince: z.number().optional(),
  error: z.string().optional(),
  /** http, timeout, malformed or network. */
  how: z.string().optional(),
  status: z.number().optional(),
});
export type State = z.output<typeof state>;
