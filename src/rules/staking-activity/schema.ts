import { z } from 'zod';
import { network, type Network } from '../fields.js';

/** The address prefix (bech32 HRP) of each network. */
const HRP: Record<Network, string> = { mainnet: 'avax', fuji: 'fuji', testnet: 'fuji' };

// The service answers with bare addresses (avax1…); filters may carry P-/X-: kept bare.
const address = z
  .string()
  .regex(/^([PX]-)?(avax|fuji)1[02-9ac-hj-np-z]{38}$/, 'expected a P-chain address such as P-avax1… (fuji1… on fuji)')
  .transform((a) => a.replace(/^[PX]-/, ''));

export const spec = z
  .strictObject({
    network,
    addresses: z.array(address).min(1, 'list at least one address'),
  })
  .superRefine((s, ctx) => {
    const seen = new Set<string>();
    s.addresses.forEach((a, i) => {
      const hrp = HRP[s.network];
      if (!a.startsWith(`${hrp}1`)) ctx.addIssue({ code: 'custom', path: ['addresses', i], message: `a ${s.network} address starts with ${hrp}1 (or P-${hrp}1): this one is for another network` });
      if (seen.has(a)) ctx.addIssue({ code: 'custom', path: ['addresses', i], message: 'this address is listed twice (with and without its P-/X- prefix counts as the same)' });
      seen.add(a);
    });
  });
export type Spec = z.output<typeof spec>;

const transaction = z.object({
  txType: z.string(),
  nodeId: z.string().optional(),
  /** nAVAX staked, exact; absent when the service sent no AVAX amount as a number. */
  amount: z.string().optional(),
  startTimestamp: z.number().optional(),
  endTimestamp: z.number().optional(),
  blockTimestamp: z.number(),
  /** The watched addresses it concerns (bare). */
  addresses: z.array(z.string()),
});
/**
 * One entry per staking transaction seen (by txHash), plus a marker: the addresses read whole
 * once (their baseline) and, per address, the newest block time seen. Only later ones are new.
 */
const marker = z.object({ baseline: z.literal(true), entities: z.array(z.string()), newest: z.record(z.string(), z.number()) });
export const state = z.union([marker, transaction]);
export type State = z.output<typeof state>;
export type TransactionState = z.output<typeof transaction>;
export type Marker = z.output<typeof marker>;
export const BASELINE_KEY = '_baseline';
