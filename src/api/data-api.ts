import type { z } from 'zod';
import { ApiError } from './errors.js';
import type { HttpClient } from './http.js';
import { collectPages } from './paginate.js';
import {
  delegatorsPage,
  erc20TransfersPage,
  evmTransactionsPage,
  internalTransactionsPage,
  icmMessagesPage,
  l1ValidatorsPage,
  operation,
  proposedBlocksPage,
  signatureAggregation,
  validator,
  validatorsPage,
  validatorsPageOfItems,
  stakingTransactionsPage,
  subnetsPage,
  type Delegator,
  type Erc20Transfer,
  type EvmTransaction,
  type InternalTransaction,
  type IcmMessage,
  type L1Validator,
  type Operation,
  type ProposedBlock,
  type Validator,
  type StakingTransaction,
  type Subnet,
} from './schemas.js';

export type Network = 'mainnet' | 'fuji' | 'testnet';

export interface DataApiOptions {
  pageSize: number;
  maxPages: number;
  /**
   * Called for each list item that breaks the contract and is left out (its node fails
   * instead): `nodeId` when it names one, undefined when it cannot be told whose it is.
   */
  onBrokenItem?: (endpoint: string, nodeId: string | undefined, reason: string) => void;
}

/** A list item that breaks the contract: whose it is, if it says, and why it was left out. */
export interface BrokenItem {
  nodeId: string | undefined;
  reason: string;
}

/** One bulk validator call: the periods that parse, and the items that do not. */
export interface ValidatorList {
  periods: Validator[];
  /** Items of the asked nodes, and items that name no node (they may be anyone's). */
  broken: BrokenItem[];
}

export interface DelegatorQuery {
  /** One call's worth: see `filterBatches`. */
  nodeIds?: readonly string[] | undefined;
  rewardAddresses?: readonly string[] | undefined;
  delegationStatus?: 'active' | 'pending' | 'completed';
  /** Newest first: read no further once a page says so (it holds what the caller knows). */
  enough?: (page: readonly Delegator[]) => boolean;
  /** Read at most this many pages instead of failing past them. */
  pages?: number;
}

export interface ValidatorListQuery {
  /** One call's worth: see `filterBatches`. */
  nodeIds: readonly string[];
  validationStatus: 'active' | 'pending';
  subnetId: string;
}

export interface StakingQuery {
  /** One call's worth (see `filterBatches`), bare or P-/X- prefixed. */
  addresses: readonly string[];
  /** Newest first: read no further once a page says so (it reaches what the caller knows). */
  enough?: (page: readonly StakingTransaction[]) => boolean;
}

export interface SubnetsQuery {
  /** 1..10000 subnets a page. */
  pageSize: number;
  /** Read no further once a page says so (every subnet wanted was found). */
  enough?: (page: readonly Subnet[]) => boolean;
}

export interface L1Query {
  subnetId?: string | undefined;
  nodeId?: string | undefined;
  validationId?: string | undefined;
  includeInactive?: boolean;
}

/** A block range of an EVM address list: startBlock inclusive, endBlock exclusive. */
export interface BlockRangeQuery {
  startBlock?: number | undefined;
  endBlock?: number | undefined;
  /** Only the native transactions list takes it; without it the service lists newest first. */
  sortOrder?: 'asc' | 'desc' | undefined;
  /** Read at most this many pages; `complete` says whether the list ended within them. */
  pages: number;
}

/** The most ids in one bulk validator call: the size of one page. */
export const VALIDATOR_BATCH = 100;
/**
 * Characters of one comma-separated filter (after URL encoding), so that the URL with the
 * base, the path and the other parameters stays under 8 KB, which proxies and the service accept.
 */
export const FILTER_CHARS = 7_000;
const NOT_FOUND = Symbol('not found');

/** The Data API endpoints avawatch polls, each answer parsed against the live shapes. */
export class DataApi {
  constructor(
    readonly http: HttpClient,
    readonly options: DataApiOptions,
  ) {}

  /**
   * Every validation period the service lists for a node, or `not-found` when it answers
   * its own 404 for the first page. Any other failure throws: never read as "no periods".
   */
  async validatorPeriods(network: Network, nodeId: string, signal?: AbortSignal): Promise<Validator[] | 'not-found'> {
    const path = `/v1/networks/${network}/validators/${encodeURIComponent(nodeId)}`;
    try {
      return await this.list<Validator>('/v1/networks/{network}/validators/{nodeId}', path, { sortOrder: 'desc' }, validatorsPage, 'validators', signal, {
        notFoundOnFirstPage: true,
      });
    } catch (err) {
      if (err === NOT_FOUND) return 'not-found';
      throw err;
    }
  }

