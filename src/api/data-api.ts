import type { z } from 'zod';
import { ApiError } from './errors.js';
import type { HttpClient } from './http.js';
import { collectPages } from './paginate.js';
import { validatorsPage, type Validator } from './schemas.js';

export type Network = 'mainnet' | 'fuji' | 'testnet';

export interface DataApiOptions {
  pageSize: number;
  maxPages: number;
}

/** The Data API endpoints avawatch polls, each answer parsed against the live shapes. */
export class DataApi {
  constructor(
    readonly http: HttpClient,
    readonly options: DataApiOptions,
  ) {}

  /**
   * Every validation period the service lists for a node, or `not-found` when it answers
   * 404 for that node. Any other failure throws: it is never read as "no periods".
   */
  async validatorPeriods(network: Network, nodeId: string, signal?: AbortSignal): Promise<Validator[] | 'not-found'> {
    const endpoint = '/v1/networks/{network}/validators/{nodeId}';
    const path = `/v1/networks/${network}/validators/${encodeURIComponent(nodeId)}`;
    try {
      return await collectPages(
        async (pageToken) => {
          const body = await this.http
            .getJson({
              endpoint,
              path,
              query: { pageSize: this.options.pageSize, pageToken, sortOrder: 'desc' },
              ...(signal ? { signal } : {}),
            })
            .catch((err: unknown) => {
              throw pageToken === undefined && isServiceNotFound(err) ? NOT_FOUND : err;
            });
          const page = parse(validatorsPage, body, endpoint, path);
          return { items: page.validators, nextPageToken: page.nextPageToken };
        },
        { api: 'data', endpoint: `GET ${path}`, maxPages: this.options.maxPages },
      );
    } catch (err) {
      if (err === NOT_FOUND) return 'not-found';
      throw err;
    }
  }
}

const NOT_FOUND = Symbol('not found');

/**
 * The service's own 404 for the first page: the node is unknown. A 404 from a proxy, or on
 * a later page, is a failure like any other.
 */
function isServiceNotFound(err: unknown): boolean {
  return err instanceof ApiError && err.details.status === 404 && err.details.serviceError === true;
}

/** A body that breaks the schema is an API failure, named by endpoint and field. */
export function parse<T extends z.ZodType>(schema: T, body: unknown, endpoint: string, path: string): z.output<T> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const first = result.error.issues[0];
  const where = first && first.path.length > 0 ? first.path.join('.') : 'body';
  const more = result.error.issues.length > 1 ? ` (+${result.error.issues.length - 1} more)` : '';
  throw new ApiError(`data API GET ${path}: unexpected response: ${where}: ${first?.message ?? 'invalid'}${more}`, {
    api: 'data',
    endpoint,
    code: 'schema',
    retryable: false,
  });
}
