import { z } from 'zod';
import type { AreaReader, Network } from '../../api/data/reader.js';
import { amount, optionalNumber, seconds } from '../../api/schemas.js';

// The one endpoint this kind reads, read from here: the P-chain's staking transactions
// (transactions:listStaking), 100 CU a call on the live service.

// The fields the kind shows. A figure in another shape reads as absent: a transaction is never lost over one.
const assetAmount = z.object({ assetId: z.string(), amount });
const utxoOwners = z.object({ addresses: z.array(z.string()) });
export const stakingTransaction = z.object({
  txHash: z.string(),
  txType: z.string(),
  blockTimestamp: seconds,
  nodeId: z.string().optional().catch(undefined),
  amountStaked: z.array(assetAmount).optional().catch(undefined),
  startTimestamp: optionalNumber,
  endTimestamp: optionalNumber,
  rewardTxHash: z.string().optional().catch(undefined),
  // Whose transaction it is: the service does not say which of the addresses asked for matched.
  rewardAddresses: z.array(z.string()).optional().catch(undefined),
  consumedUtxos: z.array(utxoOwners).optional().catch(undefined),
  emittedUtxos: z.array(utxoOwners).optional().catch(undefined),
});
export type StakingTransaction = z.output<typeof stakingTransaction>;

export interface StakingQuery {
  /** One call's worth (see `filterBatches`), bare or P-/X- prefixed. */
  addresses: readonly string[];
  /** Newest first: read no further once a page says so (it reaches what the caller knows). */
  enough?: (page: readonly StakingTransaction[]) => boolean;
}

/** Staking transactions of these addresses, newest first. */
export async function stakingTransactions(primary: AreaReader, network: Network, q: StakingQuery, signal?: AbortSignal): Promise<StakingTransaction[]> {
  const { items } = await primary.list({
    endpoint: '/v1/networks/{network}/blockchains/{blockchainId}/transactions:listStaking',
    params: { network, blockchainId: 'p-chain' },
    query: { addresses: q.addresses.join(','), sortOrder: 'desc' },
    items: 'transactions',
    item: stakingTransaction,
    // api.maxPages bounds the pages of each address in the filter, not of all together.
    maxPages: primary.options.maxPages * Math.max(1, q.addresses.length),
    ...(q.enough ? { enough: q.enough } : {}),
    signal,
  });
  return items;
}
