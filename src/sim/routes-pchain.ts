import type { Network } from '../api/data/reader.js';
import { NETWORKS } from '../rules/fields.js';
import { error, isReply, LIST_LIMITS, ok, paginate, type Ctx, type Handler, type PageLimits, type Reply, type SimArea } from './http.js';
import { stakingItem, subnetItem } from './pchain.js';

// The routes of the simulated P-chain: staking transactions (listStaking) and subnets.

const SUBNET_LIMITS: PageLimits = { min: 1, max: 10_000, def: 100 };

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
// P-chain addresses come back bare (avax1…); filters may carry a P- or X- prefix.
const bare = (address: string): string => address.replace(/^[PX]-/, '');

function networkOf(ctx: Ctx): Network | Reply {
  const net = ctx.params[0] as Network;
  return (NETWORKS as readonly string[]).includes(net) ? net : error(400, [`network must be one of the following values: ${NETWORKS.join(', ')}`]);
}

/** sortOrder and the timestamp bounds, as the service validates them: every problem in one 400. */
function readQuery(q: URLSearchParams): { order: number; start?: number; end?: number } | Reply {
  const problems: string[] = [];
  const sortOrder = q.get('sortOrder');
  if (sortOrder !== null && sortOrder !== 'asc' && sortOrder !== 'desc') problems.push('sortOrder must be one of the following values: asc, desc');
  const bound = (name: string): number | undefined => {
    const raw = q.get(name);
    if (raw === null) return undefined;
    const value = raw.trim() === '' ? NaN : Number(raw);
    if (!Number.isInteger(value)) problems.push(`${name} must be an integer number`);
    return value;
  };
  const start = bound('startTimestamp');
  const end = bound('endTimestamp');
  if (problems.length > 0) return error(400, problems);
  return { order: sortOrder === 'asc' ? 1 : -1, ...(start !== undefined ? { start } : {}), ...(end !== undefined ? { end } : {}) };
}

function list(ctx: Ctx, items: readonly unknown[], key: string, extra: Record<string, unknown>, limits: PageLimits): Reply {
  const result = paginate(ctx, items, limits);
  if (isReply(result)) return result;
  return ok({ ...extra, [key]: result.page, ...(result.nextPageToken ? { nextPageToken: result.nextPageToken } : {}) });
}

/**
 * Active staking transactions (their period not ended on the simulated clock) of any of
 * `addresses` (comma-separated, bare or P-/X- prefixed), of `txTypes` (repeated or
 * comma-separated), with a block time within start/endTimestamp; newest block first unless
 * sortOrder=asc, equal times by txHash.
 */
const listStaking: Handler = (ctx) => {
  const net = networkOf(ctx);
  if (isReply(net)) return net;
  const q = ctx.url.searchParams;
  const read = readQuery(q);
  if (isReply(read)) return read;
  const addresses = q.get('addresses')?.split(',').map((a) => bare(a.trim())).filter(Boolean);
  const types = q.getAll('txTypes').flatMap((t) => t.split(',')).filter(Boolean);
  const items = ctx.world.pchain
    .stakingTransactions(net, ctx.world.clock.now())
    .filter(
      (s) =>
        (!addresses?.length || s.addresses.some((a) => addresses.includes(bare(a)))) &&
        (types.length === 0 || types.includes(s.txType)) &&
        (read.start === undefined || s.blockTimestamp >= read.start) &&
        (read.end === undefined || s.blockTimestamp <= read.end),
    )
    .sort((a, b) => read.order * (a.blockTimestamp - b.blockTimestamp) || compareText(a.txHash, b.txHash))
    .map((s) => stakingItem(net, s));
  return list(ctx, items, 'transactions', { chainInfo: { chainName: 'p-chain', network: net } }, LIST_LIMITS);
};

/** Every listed subnet of the network, oldest first unless sortOrder=desc; pages of up to 10,000. */
const listSubnets: Handler = (ctx) => {
  const net = networkOf(ctx);
  if (isReply(net)) return net;
  const sortOrder = ctx.url.searchParams.get('sortOrder');
  if (sortOrder !== null && sortOrder !== 'asc' && sortOrder !== 'desc') return error(400, ['sortOrder must be one of the following values: asc, desc']);
  const order = sortOrder === 'desc' ? -1 : 1;
  const items = ctx.world.pchain
    .subnets(net)
    .sort((a, b) => order * (a.createBlockTimestamp - b.createBlockTimestamp) || compareText(a.subnetId, b.subnetId))
    .map(subnetItem);
  return list(ctx, items, 'subnets', {}, SUBNET_LIMITS);
};

/** The P-Chain's subnets and staking transactions. */
export const pchainArea: SimArea = {
  name: 'pchain',
  routes: [
    ['GET', /^\/v1\/networks\/([^/]+)\/subnets$/, listSubnets],
    ['GET', /^\/v1\/networks\/([^/]+)\/blockchains\/([^/]+)\/transactions:listStaking$/, listStaking],
  ],
};
