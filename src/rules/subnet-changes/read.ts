import { z } from 'zod';
import type { AreaReader, Listed, Network } from '../../api/data/reader.js';
import { optionalNumber } from '../../api/schemas.js';

// The one endpoint this kind reads, read from here: the network's subnets (GET /subnets).

// Ownership, L1 conversion, validator manager, blockchains. ownerAddresses/threshold/locktime
// are deprecated copies of subnetOwnershipInfo: read as a fallback.
const owners = z.object({ addresses: z.array(z.string()), threshold: z.number(), locktime: z.number() });
export const subnet = z.object({
  subnetId: z.string(),
  isL1: z.boolean().optional().catch(undefined),
  l1ConversionTransactionHash: z.string().optional().catch(undefined),
  l1ValidatorManagerDetails: z.object({ blockchainId: z.string(), contractAddress: z.string() }).optional().catch(undefined),
  subnetOwnershipInfo: owners.optional().catch(undefined),
  ownerAddresses: z.array(z.string()).optional().catch(undefined),
  threshold: optionalNumber,
  locktime: optionalNumber,
  // genesisData (an EVM genesis, or encoded text) is never read.
  blockchains: z
    .array(z.object({ blockchainId: z.string(), blockchainName: z.string(), vmId: z.string(), evmChainId: optionalNumber }))
    .optional()
    .catch(undefined),
});
export type Subnet = z.output<typeof subnet>;

export interface SubnetsQuery {
  /** 1..10000 subnets a page. */
  pageSize: number;
  /** Read no further once a page says so (every subnet wanted was found). */
  enough?: (page: readonly Subnet[]) => boolean;
}

/**
 * The network's subnets, newest first, up to api.maxPages pages; `complete` says whether the
 * list ended (or `enough` stopped it) within them: only a complete list tells a subnet is absent.
 */
export async function listSubnets(primary: AreaReader, network: Network, q: SubnetsQuery, signal?: AbortSignal): Promise<Listed<Subnet>> {
  return primary.list({
    endpoint: '/v1/networks/{network}/subnets',
    params: { network },
    query: { pageSize: String(q.pageSize), sortOrder: 'desc' },
    items: 'subnets',
    item: subnet,
    partial: true,
    ...(q.enough ? { enough: q.enough } : {}),
    signal,
  });
}
