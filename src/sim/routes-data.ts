import { z } from 'zod';
import type { Network } from '../api/data-api.js';
import { NETWORKS } from '../rules/fields.js';
import { error, isReply, LIST_LIMITS, ok, paginate, type Ctx, type Handler, type Reply } from './http.js';

const network = z.enum(NETWORKS);

function withNetwork(handler: (ctx: Ctx, net: Network) => Reply): Handler {
  return (ctx) => {
    const parsed = network.safeParse(ctx.params[0]);
    if (!parsed.success) return error(400, [`network must be one of the following values: ${NETWORKS.join(', ')}`]);
    return handler(ctx, parsed.data);
  };
}

function list(ctx: Ctx, items: readonly unknown[], key: string, extra: Record<string, unknown> = {}, limits = LIST_LIMITS): Reply {
  const result = paginate(ctx, items, limits);
  if (isReply(result)) return result;
  return ok({ ...extra, [key]: result.page, ...(result.nextPageToken ? { nextPageToken: result.nextPageToken } : {}) });
}

function sortByStart<T>(ctx: Ctx, items: T[], at: (t: T) => number): T[] {
  const order = ctx.url.searchParams.get('sortOrder') === 'asc' ? 1 : -1;
  return [...items].sort((a, b) => order * (at(a) - at(b)));
}

const csv = (value: string | null): string[] | undefined => (value ? value.split(',').map((s) => s.trim()).filter(Boolean) : undefined);
// P-chain addresses come back bare (avax1…); filters may carry a P- or X- prefix.
const bare = (address: string): string => address.replace(/^[PX]-/, '');

const validators = withNetwork((ctx, net) => {
  const nodeId = decodeURIComponent(ctx.params[1] ?? '');
  let periods = ctx.world.validators(net, nodeId) as Array<{ validationStatus: string; startTimestamp: number }> | undefined;
  if (periods === undefined) {
    if (ctx.world.unknownNode === 'not-found') return error(404, `Validator ${nodeId} not found`);
    periods = [];
  }
  const status = ctx.url.searchParams.get('validationStatus');
  if (status) periods = periods.filter((p) => p.validationStatus === status);
  return list(ctx, sortByStart(ctx, periods, (p) => p.startTimestamp), 'validators');
});

const delegators = withNetwork((ctx, net) => {
  const nodeIds = csv(ctx.url.searchParams.get('nodeIds'));
  const addresses = csv(ctx.url.searchParams.get('rewardAddresses'))?.map(bare);
  const status = ctx.url.searchParams.get('delegationStatus');
  const items = (ctx.world.delegators(net) as Array<{ nodeId: string; rewardAddresses: string[]; delegationStatus: string; startTimestamp: number }>).filter(
    (d) =>
      (!nodeIds || nodeIds.includes(d.nodeId)) &&
      (!addresses || d.rewardAddresses.some((a) => addresses.includes(bare(a)))) &&
      (!status || d.delegationStatus === status),
  );
  return list(ctx, sortByStart(ctx, items, (d) => d.startTimestamp), 'delegators');
});

const l1Validators = withNetwork((ctx, net) => {
  const q = ctx.url.searchParams;
  const includeInactive = q.get('includeInactiveL1Validators') === 'true';
  const items = ctx.world
    .l1Validators(net)
    .filter(({ item, active }) => (includeInactive || active) && (!q.get('l1ValidationId') || item.validationId === q.get('l1ValidationId')))
    .filter(({ item }) => (!q.get('nodeId') || item.nodeId === q.get('nodeId')) && (!q.get('subnetId') || item.subnetId === q.get('subnetId')))
    .map(({ item }) => item);
  const blockHeight = String(20_000_000 + Math.floor(ctx.world.clock.now() / 2));
  return list(ctx, items, 'validators', { blockHeight });
});

const icmMessages: Handler = (ctx) => {
  const net = ctx.url.searchParams.get('network');
  const parsed = net === null ? undefined : network.safeParse(net);
  if (parsed && !parsed.success) return error(400, [`network must be one of the following values: ${NETWORKS.join(', ')}`]);
  return list(ctx, ctx.world.icmMessages(decodeURIComponent(ctx.params[0] ?? ''), parsed?.data), 'messages');
};

const exportRequest = z.looseObject({
  type: z.enum(['TRANSACTION_EXPORT_EVM', 'TRANSACTION_EXPORT_PRIMARY_NETWORK', 'TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING', 'TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE']),
  firstDate: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'firstDate must be YYYY-MM-DD').optional(),
  lastDate: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'lastDate must be YYYY-MM-DD').optional(),
  options: z.looseObject({ addresses: z.array(z.string()).optional(), includeChains: z.array(z.string()).optional() }),
});

