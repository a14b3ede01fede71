import { z } from 'zod';
import type { Network } from '../api/data/reader.js';
import { NETWORKS } from '../rules/fields.js';
import { error, isReply, LIST_LIMITS, ok, paginate, type Ctx, type Handler, type Reply, type SimArea } from './http.js';
import { PRIMARY_CHAINS, primaryChain } from './blocks.js';
import { proposedBlockItem } from './samples.js';
import { pChainHeightAt } from './proposervm.js';

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

/** By start, newest first unless sortOrder=asc; equal starts by txHash, so pages never shuffle. */
function sortByStart<T extends { startTimestamp: number; txHash: string }>(ctx: Ctx, items: readonly T[]): T[] {
  const order = ctx.url.searchParams.get('sortOrder') === 'asc' ? 1 : -1;
  return [...items].sort((a, b) => order * (a.startTimestamp - b.startTimestamp) || compareText(a.txHash, b.txHash));
}

// Code-unit order, not the locale's: the same on every machine.
const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const csv = (value: string | null): string[] | undefined => (value ? value.split(',').map((s) => s.trim()).filter(Boolean) : undefined);
// P-chain addresses come back bare (avax1…); filters may carry a P- or X- prefix.
const bare = (address: string): string => address.replace(/^[PX]-/, '');

const validators = withNetwork((ctx, net) => {
  const nodeId = decodeURIComponent(ctx.params[1] ?? '');
  let periods = ctx.world.validators(net, nodeId) as Array<{ validationStatus: string; startTimestamp: number; txHash: string }> | undefined;
  if (periods === undefined) {
    if (ctx.world.unknownNode === 'not-found') return error(404, `Validator ${nodeId} not found`);
    periods = [];
  }
  const status = ctx.url.searchParams.get('validationStatus');
  if (status) periods = periods.filter((p) => p.validationStatus === status);
  return list(ctx, sortByStart(ctx, periods), 'validators');
});

const delegators = withNetwork((ctx, net) => {
  const nodeIds = csv(ctx.url.searchParams.get('nodeIds'));
  const addresses = csv(ctx.url.searchParams.get('rewardAddresses'))?.map(bare);
  const status = ctx.url.searchParams.get('delegationStatus');
  const items = (ctx.world.delegators(net) as Array<{ txHash: string; nodeId: string; rewardAddresses: string[]; delegationStatus: string; startTimestamp: number }>).filter(
    (d) =>
      (!nodeIds || nodeIds.includes(d.nodeId)) &&
      (!addresses || d.rewardAddresses.some((a) => addresses.includes(bare(a)))) &&
      (!status || d.delegationStatus === status),
  );
  return list(ctx, sortByStart(ctx, items), 'delegators');
});

type Item = Record<string, unknown>;
interface Bound {
  min?: number | undefined;
  max?: number | undefined;
}

const SORT_BY = ['blockIndex', 'delegationCapacity', 'timeRemaining', 'delegationFee', 'uptimePerformance'] as const;
const numberAt = (v: Item, key: string): number | undefined => (typeof v[key] === 'number' ? v[key] : undefined);
// Seconds until the period ends on the simulated clock; an ended period has none left.
const timeRemaining = (v: Item, now: number): number | undefined => {
  const end = numberAt(v, 'endTimestamp');
  return end === undefined ? undefined : Math.max(0, end - now);
};

/** What each sortBy orders on; undefined where a period does not carry the field. */
const SORT_KEYS: Record<(typeof SORT_BY)[number], (v: Item, now: number) => number | bigint | undefined> = {
  // The items carry no block index: the start stands in for the block that added the period.
  blockIndex: (v) => numberAt(v, 'startTimestamp'),
  // nAVAX beyond 2^53: compared exactly.
  delegationCapacity: (v) => (typeof v['delegationCapacity'] === 'string' && /^\d+$/.test(v['delegationCapacity']) ? BigInt(v['delegationCapacity']) : undefined),
  timeRemaining,
  delegationFee: (v) => (typeof v['delegationFee'] === 'string' ? Number(v['delegationFee']) : undefined),
  uptimePerformance: (v) => numberAt(v, 'uptimePerformance'),
};