  /**
   * The periods of these nodes with one status, in bulk. The service matches `nodeIds` as
   * substrings: only exact matches are kept. Its documented default minimum uptime (90) is
   * lifted for active periods, so an active node with poor uptime is still listed.
   * Each item is read on its own: one that breaks the contract is returned in `broken`
   * (when it names an asked node, or none), never failing the others.
   */
  async validatorList(network: Network, q: ValidatorListQuery, signal?: AbortSignal): Promise<ValidatorList> {
    const endpoint = '/v1/networks/{network}/validators';
    const path = `/v1/networks/${network}/validators`;
    const items = await this.list<unknown>(endpoint, path, validatorListQuery(q), validatorsPageOfItems, 'validators', signal);
    const wanted = new Set(q.nodeIds);
    const out: ValidatorList = { periods: [], broken: [] };
    for (const [i, item] of items.entries()) {
      const parsed = validator.safeParse(item);
      if (parsed.success) {
        if (wanted.has(parsed.data.nodeId)) out.periods.push(parsed.data);
        continue;
      }
      const nodeId = readNodeId(item);
      // Another node's item (a substring match): not ours to report.
      if (nodeId !== undefined && !wanted.has(nodeId)) continue;
      const reason = `data API ${path}: unexpected item validators[${i}]${nodeId === undefined ? '' : ` of ${nodeId}`}: ${issueText(parsed.error, 'item')}`;
      out.broken.push({ nodeId, reason });
      this.options.onBrokenItem?.(endpoint, nodeId, reason);
    }
    return out;
  }

  /** Delegators matching the filters, newest first (by start), one call's worth of filter. */
  async delegators(network: Network, q: DelegatorQuery, signal?: AbortSignal): Promise<Delegator[]> {
    const path = `/v1/networks/${network}/delegators`;
    const query = { nodeIds: q.nodeIds?.join(','), rewardAddresses: q.rewardAddresses?.join(','), delegationStatus: q.delegationStatus, sortOrder: 'desc' };
    // api.maxPages bounds the pages of each node or address in the filter, not of all together.
    const filtered = Math.max(1, (q.nodeIds?.length ?? 0) + (q.rewardAddresses?.length ?? 0));
    return this.list<Delegator>('/v1/networks/{network}/delegators', path, query, delegatorsPage, 'delegators', signal, {
      ...(q.pages !== undefined ? { pages: q.pages } : { maxPages: this.options.maxPages * filtered }),
      ...(q.enough ? { enough: q.enough } : {}),
    });
  }

  async l1Validators(network: Network, q: L1Query, signal?: AbortSignal): Promise<L1Validator[]> {
    const query = {
      subnetId: q.subnetId,
      nodeId: q.nodeId,
      l1ValidationId: q.validationId,
      includeInactiveL1Validators: q.includeInactive ? 'true' : undefined,
    };
    return this.list<L1Validator>('/v1/networks/{network}/l1Validators', `/v1/networks/${network}/l1Validators`, query, l1ValidatorsPage, 'validators', signal);
  }

  /** Newest first, at most `pages` pages; `complete` says whether the list ended within them. */
  async icmMessages(address: string, network: Network, pages: number, signal?: AbortSignal): Promise<{ messages: IcmMessage[]; complete: boolean }> {
    const path = `/v1/icm/addresses/${encodeURIComponent(address)}/messages`;
    let complete = true;
    const messages = await this.list<IcmMessage>('/v1/icm/addresses/{address}/messages', path, { network }, icmMessagesPage, 'messages', signal, {
      pages,
      onTruncated: () => (complete = false),
    });
    return { messages, complete };
  }

  // ---- EVM address activity: one list per call, read within a block range.

  /** Native transactions of an address (each with its transfers), `pages` pages at most. */
  async addressTransactions(chainId: string, address: string, q: BlockRangeQuery, signal?: AbortSignal): Promise<{ items: EvmTransaction[]; complete: boolean }> {
    return this.#addressList<EvmTransaction>('', chainId, address, q, evmTransactionsPage, signal);
  }

  /** ERC-20 transfers to or from an address; the service lists them newest first (no sortOrder). */
  async addressErc20Transfers(chainId: string, address: string, q: Omit<BlockRangeQuery, 'sortOrder'>, signal?: AbortSignal): Promise<{ items: Erc20Transfer[]; complete: boolean }> {
    return this.#addressList<Erc20Transfer>(':listErc20', chainId, address, q, erc20TransfersPage, signal);
  }

  /** Internal transactions to or from an address, newest first (no sortOrder). */
  async addressInternalTransactions(chainId: string, address: string, q: Omit<BlockRangeQuery, 'sortOrder'>, signal?: AbortSignal): Promise<{ items: InternalTransaction[]; complete: boolean }> {
    return this.#addressList<InternalTransaction>(':listInternals', chainId, address, q, internalTransactionsPage, signal);
  }

