import { z } from 'zod';
import { NETWORKS } from '../rules/fields.js';
import { error, isReply, LIST_LIMITS, ok, paginate, type Ctx, type Handler, type PageLimits } from './http.js';

// The long-tail Data API lists (src/sim/longtail.ts holds their items), paged as the service pages.

const network = z.enum(NETWORKS);

function list(ctx: Ctx, items: readonly unknown[], key: string, extra: Record<string, unknown> = {}, limits: PageLimits = LIST_LIMITS) {
  const result = paginate(ctx, items, limits);
  if (isReply(result)) return result;
  return ok({ ...extra, [key]: result.page, ...(result.nextPageToken ? { nextPageToken: result.nextPageToken } : {}) });
}

const param = (ctx: Ctx, i: number): string => decodeURIComponent(ctx.params[i] ?? '');

export const nftTokens: Handler = (ctx) => list(ctx, ctx.world.longTail.nftTokens(param(ctx, 0), param(ctx, 1)), 'tokens');

export const deployments: Handler = (ctx) => list(ctx, ctx.world.longTail.deployedBy(param(ctx, 0), param(ctx, 1)), 'contracts');

// pageSize 0..100, default 0: the service's own range for this list (0 reads as 1 here).
export const blockTransactions: Handler = (ctx) => list(ctx, ctx.world.longTail.blockTransactions(param(ctx, 0), param(ctx, 1)), 'transactions', {}, { min: 0, max: 100, def: 0 });

const TIMESTAMP = /^\d+$/;

export const assetTransactions: Handler = (ctx) => {
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
