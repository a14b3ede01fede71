import type { z } from 'zod';
import { ApiError } from '../errors.js';
import type { HttpClient } from '../http.js';
import { collectPages } from '../paginate.js';
import { pageOf, parse } from '../parse.js';

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

/** One area of the interface (its §4): a name, and the path prefix of every endpoint in it. */
export interface Area {
  name: string;
  /** As the interface writes it, e.g. `/v1/networks/{network}/`. */
  prefix: string;
}

interface Request {
  /**
   * The path template as the interface writes it (`/v1/networks/{network}/subnets`): how
   * errors, metrics and the budget name the call. It lies in the reader's area.
   */
  endpoint: string;
  /** The template's `{names}`, each filled in URL-encoded. */
  params?: Readonly<Record<string, string>>;
  query?: Readonly<Record<string, string | undefined>>;
  signal?: AbortSignal | undefined;
}

/** One answer (a GET, or a POST with `body`). */
export interface GetRequest<S extends z.ZodType> extends Request {
  /** The answer: only the fields the caller reads (unknown fields are dropped as it is read). */
  schema: S;
  /** A JSON body: the call is a POST, retried only on a 429. */
  body?: Record<string, unknown>;
  /** One attempt, never retried nor answered by another rule's call (see ApiRequest.probe). */
  probe?: boolean;
  /** Called as each attempt is sent, past the budget's wait. */
  onSent?: () => void;
}

/** Every page of a list, or the first ones. */
export interface ListRequest<S extends z.ZodType> extends Request {
  /** The key of a page that holds the list: `validators`, `transactions`, … */
  items: string;
  /** One item: only the fields the caller reads. */
  item: S;
  /** Pages read at most (default api.maxPages). */
  maxPages?: number;
  /**
   * Past maxPages, return what was read with `complete: false` (newest-first reads). Without
   * it the read fails there: a list cut short must never pass for a whole one.
   */
  partial?: boolean;
  /** Read no further once a page says so (newest-first reads that reached what they know). */
  enough?: (page: readonly z.output<S>[]) => boolean;
}

export interface Listed<T> {
  items: T[];
  /** The list ended (or `enough` stopped it) within the pages read. */
  complete: boolean;
}

/** With `notFound: true`, the service's own 404 (for a list: to its first page) answers `not-found`. */
interface OrNotFound {
  notFound: true;
}

const NOT_FOUND = Symbol('not found');

/**
 * The reader of one area of the chain data service: a typed `get` and `list` of any endpoint
 * under its prefix, each answer parsed with the caller's schema of only the fields it reads
 * (a failure names the endpoint and the field), paged within api.maxPages, and counted
 * against the compute-unit budget by the HTTP client below. The area's own readers build on
 * them; a kind that reads an endpoint no other kind reads calls them from its own folder.
 */
export class AreaReader {
  constructor(
    readonly http: HttpClient,
    readonly options: DataApiOptions,
    readonly area: Area,
  ) {}

  get<S extends z.ZodType>(r: GetRequest<S> & OrNotFound): Promise<z.output<S> | 'not-found'>;
  get<S extends z.ZodType>(r: GetRequest<S>): Promise<z.output<S>>;
  async get<S extends z.ZodType>(r: GetRequest<S> & Partial<OrNotFound>): Promise<z.output<S> | 'not-found'> {
    const path = this.#path(r);
    try {
      const body = await this.http.getJson({ endpoint: r.endpoint, path, query: r.query, body: r.body, probe: r.probe, onSent: r.onSent, signal: r.signal });
      return parse(r.schema, body, r.endpoint, path);
    } catch (err) {
      if (r.notFound === true && isServiceNotFound(err)) return 'not-found';
      throw err;
    }
  }

  list<S extends z.ZodType>(r: ListRequest<S> & OrNotFound): Promise<Listed<z.output<S>> | 'not-found'>;
  list<S extends z.ZodType>(r: ListRequest<S>): Promise<Listed<z.output<S>>>;
  async list<S extends z.ZodType>(r: ListRequest<S> & Partial<OrNotFound>): Promise<Listed<z.output<S>> | 'not-found'> {
    const path = this.#path(r);
    const page = pageOf(r.items, r.item);
    let complete = true;
    try {
      const items = await collectPages<z.output<S>>(
        async (pageToken) => {
          const body = await this.http
            .getJson({ endpoint: r.endpoint, path, query: { pageSize: this.options.pageSize, ...r.query, pageToken }, signal: r.signal })
            .catch((err: unknown) => {
              throw r.notFound === true && pageToken === undefined && isServiceNotFound(err) ? NOT_FOUND : err;
            });
          const parsed: Record<string, unknown> = parse(page, body, r.endpoint, path);
          return { items: parsed[r.items] as z.output<S>[], nextPageToken: parsed['nextPageToken'] as string | undefined };
        },
        {
          api: 'data',
          endpoint: `GET ${path}`,
          maxPages: r.maxPages ?? this.options.maxPages,
          stopAtMax: r.partial === true,
          onTruncated: () => (complete = false),
          ...(r.enough ? { enough: r.enough } : {}),
        },
      );
      return { items, complete };
    } catch (err) {
      if (err === NOT_FOUND) return 'not-found';
      throw err;
    }
  }

  /** The concrete path of a request: its template, in this area, with each value URL-encoded. */
  #path(r: Request): string {
    if (!r.endpoint.startsWith(this.area.prefix)) throw new Error(`${r.endpoint} is not in the ${this.area.name} area (${this.area.prefix}…): ask the reader of its area`);
    return r.endpoint.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = r.params?.[name];
      if (value === undefined) throw new Error(`${r.endpoint}: no value for {${name}}`);
      // URL parsing folds a `.` or `..` segment (encoded or not) into another path: never asked.
      if (value === '.' || value === '..') throw new ApiError(`data API: ${name} "${value}" cannot be asked for`, { api: 'data', endpoint: r.endpoint, code: 'bad_id', retryable: false });
      return encodeURIComponent(value);
    });
  }
}

/**
 * The service's own 404: an unknown node or operation. A 404 from a proxy (not the
 * service's error shape) is a failure like any other.
 */
export function isServiceNotFound(err: unknown): boolean {
  return err instanceof ApiError && err.details.status === 404 && err.details.serviceError === true;
}
