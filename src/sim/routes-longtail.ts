import { z } from 'zod';
import { NETWORKS } from '../rules/fields.js';
import { error, isReply, LIST_LIMITS, ok, paginate, type Ctx, type Handler, type PageLimits, type SimArea } from './http.js';

// The long-tail Data API lists (src/sim/longtail.ts holds their items), paged as the service pages.

const network = z.enum(NETWORKS);

function list(ctx: Ctx, items: readonly unknown[], key: string, extra: Record<string, unknown> = {}, limits: PageLimits = LIST_LIMITS) {
  const result = paginate(ctx, items, limits);
  if (isReply(result)) return result;
  return ok({ ...extra, [key]: result.page, ...(result.nextPageToken ? { nextPageToken: result.nextPageToken } : {}) });
}

const param = (ctx: Ctx, i: number): string => decodeURIComponent(ctx.params[i] ?? '');

const nftTokens: Handler = (ctx) => list(ctx, ctx.world.longTail.nftTokens(param(ctx, 0), param(ctx, 1)), 'tokens');

const deployments: Handler = (ctx) => list(ctx, ctx.world.longTail.deployedBy(param(ctx, 0), param(ctx, 1)), 'contracts');

// pageSize 0..100, default 0: the service's own range for this list (0 reads as 1 here).
const blockTransactions: Handler = (ctx) => list(ctx, ctx.world.longTail.blockTransactions(param(ctx, 0), param(ctx, 1)), 'transactions', {}, { min: 0, max: 100, def: 0 });

const TIMESTAMP = /^\d+$/;

const assetTransactions: Handler = (ctx) => {
  const net = network.safeParse(ctx.params[0]);
  if (!net.success) return error(400, [`network must be one of the following values: ${NETWORKS.join(', ')}`]);
  const q = ctx.url.searchParams;
  const problems = ['startTimestamp', 'endTimestamp'].filter((k) => q.has(k) && !TIMESTAMP.test(q.get(k) ?? '')).map((k) => `${k} must be an integer >= 0`);
  if (problems.length > 0) return error(400, problems);
  const txTypes = q.get('txTypes')?.split(',').filter(Boolean);
  const time = (k: string) => (q.has(k) ? Number(q.get(k)) : undefined);
  const items = ctx.world.longTail.assetTransactions(net.data, param(ctx, 2), { txTypes, start: time('startTimestamp'), end: time('endTimestamp') });
  return list(ctx, items, 'transactions', { chainInfo: { chainName: 'x-chain', network: net.data } });
};

/** The endpoints the endpoint kind reads from the long tail: assets, deployments, block transactions, NFTs. */
export const longTailArea: SimArea = {
  name: 'long tail',
  routes: [
    ['GET', /^\/v1\/networks\/([^/]+)\/blockchains\/([^/]+)\/assets\/([^/]+)\/transactions$/, assetTransactions],
    ['GET', /^\/v1\/chains\/([^/]+)\/contracts\/([^/]+)\/deployments$/, deployments],
    ['GET', /^\/v1\/chains\/([^/]+)\/blocks\/([^/]+)\/transactions$/, blockTransactions],
    ['GET', /^\/v1\/chains\/([^/]+)\/nfts\/collections\/([^/]+)\/tokens$/, nftTokens],
  ],
};