/** `order` 1 ascending, -1 descending; a missing value comes last either way. */
function compareKeys(a: number | bigint | undefined, b: number | bigint | undefined, order: number): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  return a < b ? -order : a > b ? order : 0;
}

// A bound only judges the periods that carry the value (uptime is on active periods alone),
// so every status still comes back without validationStatus.
const within = (value: number | undefined, { min, max }: Bound): boolean => value === undefined || ((min === undefined || value >= min) && (max === undefined || value <= max));

/** A query parameter read as the service validates it: every problem goes into one 400. */
function param(q: URLSearchParams, problems: string[]) {
  return {
    number(name: string): number | undefined {
      const raw = q.get(name);
      if (raw === null) return undefined;
      const value = raw.trim() === '' ? NaN : Number(raw);
      if (!Number.isFinite(value)) problems.push(`${name} must be a number conforming to the specified constraints`);
      return value;
    },
    oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
      const raw = q.get(name);
      if (raw === null) return undefined;
      if (!(values as readonly string[]).includes(raw)) problems.push(`${name} must be one of the following values: ${values.join(', ')}`);
      return raw as T;
    },
  };
}

/**
 * Every period of every node on the network, rendered as the per-node route renders them.
 * nodeIds match as substrings, as the live service does (`NodeID-abc` also returns
 * `NodeID-abcdef`); a request without minUptimePerformance gets the world's default floor,
 * if one is set (World.bulkDefaultMinUptime).
 */
const validatorList = withNetwork((ctx, net) => {
  const q = ctx.url.searchParams;
  const problems: string[] = [];
  const read = param(q, problems);
  const sortBy = read.oneOf('sortBy', SORT_BY);
  const order = read.oneOf('sortOrder', ['asc', 'desc'] as const) === 'asc' ? 1 : -1;
  const status = read.oneOf('validationStatus', ['completed', 'active', 'pending', 'removed'] as const);
  const uptime = { min: read.number('minUptimePerformance') ?? ctx.world.bulkDefaultMinUptime, max: read.number('maxUptimePerformance') };
  const remaining = { min: read.number('minTimeRemaining'), max: read.number('maxTimeRemaining') };
  if (problems.length > 0) return error(400, problems);

  const nodeIds = csv(q.get('nodeIds'));
  const subnetId = q.get('subnetId');
  const now = ctx.world.clock.now();
  const items = (ctx.world.allValidators(net) as Item[]).filter(
    (v) =>
      (!nodeIds?.length || nodeIds.some((id) => String(v['nodeId']).includes(id))) &&
      (!status || v['validationStatus'] === status) &&
      (!subnetId || v['subnetId'] === subnetId) &&
      within(numberAt(v, 'uptimePerformance'), uptime) &&
      within(timeRemaining(v, now), remaining),
  );
  const key = sortBy ? SORT_KEYS[sortBy] : (v: Item) => numberAt(v, 'startTimestamp');
  const sorted = items.sort(
    (a, b) => compareKeys(key(a, now), key(b, now), order) || compareText(String(a['nodeId']), String(b['nodeId'])) || compareText(String(a['txHash']), String(b['txHash'])),
  );
  return list(ctx, sorted, 'validators');
});