  async #addressList<T>(suffix: string, chainId: string, address: string, q: BlockRangeQuery, schema: z.ZodType, signal: AbortSignal | undefined): Promise<{ items: T[]; complete: boolean }> {
    const endpoint = `/v1/chains/{chainId}/addresses/{address}/transactions${suffix}`;
    const path = `/v1/chains/${encodeURIComponent(chainId)}/addresses/${encodeURIComponent(address)}/transactions${suffix}`;
    let complete = true;
    const items = await this.list<T>(endpoint, path, blockRangeQuery(q), schema, 'transactions', signal, { pages: q.pages, onTruncated: () => (complete = false) });
    return { items, complete };
  }

  async startExport(body: Record<string, unknown>, signal?: AbortSignal): Promise<Operation> {
    const endpoint = '/v1/operations/transactions:export';
    return parse(operation, await this.http.getJson({ endpoint, path: endpoint, body, ...(signal ? { signal } : {}) }), endpoint, endpoint);
  }

  async operation(id: string, signal?: AbortSignal): Promise<Operation | 'not-found'> {
    const endpoint = '/v1/operations/{operationId}';
    // URL parsing folds a `.` or `..` segment (encoded or not) into another path: never asked.
    if (id === '.' || id === '..') throw new ApiError(`data API: operation id "${id}" cannot be asked for`, { api: 'data', endpoint, code: 'bad_id', retryable: false });
    const path = `/v1/operations/${encodeURIComponent(id)}`;
    try {
      return parse(operation, await this.http.getJson({ endpoint, path, ...(signal ? { signal } : {}) }), endpoint, path);
    } catch (err) {
      if (isServiceNotFound(err)) return 'not-found';
      throw err;
    }
  }

  /** Staking transactions of these addresses, newest first. 100 CU a call on the live service. */
  async stakingTransactions(network: Network, q: StakingQuery, signal?: AbortSignal): Promise<StakingTransaction[]> {
    const endpoint = '/v1/networks/{network}/blockchains/{blockchainId}/transactions:listStaking';
    const path = `/v1/networks/${network}/blockchains/p-chain/transactions:listStaking`;
    // api.maxPages bounds the pages of each address in the filter, not of all together.
    return this.list<StakingTransaction>(endpoint, path, { addresses: q.addresses.join(','), sortOrder: 'desc' }, stakingTransactionsPage, 'transactions', signal, {
      maxPages: this.options.maxPages * Math.max(1, q.addresses.length),
      ...(q.enough ? { enough: q.enough } : {}),
    });
  }

  /**
   * The network's subnets, newest first, up to api.maxPages pages; `complete` says whether the
   * list ended (or `enough` stopped it) within them: only a complete list tells a subnet is absent.
   */
  async subnets(network: Network, q: SubnetsQuery, signal?: AbortSignal): Promise<{ subnets: Subnet[]; complete: boolean }> {
    let complete = true;
    const query = { pageSize: String(q.pageSize), sortOrder: 'desc' };
    const subnets = await this.list<Subnet>('/v1/networks/{network}/subnets', `/v1/networks/${network}/subnets`, query, subnetsPage, 'subnets', signal, {
      pages: this.options.maxPages,
      onTruncated: () => (complete = false),
      ...(q.enough ? { enough: q.enough } : {}),
    });
    return { subnets, complete };
  }

  /**
   * Blocks a node proposed on a primary-network chain, newest first: at most `pages` pages of
   * `pageSize`; `complete` says whether the list ended within them.
   */
  async proposedBlocks(
    network: Network,
    chain: string,
    nodeId: string,
    q: { startTimestamp?: number; pageSize: number; pages: number },
    signal?: AbortSignal,
  ): Promise<{ blocks: ProposedBlock[]; complete: boolean }> {
    const path = `/v1/networks/${network}/blockchains/${encodeURIComponent(chain)}/nodes/${encodeURIComponent(nodeId)}/blocks`;
    const query = { pageSize: String(q.pageSize), startTimestamp: q.startTimestamp === undefined ? undefined : String(q.startTimestamp) };
    let complete = true;
    const blocks = await this.list<ProposedBlock>('/v1/networks/{network}/blockchains/{blockchainId}/nodes/{nodeId}/blocks', path, query, proposedBlocksPage, 'blocks', signal, {
      pages: q.pages,
      onTruncated: () => (complete = false),
    });
    return { blocks, complete };
  }

  /** One probe of the signature aggregator (answered 201 by the contract): one attempt, never shared. */
  async aggregateSignatures(network: Network, txHash: string, signal?: AbortSignal, onSent?: () => void): Promise<{ signedMessage: string }> {
    const endpoint = '/v1/signatureAggregator/{network}/aggregateSignatures/{txHash}';
    const path = `/v1/signatureAggregator/${network}/aggregateSignatures/${encodeURIComponent(txHash)}`;
    const body = await this.http.getJson({ endpoint, path, probe: true, ...(signal ? { signal } : {}), ...(onSent ? { onSent } : {}) });
    return parse(signatureAggregation, body, endpoint, path);
  }

  /**
   * Every page of a list (schema-checked); T is the item type the schema yields under `key`.
   * `endpoint` is the path template (how errors and metrics name the call), `path` the concrete one.
   */
  async list<T>(
    endpoint: string,
    path: string,
    query: Record<string, string | undefined>,
    schema: z.ZodType,
    key: string,
    signal: AbortSignal | undefined,
    o: { pages?: number; maxPages?: number; onTruncated?: () => void; notFoundOnFirstPage?: boolean; enough?: (page: readonly T[]) => boolean } = {},
  ): Promise<T[]> {
    return collectPages<T>(
      async (pageToken) => {
        const body = await this.http
          .getJson({ endpoint, path, query: { pageSize: this.options.pageSize, ...query, pageToken }, ...(signal ? { signal } : {}) })
          .catch((err: unknown) => {
            throw o.notFoundOnFirstPage && pageToken === undefined && isServiceNotFound(err) ? NOT_FOUND : err;
          });
        const page = parse(schema, body, endpoint, path) as Record<string, T[]> & { nextPageToken?: string };
        return { items: page[key] ?? [], nextPageToken: page.nextPageToken };
      },
      {
        api: 'data',
        endpoint: `GET ${path}`,
        maxPages: o.pages ?? o.maxPages ?? this.options.maxPages,
        stopAtMax: o.pages !== undefined,
        ...(o.onTruncated ? { onTruncated: o.onTruncated } : {}),
        ...(o.enough ? { enough: o.enough } : {}),
      },
    );
  }
}

