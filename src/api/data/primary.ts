import { z } from 'zod';
import type { HttpClient } from '../http.js';
import { ApiError } from '../errors.js';
import { issueText } from '../parse.js';
import { activeValidator, delegator, l1Validator, proposedBlock, validator, type ActiveValidator, type Delegator, type L1Validator, type ProposedBlock, type Validator } from '../schemas.js';
import { AreaReader, type DataApiOptions, type Network } from './reader.js';

// The primary network (the interface's §4.5): validators, delegators, L1 validators and the
// blocks a node proposed, under /v1/networks/{network}/.

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

export interface ValidatorListQuery {
  /** One call's worth: see `filterBatches`. */
  nodeIds: readonly string[];
  validationStatus: 'active' | 'pending';
  subnetId: string;
}

/** The whole active primary validator set, read to its end, or a failure: never a part of it. */
export interface ActiveSet {
  /** One per nodeId: a node the service listed twice (pages that moved under the walk) counts once. */
  validators: ActiveValidator[];
  /** Items that break the contract (left out, with why): the caller judges whether the set is still whole. */
  broken: BrokenItem[];
  /** Items the service repeated across pages. */
  repeated: number;
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

export interface L1Query {
  subnetId?: string | undefined;
  nodeId?: string | undefined;
  validationId?: string | undefined;
  includeInactive?: boolean;
}

/** The bulk list's items, each read on its own below (one schema for every call: pages are made once per item schema). */
const anyItem = z.unknown();

export class PrimaryNetwork extends AreaReader {
  constructor(http: HttpClient, options: DataApiOptions) {
    super(http, options, { name: 'primary network', prefix: '/v1/networks/{network}/' });
  }

  /**
   * Every validation period the service lists for a node, or `not-found` when it answers
   * its own 404 for the first page. Any other failure throws: never read as "no periods".
   */
  async validatorPeriods(network: Network, nodeId: string, signal?: AbortSignal): Promise<Validator[] | 'not-found'> {
    const read = await this.list({
      endpoint: '/v1/networks/{network}/validators/{nodeId}',
      params: { network, nodeId },
      query: { sortOrder: 'desc' },
      items: 'validators',
      item: validator,
      notFound: true,
      signal,
    });
    return read === 'not-found' ? read : read.items;
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
    const { items } = await this.list({ endpoint, params: { network }, query: validatorListQuery(q), items: 'validators', item: anyItem, signal });
    const wanted = new Set(q.nodeIds);
    const out: ValidatorList = { periods: [], broken: [] };
    for (const [i, item] of items.entries()) {
      const nodeId = readNodeId(item);
      // Another node's item (a substring match): not ours to read, nor to report. Skipped
      // before its parse: a page can list tens of thousands of them (all on the main thread).
      if (nodeId !== undefined && !wanted.has(nodeId)) continue;
      const parsed = validator.safeParse(item);
      if (parsed.success) {
        out.periods.push(parsed.data);
        continue;
      }
      const reason = `data API ${path}: unexpected item validators[${i}]${nodeId === undefined ? '' : ` of ${nodeId}`}: ${issueText(parsed.error, 'item')}`;
      out.broken.push({ nodeId, reason });
      this.options.onBrokenItem?.(endpoint, nodeId, reason);
    }
    return out;
  }

  /**
   * Every active validator of the primary network (no nodeIds: the whole set), for the network
   * baseline. Its own page bound (`maxPages`, not api.maxPages: 2,000 validators is 20 pages);
   * past it, a failed page or a repeated token, the read throws: a part of the set is never
   * returned as the set. The minimum uptime is lifted: the service's default (90) would drop
   * exactly the validators that dip. Sorted by block index for stable paging.
   */
  async activeSet(network: Network, q: { maxPages: number }, signal?: AbortSignal): Promise<ActiveSet> {
    const endpoint = '/v1/networks/{network}/validators';
    const path = `/v1/networks/${network}/validators`;
    const { items } = await this.list({ endpoint, params: { network }, query: activeSetQuery(), items: 'validators', item: anyItem, maxPages: q.maxPages, signal });
    // More than the pages read can hold: pages longer than asked are no sweep (and 40,000 items are not read one by one).
    const most = q.maxPages * this.options.pageSize;
    if (items.length > most) throw new Error(`data API ${path}: ${items.length.toLocaleString('en-US')} items, more than ${q.maxPages} page(s) of ${this.options.pageSize} hold`);
    const out: ActiveSet = { validators: [], broken: [], repeated: 0 };
    const seen = new Set<string>();
    for (const [i, item] of items.entries()) {
      const parsed = activeValidator.safeParse(item);
      if (!parsed.success) {
        const nodeId = readNodeId(item);
        out.broken.push({ nodeId, reason: `data API ${path}: unexpected item validators[${i}]${nodeId === undefined ? '' : ` of ${nodeId}`}: ${issueText(parsed.error, 'item')}` });
        continue;
      }
      if (seen.has(parsed.data.nodeId)) {
        out.repeated++;
        continue;
      }
      seen.add(parsed.data.nodeId);
      out.validators.push(parsed.data);
    }
    return out;
  }