const l1Validators = withNetwork((ctx, net) => {
  const q = ctx.url.searchParams;
  const includeInactive = q.get('includeInactiveL1Validators') === 'true';
  const items = ctx.world
    .l1Validators(net)
    .filter(({ item, active }) => (includeInactive || active) && (!q.get('l1ValidationId') || item.validationId === q.get('l1ValidationId')))
    .filter(({ item }) => (!q.get('nodeId') || item.nodeId === q.get('nodeId')) && (!q.get('subnetId') || item.subnetId === q.get('subnetId')))
    .map(({ item }) => item);
  const blockHeight = String(pChainHeightAt(ctx.world.clock.nowMs()));
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

/**
 * The blocks a node proposed on a primary-network chain, newest first; startTimestamp and
 * endTimestamp bound them (inclusive). chainInfo names the chain that was asked for.
 */
const proposedBlocks = withNetwork((ctx, net) => {
  const chain = primaryChain(net, decodeURIComponent(ctx.params[1] ?? ''));
  const problems: string[] = [];
  const read = param(ctx.url.searchParams, problems);
  const start = read.number('startTimestamp');
  const end = read.number('endTimestamp');
  if (!chain) problems.push(`blockchainId must be one of the following values: ${PRIMARY_CHAINS.join(', ')} or the blockchain id of one of them`);
  for (const [name, v] of [['startTimestamp', start], ['endTimestamp', end]] as const) if (v !== undefined && v < 0) problems.push(`${name} must not be less than 0`);
  if (problems.length > 0 || !chain) return error(400, problems);
  const nodeId = decodeURIComponent(ctx.params[2] ?? '');
  const result = paginate(ctx, ctx.world.proposedBlocks.list(net, chain, nodeId, ctx.world.clock.now(), start, end));
  if (isReply(result)) return result;
  // Only the page is rendered: a node proposing every few seconds lists thousands.
  const blocks = result.page.map((timestamp) => proposedBlockItem({ nodeId, chain, timestamp }));
  return ok({ chainInfo: { chainName: chain, network: net }, blocks, ...(result.nextPageToken ? { nextPageToken: result.nextPageToken } : {}) });
});

const empty = (key: string, extra: Record<string, unknown> = {}): Handler => (ctx) => list(ctx, [], key, extra);

/**
 * The Data API's validators, delegators, L1 validators, proposed blocks, ICM, operations and
 * the signature aggregator; the EVM lists avawatch does not read answer with valid, empty
 * shapes (after the EVM area's own routes).
 */
export const dataArea: SimArea = { name: 'data', routes: [
  ['GET', /^\/v1\/networks\/([^/]+)\/validators\/([^/]+)$/, validators],
  ['GET', /^\/v1\/networks\/([^/]+)\/validators$/, validatorList],
  ['GET', /^\/v1\/networks\/([^/]+)\/delegators$/, delegators],
  ['GET', /^\/v1\/networks\/([^/]+)\/l1Validators$/, l1Validators],
  ['GET', /^\/v1\/icm\/addresses\/([^/]+)\/messages$/, icmMessages],
  ['POST', /^\/v1\/operations\/transactions:export$/, startExport],
  ['GET', /^\/v1\/operations\/([^/]+)$/, getOperation],
  ['GET', /^\/v1\/networks\/([^/]+)\/blockchains\/([^/]+)\/nodes\/([^/]+)\/blocks$/, proposedBlocks],
  ['GET', /^\/v1\/chains\/([^/]+)\/addresses\/([^/]+)\/transactions(?::list(?:Erc20|Erc721|Erc1155|Internals))?$/, empty('transactions')],
  [
    'GET',
    /^\/v1\/chains\/([^/]+)\/contracts\/([^/]+)\/transactions:getDeployment$/,
    (ctx) => error(404, `Contract ${ctx.params[1]} not found`),
  ],
  [
    'GET',
    /^\/v1\/signatureAggregator\/([^/]+)\/aggregateSignatures\/([^/]+)$/,
    // The published specification answers this GET with 201, not 200; the SDK accepts only 201.
    withNetwork((ctx) => {
      const a = ctx.world.signatureAggregator.answer(decodeURIComponent(ctx.params[1] ?? ''));
      // 201: the contract's status for this GET.
      const reply = 'signedMessage' in a ? ok({ signedMessage: a.signedMessage }, 201) : error(a.fail, a.message);
      return a.latencyMs > 0 ? { ...reply, delayMs: a.latencyMs } : reply;
    }),
  ],
] };
