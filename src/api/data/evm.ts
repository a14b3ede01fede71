import type { z } from 'zod';
import type { HttpClient } from '../http.js';
import { erc20Transfer, evmTransaction, internalTransaction, type Erc20Transfer, type EvmTransaction, type InternalTransaction } from '../schemas.js';
import { AreaReader, type DataApiOptions, type Listed } from './reader.js';

// EVM chains (the interface's §4.3b and §4.4b), under /v1/chains/{chainId}/: an address's
// activity, one list per call, read within a block range.

/** A block range of an EVM address list: startBlock inclusive, endBlock exclusive. */
export interface BlockRangeQuery {
  startBlock?: number | undefined;
  endBlock?: number | undefined;
  /** Only the native transactions list takes it; without it the service lists newest first. */
  sortOrder?: 'asc' | 'desc' | undefined;
  /** Read at most this many pages; `complete` says whether the list ended within them. */
  pages: number;
}

export class Evm extends AreaReader {
  constructor(http: HttpClient, options: DataApiOptions) {
    super(http, options, { name: 'EVM chains', prefix: '/v1/chains/{chainId}/' });
  }

  /** Native transactions of an address (each with its transfers), `pages` pages at most. */
  async addressTransactions(chainId: string, address: string, q: BlockRangeQuery, signal?: AbortSignal): Promise<Listed<EvmTransaction>> {
    return this.#addressList('', chainId, address, q, evmTransaction, signal);
  }

  /** ERC-20 transfers to or from an address; the service lists them newest first (no sortOrder). */
  async addressErc20Transfers(chainId: string, address: string, q: Omit<BlockRangeQuery, 'sortOrder'>, signal?: AbortSignal): Promise<Listed<Erc20Transfer>> {
    return this.#addressList(':listErc20', chainId, address, q, erc20Transfer, signal);
  }

  /** Internal transactions to or from an address, newest first (no sortOrder). */
  async addressInternalTransactions(chainId: string, address: string, q: Omit<BlockRangeQuery, 'sortOrder'>, signal?: AbortSignal): Promise<Listed<InternalTransaction>> {
    return this.#addressList(':listInternals', chainId, address, q, internalTransaction, signal);
  }

  async #addressList<S extends z.ZodType>(suffix: string, chainId: string, address: string, q: BlockRangeQuery, item: S, signal: AbortSignal | undefined): Promise<Listed<z.output<S>>> {
    return this.list({
      endpoint: `/v1/chains/{chainId}/addresses/{address}/transactions${suffix}`,
      params: { chainId, address },
      query: blockRangeQuery(q),
      items: 'transactions',
      item,
      maxPages: q.pages,
      partial: true,
      signal,
    });
  }
}

/** The query of an EVM address list call (also how `avawatch check` names it); block 0 is no bound. */
export function blockRangeQuery(q: Omit<BlockRangeQuery, 'pages'>): Record<string, string | undefined> {
  return {
    startBlock: q.startBlock ? String(q.startBlock) : undefined,
    endBlock: q.endBlock !== undefined ? String(q.endBlock) : undefined,
    sortOrder: q.sortOrder,
  };
}
