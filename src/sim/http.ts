import type { World } from './world.js';

// The simulator's small HTTP vocabulary: replies, the service's error shape, pagination.

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Answer only after this long (a slow route, e.g. the signature aggregator's latencyMs). */
  delayMs?: number;
}

export interface Ctx {
  world: World;
  method: string;
  url: URL;
  params: string[];
  body: unknown;
}

export type Handler = (ctx: Ctx) => Reply;

/** One endpoint: its method, its path pattern (groups are the params), its handler. */
export type Route = [method: string, path: RegExp, handler: Handler];

/**
 * One area of the service the simulator serves (P-Chain, EVM addresses, metrics…): its
 * routes. Areas register in areas.ts, in the order their routes are tried.
 */
export interface SimArea {
  name: string;
  routes: readonly Route[];
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** The one error shape of the service: {message (string or string[]), error, statusCode}. */
export function error(status: number, message: string | string[]): Reply {
  return { status, body: { message, error: STATUS_TEXT[status] ?? 'Error', statusCode: status } };
}

export function ok(body: unknown, status = 200): Reply {
  return { status, body };
}

export interface PageLimits {
  min: number;
  max: number;
  def: number;
}

export const LIST_LIMITS: PageLimits = { min: 1, max: 100, def: 10 };
const TOKEN_TTL_MS = 24 * 3_600_000;

/**
 * One page of `items` as the service pages: opaque tokens that expire after 24 hours, a
 * pageSize range per endpoint, nextPageToken only when more follows.
 */
export function paginate<T>(ctx: Ctx, items: readonly T[], limits: PageLimits = LIST_LIMITS): { page: T[]; nextPageToken?: string } | Reply {
  const raw = ctx.url.searchParams.get('pageSize');
  const size = raw === null ? limits.def : Number(raw);
  if (!Number.isInteger(size) || size < limits.min || size > limits.max) {
    return error(400, [`pageSize must not be greater than ${limits.max}`, `pageSize must not be less than ${limits.min}`]);
  }
  const token = ctx.url.searchParams.get('pageToken');
  let offset = 0;
  if (token !== null) {
    const decoded = readToken(token);
    if (decoded === undefined) return error(400, 'Invalid page token');
    if (ctx.world.settings.expirePageTokens || Date.now() - decoded.t > TOKEN_TTL_MS) return error(400, 'Page token has expired, restart from the first page');
    offset = decoded.o;
  }
  const pageSize = Math.max(size, 1);
  const page = items.slice(offset, offset + pageSize);
  const more = offset + pageSize < items.length;
  if (ctx.world.settings.repeatPageToken && (more || token !== null)) return { page, nextPageToken: token ?? makeToken(pageSize) };
  return more ? { page, nextPageToken: makeToken(offset + pageSize) } : { page };
}

export function isReply(value: unknown): value is Reply {
  return typeof value === 'object' && value !== null && 'status' in value && 'body' in value;
}

function makeToken(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset, t: Date.now(), n: Math.random().toString(36).slice(2, 8) })).toString('base64url');
}

function readToken(token: string): { o: number; t: number } | undefined {
  try {
    const value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { o?: unknown; t?: unknown };
    return typeof value.o === 'number' && typeof value.t === 'number' ? { o: value.o, t: value.t } : undefined;
  } catch {
    return undefined;
  }
}