/**
 * The service's own 404: an unknown node or operation. A 404 from a proxy (not the
 * service's error shape) is a failure like any other.
 */
function isServiceNotFound(err: unknown): boolean {
  return err instanceof ApiError && err.details.status === 404 && err.details.serviceError === true;
}

/** The query of one bulk validator call (also how `avawatch check` names the call). */
export function validatorListQuery(q: ValidatorListQuery): Record<string, string> {
  const query: Record<string, string> = { nodeIds: q.nodeIds.join(','), validationStatus: q.validationStatus, subnetId: q.subnetId };
  // Only active periods have an uptime: a bound might drop pending ones, as a fee bound drops subnet ones.
  if (q.validationStatus === 'active') query['minUptimePerformance'] = '0';
  return query;
}

/**
 * Consecutive batches of at most `max` ids whose comma-separated, URL-encoded list stays
 * within FILTER_CHARS. The ids are sorted first, so rules that watch the same ids ask the
 * very same calls and share them.
 */
export function filterBatches(ids: readonly string[], max: number): string[][] {
  const out: string[][] = [];
  let batch: string[] = [];
  let chars = 0;
  for (const id of [...new Set(ids)].sort()) {
    const size = encodeURIComponent(id).length;
    // Each further id adds a comma, sent as %2C.
    if (batch.length > 0 && (batch.length >= max || chars + 3 + size > FILTER_CHARS)) {
      out.push(batch);
      batch = [];
    }
    chars = batch.length === 0 ? size : chars + 3 + size;
    batch.push(id);
  }
  if (batch.length > 0) out.push(batch);
  return out;
}

/** A body that breaks the schema is an API failure, named by endpoint and field. */
export function parse<T extends z.ZodType>(schema: T, body: unknown, endpoint: string, path: string, api = 'data'): z.output<T> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw new ApiError(`${api} API ${path}: unexpected response: ${issueText(result.error)}`, {
    api,
    endpoint,
    code: 'schema',
    retryable: false,
  });
}

/** The first issue's field and message (never the value: it is the service's text), and how many more. */
function issueText(error: z.ZodError, whole = 'body'): string {
  const first = error.issues[0];
  const where = first && first.path.length > 0 ? first.path.join('.') : whole;
  const more = error.issues.length > 1 ? ` (+${error.issues.length - 1} more)` : '';
  return `${where}: ${first?.message ?? 'invalid'}${more}`;
}

/** An item's nodeId when it is text: the only way to tell whose a broken item is. */
function readNodeId(item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const nodeId = (item as { nodeId?: unknown }).nodeId;
  return typeof nodeId === 'string' ? nodeId : undefined;
}

/** The query of an EVM address list call (also how `avawatch check` names it); block 0 is no bound. */
export function blockRangeQuery(q: Omit<BlockRangeQuery, 'pages'>): Record<string, string | undefined> {
  return {
    startBlock: q.startBlock ? String(q.startBlock) : undefined,
    endBlock: q.endBlock !== undefined ? String(q.endBlock) : undefined,
    sortOrder: q.sortOrder,
  };
}