  /** Delegators matching the filters, newest first (by start), one call's worth of filter. */
  async delegators(network: Network, q: DelegatorQuery, signal?: AbortSignal): Promise<Delegator[]> {
    // api.maxPages bounds the pages of each node or address in the filter, not of all together.
    const filtered = Math.max(1, (q.nodeIds?.length ?? 0) + (q.rewardAddresses?.length ?? 0));
    const { items } = await this.list({
      endpoint: '/v1/networks/{network}/delegators',
      params: { network },
      query: { nodeIds: q.nodeIds?.join(','), rewardAddresses: q.rewardAddresses?.join(','), delegationStatus: q.delegationStatus, sortOrder: 'desc' },
      items: 'delegators',
      item: delegator,
      ...(q.pages !== undefined ? { maxPages: q.pages, partial: true } : { maxPages: this.options.maxPages * filtered }),
      ...(q.enough ? { enough: q.enough } : {}),
      signal,
    });
    return items;
  }

  async l1Validators(network: Network, q: L1Query, signal?: AbortSignal): Promise<L1Validator[]> {
    const query = {
      subnetId: q.subnetId,
      nodeId: q.nodeId,
      l1ValidationId: q.validationId,
      includeInactiveL1Validators: q.includeInactive ? 'true' : undefined,
    };
    const endpoint = '/v1/networks/{network}/l1Validators';
    const { items } = await this.list({ endpoint, params: { network }, query, items: 'validators', item: anyItem, signal });
    // One broken item fails the read, as a page's parse would; read one by one, the first is enough
    // (a page flooded with 40,000 broken items, each described, held the daemon for a second).
    return items.map((item, i) => {
      const parsed = l1Validator.safeParse(item);
      if (parsed.success) return parsed.data;
      const first = parsed.error.issues[0];
      throw new ApiError(`data API /v1/networks/${network}/l1Validators: unexpected response: ${['validators', i, ...(first?.path ?? [])].join('.')}: ${first?.message ?? 'invalid'}`, { api: 'data', endpoint, code: 'schema', retryable: false });
    });
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
    const { items, complete } = await this.list({
      endpoint: '/v1/networks/{network}/blockchains/{blockchainId}/nodes/{nodeId}/blocks',
      params: { network, blockchainId: chain, nodeId },
      query: { pageSize: String(q.pageSize), startTimestamp: q.startTimestamp === undefined ? undefined : String(q.startTimestamp) },
      items: 'blocks',
      item: proposedBlock,
      maxPages: q.pages,
      partial: true,
      signal,
    });
    return { blocks: items, complete };
  }
}

/** The query of one bulk validator call (also how `avawatch check` names the call). */
export function validatorListQuery(q: ValidatorListQuery): Record<string, string> {
  const query: Record<string, string> = { nodeIds: q.nodeIds.join(','), validationStatus: q.validationStatus, subnetId: q.subnetId };
  // Only active periods have an uptime: a bound might drop pending ones, as a fee bound drops subnet ones.
  if (q.validationStatus === 'active') query['minUptimePerformance'] = '0';
  return query;
}

/** The query of the whole-set sweep (also how `avawatch check` names its call). */
export function activeSetQuery(): Record<string, string> {
  return { validationStatus: 'active', subnetId: PRIMARY_SUBNET, minUptimePerformance: '0', sortBy: 'blockIndex' };
}

const PRIMARY_SUBNET = '11111111111111111111111111111111LpoYY';

/** An item's nodeId when it is text: the only way to tell whose a broken item is. */
function readNodeId(item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const nodeId = (item as { nodeId?: unknown }).nodeId;
  return typeof nodeId === 'string' ? nodeId : undefined;
}
