import { ApiError } from './errors.js';

export interface Page<T> {
  items: T[];
  nextPageToken?: string | undefined;
}

export interface PaginateOptions<T = unknown> {
  api: string;
  endpoint: string;
  maxPages: number;
  /** Return what `maxPages` pages hold instead of failing (for newest-first reads). */
  stopAtMax?: boolean;
  onTruncated?: () => void;
  /** Read no further once a page says so (newest-first reads that reached what they know). */
  enough?: (page: readonly T[]) => boolean;
}

/**
 * Every item of a paginated list, or an error: a list cut short must never pass for a
 * whole one (a rule would read the missing items as gone). An expired token restarts the
 * walk at page one, once; a token the service repeats stops it.
 */
export async function collectPages<T>(
  fetchPage: (pageToken: string | undefined) => Promise<Page<T>>,
  options: PaginateOptions<T>,
): Promise<T[]> {
  for (let restart = 0; ; restart++) {
    try {
      return await walk(fetchPage, options);
    } catch (err) {
      if (restart === 0 && isExpiredToken(err)) continue;
      throw err;
    }
  }
}

async function walk<T>(fetchPage: (pageToken: string | undefined) => Promise<Page<T>>, o: PaginateOptions<T>): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let token: string | undefined;
  for (let page = 1; ; page++) {
    const result = await fetchPage(token);
    for (const item of result.items) items.push(item);
    const next = result.nextPageToken;
    if (next === undefined || next === '' || o.enough?.(result.items)) return items;
    if (seen.has(next) || next === token) {
      throw pageError(o, `the service sent page token "${next.slice(0, 40)}" a second time (page ${page + 1})`);
    }
    if (page >= o.maxPages) {
      if (o.stopAtMax) {
        o.onTruncated?.();
        return items;
      }
      throw pageError(o, `more than ${o.maxPages} pages; raise api.maxPages or narrow the rule`);
    }
    seen.add(next);
    token = next;
  }
}

function pageError(o: Pick<PaginateOptions, 'api' | 'endpoint'>, what: string): ApiError {
  return new ApiError(`${o.api} API ${o.endpoint}: ${what}`, {
    api: o.api,
    endpoint: o.endpoint,
    code: 'pagination',
    retryable: false,
  });
}

function isExpiredToken(err: unknown): boolean {
  if (!(err instanceof ApiError) || err.details.status !== 400) return false;
  return /token/i.test(err.details.serviceMessage ?? '');
}