const startExport: Handler = (ctx) => {
  const parsed = exportRequest.safeParse(ctx.body);
  if (!parsed.success) return error(400, parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`));
  const op = ctx.world.startExport(parsed.data.type, parsed.data);
  return ok(operationBody(ctx, op.operationId, false), 201);
};

const getOperation: Handler = (ctx) => {
  const id = decodeURIComponent(ctx.params[0] ?? '');
  const op = ctx.world.operations.get(id);
  if (!op) return error(404, `Operation ${id} not found`);
  op.polls++;
  return ok(operationBody(ctx, id, true));
};

function operationBody(ctx: Ctx, id: string, polled: boolean): unknown {
  const op = ctx.world.operations.get(id)!;
  const done = polled && op.polls >= op.completeAfterPolls;
  const status = done ? op.outcome : 'RUNNING';
  const lastDate = String(op.request['lastDate'] ?? '');
  const metadata =
    status === 'COMPLETED'
      ? { downloadUrl: `https://exports.example/${id}.csv` }
      : status === 'COMPLETED_WITH_WARNING'
        ? { code: 'WarnTruncatedExport', downloadUrl: `https://exports.example/${id}.csv`, nextDate: nextDay(String(op.request['firstDate'] ?? lastDate)) }
        : status === 'FAILED'
          ? { code: 'ErrInternal' }
          : {};
  return {
    operationId: id,
    operationType: op.operationType,
    operationStatus: status,
    message: status === 'FAILED' ? 'Export failed: upstream indexer unavailable' : status === 'RUNNING' ? 'Export in progress' : 'Export finished',
    metadata,
    createdAtTimestamp: op.createdAt,
    // The unit is undocumented on the live service; this one answers in milliseconds.
    updatedAtTimestamp: ctx.world.clock.nowMs(),
  };
}

function nextDay(date: string): string {
  const t = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(t) ? date : new Date(t + 86_400_000).toISOString().slice(0, 10);
}

/** The chain a primary-network list is about, on the network that was asked for. */
function chainInfo(chainName: 'p-chain' | 'x-chain', net: Network): { chainName: string; network: Network } {
  return { chainName, network: net };
}

const empty = (key: string, extra: Record<string, unknown> = {}): Handler => (ctx) => list(ctx, [], key, extra);

/** Every Data API endpoint of the interface; the ones avawatch does not poll answer with valid, empty shapes. */
export const dataRoutes: Array<[string, RegExp, Handler]> = [
  ['GET', /^\/v1\/networks\/([^/]+)\/validators\/([^/]+)$/, validators],
  ['GET', /^\/v1\/networks\/([^/]+)\/delegators$/, delegators],
  ['GET', /^\/v1\/networks\/([^/]+)\/l1Validators$/, l1Validators],
  ['GET', /^\/v1\/icm\/addresses\/([^/]+)\/messages$/, icmMessages],
  ['POST', /^\/v1\/operations\/transactions:export$/, startExport],
  ['GET', /^\/v1\/operations\/([^/]+)$/, getOperation],
  ['GET', /^\/v1\/networks\/([^/]+)\/subnets$/, withNetwork((ctx) => list(ctx, [], 'subnets', {}, { min: 1, max: 10_000, def: 100 }))],
  ['GET', /^\/v1\/networks\/([^/]+)\/blockchains\/([^/]+)\/transactions:listStaking$/, withNetwork((ctx, net) => list(ctx, [], 'transactions', { chainInfo: chainInfo('p-chain', net) }))],
  ['GET', /^\/v1\/networks\/([^/]+)\/blockchains\/([^/]+)\/assets\/([^/]+)\/transactions$/, withNetwork((ctx, net) => list(ctx, [], 'transactions', { chainInfo: chainInfo('x-chain', net) }))],
  ['GET', /^\/v1\/networks\/([^/]+)\/blockchains\/([^/]+)\/nodes\/([^/]+)\/blocks$/, withNetwork((ctx, net) => list(ctx, [], 'blocks', { chainInfo: chainInfo('p-chain', net) }))],
  ['GET', /^\/v1\/chains\/([^/]+)\/addresses\/([^/]+)\/transactions(?::list(?:Erc20|Erc721|Erc1155|Internals))?$/, empty('transactions')],
  ['GET', /^\/v1\/chains\/([^/]+)\/contracts\/([^/]+)\/deployments$/, empty('contracts')],
  ['GET', /^\/v1\/chains\/([^/]+)\/blocks\/([^/]+)\/transactions$/, (ctx) => list(ctx, [], 'transactions', {}, { min: 0, max: 100, def: 0 })],
  ['GET', /^\/v1\/chains\/([^/]+)\/nfts\/collections\/([^/]+)\/tokens$/, empty('tokens')],
  [
    'GET',
    /^\/v1\/chains\/([^/]+)\/contracts\/([^/]+)\/transactions:getDeployment$/,
    (ctx) => error(404, `Contract ${ctx.params[1]} not found`),
  ],
  [
    'GET',
    /^\/v1\/signatureAggregator\/([^/]+)\/aggregateSignatures\/([^/]+)$/,
    // The published specification answers this GET with 201, not 200; the SDK accepts only 201.
    withNetwork(() => ok({ signedMessage: `0x${'ab'.repeat(96)}` }, 201)),
  ],
];
