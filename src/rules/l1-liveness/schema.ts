import { z } from 'zod';
import { durationMs, httpUrl } from '../../base/fields.js';
import { network } from '../fields.js';
import { burnState } from '../l1-burn.js';

const share = z.number().gt(0).max(100);
const id = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{20,60}$/, 'expected a CB58 ID');

export const spec = z.strictObject({
  network: network.default('mainnet'),
  /** NodeID → the node's API base (`validators:` fills it from the inventory's `api`): the L1 nodes read for the frozen view. */
  urls: z.record(z.string().min(1), httpUrl).refine((urls) => Object.keys(urls).length > 0, 'list at least one node: `urls: { NodeID-…: http://127.0.0.1:9650 }` (or `validators: all`)'),
  /** NodeID → the L1 subnets it validates; `from-inventory` (with `validators:`) takes each validator's `subnets`. */
  subnets: z
    .union([z.literal('from-inventory'), z.record(z.string().min(1), z.array(id))])
    .refine((v) => v !== 'from-inventory', 'subnets: from-inventory takes them from the inventory: select validators with validators: (or list them: {NodeID-…: [subnet ID]})'),
  /** Subnet ID → its blockchain ID, where the node should not be asked (platform.validates). */
  chains: z.record(id, id).optional(),
  /** The same epoch this long, while the P-Chain moves, is an old tip (an epoch lasts 5 min on Mainnet and Fuji). */
  frozenAfter: durationMs.default(900_000),
  /** How far ahead the weight forecast looks. */
  horizon: durationMs.default(604_800_000),
  /** Percent of the L1's total weight consensus needs (AvalancheGo's default snowball parameters: about 80). */
  consensusShare: share.default(80),
  /** Percent Warp needs to sign (WarpQuorumNumerator 67, unless the L1's precompile sets another). */
  warpShare: share.default(67),
  /** false: no weight shares (no Data API calls: 20 compute units per 100 validators per poll). */
  weights: z.boolean().default(true),
});
export type Spec = z.output<typeof spec>;

const heldCondition = z.object({
  key: z.string(),
  subject: z.string(),
  summary: z.string(),
  resolvedSummary: z.string().optional(),
  labels: z.record(z.string(), z.string()),
  details: z.record(z.string(), z.string()),
});

/** Per L1 subnet. */
export const state = z.object({
  blockchainId: z.string().optional(),
  /** The epoch as kept between polls (frozen.ts EpochSeen). */
  epoch: z.object({ number: z.number(), startTime: z.number(), pChainHeight: z.number(), sinceSteady: z.number(), proposedThen: z.number() }).optional(),
  /** Per validation ID: the balance readings the burn is measured from (l1-burn.ts). */
  balances: z.record(z.string(), burnState).default({}),
  /** The conditions each part raised at its last reading: they hold while that part cannot be read. */
  held: z.object({ tip: z.array(heldCondition).default([]), weight: z.array(heldCondition).default([]) }).default({ tip: [], weight: [] }),
  /** The last verdicts, for the gauges. */
  epochHeldS: z.number().optional(),
  slot: z.number().optional(),
  activeShare: z.number().optional(),
  connectedShare: z.number().optional(),
  lowShare: z.number().optional(),
});
export type State = z.output<typeof state>;
