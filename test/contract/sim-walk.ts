import { METRICS, supportedIntervals } from '../../src/api/catalog.js';
import type { Network } from '../../src/api/data/reader.js';
import { SIM_ROUTES as ROUTES } from '../../src/sim/areas.js';
import { blockAt } from '../../src/sim/evm.js';
import type { WorldChange } from '../../src/sim/scenario.js';
import type { SimServer } from '../../src/sim/server.js';
import { request as send, type Dispatcher } from 'undici';
import { contractFor, describeIssues, errorSchema, unknownFields, type Contract } from './sdk-operations.js';

// A walk through every endpoint of the simulator, with parameters that reach the world's
// entities and every page of every list; each answer is read with its SDK schema.

export const SIM_ROUTES = ROUTES;
const UNKNOWN_NODE = 'NodeID-111111111111111111116DBWJs';
const EXPORT_TYPES = ['TRANSACTION_EXPORT_EVM', 'TRANSACTION_EXPORT_PRIMARY_NETWORK', 'TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING', 'TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE'];
/** A report longer than this hides the pattern instead of showing it. */
const MAX_REPORTED = 30;

/** What all walks together reached: simulator routes, and the statuses each operation answered. */
export class Coverage {
  readonly routes = new Set<string>();
  readonly statuses = new Map<string, Set<number>>();

  record(route: string, operation: string, status: number): void {
    this.routes.add(route);
    this.statuses.set(operation, (this.statuses.get(operation) ?? new Set()).add(status));
  }
}

interface Finding {
  request: string;
  detail: string;
  count: number;
}

type Body = Record<string, unknown>;
/** What the walk reads of an answer. */
interface Answer {
  status: number;
  ok: boolean;
  headers: Dispatcher.ResponseData['headers'];
}

/** Sends requests to one simulator, reads each answer with its SDK schema, collects mismatches. */
export class Checker {
  /** The variety the answers showed (see facts()). */
  readonly seen = new Set<string>();
  readonly #findings = new Map<string, Finding>();
  state = '';
  walks = 0;
  /** Answers the SDK already accepted whole, by operation and text: the same text reads the same (most of a walk repeats the last). */
  readonly #accepted = new Set<string>();

  constructor(
    readonly sim: SimServer,
    readonly coverage: Coverage,
  ) {}

  get findings(): number {
    return this.#findings.size;
  }

  /** The body of a 2xx answer that the SDK accepts; undefined otherwise. `allow`: a non-2xx status that is expected. */
  async call(method: 'GET' | 'POST', path: string, options: { body?: unknown; allow?: number } = {}): Promise<Body | undefined> {
    const init = options.body === undefined ? { method } : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(options.body) };
    // undici's request, not fetch: the walk sends thousands, and fetch costs three times the CPU.
    const answer = await send(`${this.sim.url}${path}`, init);
    const text = await answer.body.text();
    const res = { status: answer.statusCode, ok: answer.statusCode >= 200 && answer.statusCode < 300, headers: answer.headers };
    const request = `[${this.state}] ${method} ${path}`;
    const pathname = new URL(path, 'http://sim').pathname;
    const route = SIM_ROUTES.find(([m, pattern]) => m === method && pattern.test(pathname));
    const contract = contractFor(method, pathname);
    if (!route || !contract) return this.#note(request, route ? 'the simulator serves it; the table has no operation for it' : 'no simulator route');
    this.coverage.record(`${method} ${route[1]}`, contract.path, res.status);
    const body = parseJson(text);
    if (body === undefined) return this.#note(request, `status ${res.status}, a body that is not JSON: ${text.slice(0, 200)}`, contract);
    if (!res.ok) return this.#checkError(request, contract, res, body, text, options.allow);
    const seen = `${contract.path}\u0000${res.status}\u0000${text}`;
    if (this.#accepted.has(seen)) return body;
    if (res.status !== contract.status) this.#note(request, `status ${res.status}; the SDK accepts only ${contract.status}`, contract);
    const parsed = contract.schema.safeParse(body);
    if (!parsed.success) return this.#note(request, describeIssues(parsed.error.issues, body).join('\n    '), contract);
    const unknown = unknownFields(body, parsed.data);
    if (unknown.length > 0) this.#note(request, `fields the SDK does not have: ${unknown.join(', ')}`, contract);
    else if (res.status === contract.status) this.#accepted.add(seen);
    for (const fact of facts(body)) this.seen.add(fact);
    return body;
  }

  /**
   * Every page of a list, following nextPageToken (bounded: a repeating token must not hang the
   * walk). `nextSize`: the pages after the first at that pageSize (a token is an offset, the size
   * is each request's), for a list too long to read an item at a time.
   */
  async pages(path: string, allow?: number, nextSize?: number): Promise<void> {
    const next = nextSize === undefined ? path : path.replace(/\bpageSize=\d+/, `pageSize=${nextSize}`);
    let token: string | undefined;
    for (let page = 0; page < 200; page++) {
      const body = await this.call('GET', token === undefined ? path : `${next}&pageToken=${encodeURIComponent(token)}`, { allow });
      token = typeof body?.['nextPageToken'] === 'string' && body['nextPageToken'] !== '' ? body['nextPageToken'] : undefined;
      if (token === undefined) return;
    }
  }

  report(): string {
    const findings = [...this.#findings.values()];
    const lines = findings.slice(0, MAX_REPORTED).map((f) => `${f.request}${f.count > 1 ? ` (and ${f.count - 1} more like it)` : ''}\n    ${f.detail}`);
    if (findings.length > MAX_REPORTED) lines.push(`… and ${findings.length - MAX_REPORTED} more findings`);
    return lines.join('\n');
  }

  #checkError(request: string, contract: Contract, res: Answer, body: Body, text: string, allow?: number): undefined {
    if (res.status !== allow) return this.#note(request, `unexpected status ${res.status}: ${text.slice(0, 300)}`, contract);
    // The SDK's error schemas read the parsed body plus the request, the response and the raw text.
    const response = new Response(text, { status: res.status, headers: Object.entries(res.headers).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v] as [string, string]] : [])) });
    const parsed = errorSchema(res.status)?.safeParse({ ...body, request$: new Request(`${this.sim.url}/`), response$: response, body$: text });
    if (parsed && !parsed.success) this.#note(request, `error body: ${describeIssues(parsed.error.issues, body).join('; ')}`, contract);
    return undefined;
  }

  /** One finding per operation and mismatch: the first request that showed it, and how often it recurred. */
  #note(request: string, detail: string, contract?: Contract): undefined {
    const operation = contract ? `${contract.method} ${contract.path} (${contract.component?.replace('$inboundSchema', '') ?? 'not in the SDK'})` : '';
    const key = `${operation}|${detail}`;
    const found = this.#findings.get(key);
    if (found) found.count++;
    else this.#findings.set(key, { request: operation ? `${request}\n  operation ${operation}` : request, detail, count: 1 });
    return undefined;
  }
}

function parseJson(text: string): Body | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Body) : undefined;
  } catch {
    return undefined;
  }
}

/** What a body shows (statuses, null geolocations, drained balances): the variety the walk reached. */
function facts(body: Body): string[] {
  const items = ['validators', 'delegators', 'messages', 'transactions'].flatMap((key) => (Array.isArray(body[key]) ? (body[key] as Body[]) : []));
  const out = items.flatMap(itemFacts);
  if (typeof body['operationStatus'] === 'string') out.push(`operation ${body['operationStatus']}`);
  const chain = (body['chainInfo'] as Body | undefined)?.['chainName'];
  if (Array.isArray(body['blocks']) && body['blocks'].length > 0 && typeof chain === 'string') out.push(`proposed blocks on ${chain}`);
  if (typeof body['signedMessage'] === 'string') out.push('signed message');
  out.push(...pchainFacts(body));
  return out;
}

/** What staking transactions and subnets show. */
function pchainFacts(body: Body): string[] {
  const list = (key: string) => (Array.isArray(body[key]) ? (body[key] as Body[]) : []);
  const out = list('transactions')
    .filter((t) => Array.isArray(t['amountStaked']))
    .flatMap((t) => [`staking transaction ${String(t['txType'])}`, ...(typeof t['rewardTxHash'] === 'string' ? ['staking transaction with a reward transaction'] : [])]);
  for (const subnet of list('subnets')) {
    out.push(subnet['isL1'] === true ? 'L1' : 'subnet');
    for (const chain of Array.isArray(subnet['blockchains']) ? (subnet['blockchains'] as Body[]) : []) {
      out.push(typeof chain['genesisData'] === 'object' ? 'blockchain with an EVM genesis' : 'blockchain with an encoded genesis');
    }
  }
  return out;
}

function itemFacts(item: Body): string[] {
  if (typeof item['validationStatus'] === 'string') {
    const out = [`validator ${item['validationStatus']}`];
    if (item['validationStatus'] === 'active') {
      out.push(item['geolocation'] === null ? 'active validator without geolocation' : 'active validator with geolocation');
      if (!('avalancheGoVersion' in item)) out.push('active validator without avalancheGoVersion');
      const health = (item['validatorHealth'] ?? {}) as Body;
      if (['P', 'X', 'C'].some((c) => Number(health[`benched${c}ChainRequestsPercent`]) > 0)) out.push('active validator benched');
    }
    if (item['validationStatus'] === 'completed' && (item['rewards'] as Body | undefined)?.['validationRewardAmount'] === '0') out.push('validator completed without a reward');
    return out;
  }
  if (typeof item['delegationStatus'] === 'string') {
    return [`delegation ${item['delegationStatus']}`, ...(item['delegationStatus'] === 'completed' && item['netReward'] === '0' ? ['delegation completed without a reward'] : [])];
  }
  if (typeof item['validationId'] === 'string') return [item['remainingBalance'] === 0 ? 'L1 validator with balance 0' : 'L1 validator'];
  const native = item['nativeTransaction'] as Body | undefined;
  if (native) return ['EVM transaction', ...(native['txStatus'] === '0' ? ['EVM transaction failed'] : [])];
  if (item['erc20Token']) return ['ERC-20 transfer'];
  if (typeof item['internalTxType'] === 'string') return ['EVM internal transaction', ...(item['isReverted'] === true ? ['EVM internal transaction reverted'] : [])];
  return typeof item['status'] === 'string' ? [`ICM message ${item['status']}`] : [];
}

// ---- what a world holds, so that every request reaches its entities

export interface Entities {
  networks: Set<Network>;
  /** Primary-network validators by the network they were added on. */
  nodeIds: Map<Network, Set<string>>;
  rewardAddresses: Set<string>;
  l1: Array<{ validationId: string; nodeId: string; subnetId: string }>;
  icmAddresses: Set<string>;
  series: Array<{ chainId: string; metric: string; timeInterval: string }>;
  /** Addresses of staking transactions, by network. */
  stakers: Map<Network, Set<string>>;
  /** Networks that have subnets. */
  subnetNetworks: Set<Network>;
  /** The long tail (src/sim/longtail.ts): `chainId/address` of collections and deployers, `chainId/block`, `network/assetId`. */
  collections: Set<string>;
  deployers: Set<string>;
  blocks: Set<string>;
  assets: Set<string>;
  /** EVM addresses with activity, by chain id. */
  evmAddresses: Map<string, Set<string>>;
}

/** Everything the changes (a world, its events or steps) name, on any network. */
export function entitiesOf(changes: ReadonlyArray<WorldChange | undefined>): Entities {
  const e: Entities = {
    networks: new Set(['mainnet']),
    nodeIds: new Map(),
    rewardAddresses: new Set(),
    l1: [],
    icmAddresses: new Set(),
    series: [],
    evmAddresses: new Map(),
    stakers: new Map(),
    subnetNetworks: new Set(),
    collections: new Set(),
    deployers: new Set(),
    blocks: new Set(),
    assets: new Set(),
  };
  for (const c of changes) {
    for (const v of c?.validations ?? []) addNode(e, v.network, v.nodeId);
    for (const d of c?.delegations ?? []) {
      addNode(e, d.network, d.nodeId);
      for (const a of d.rewardAddresses) e.rewardAddresses.add(a);
    }
    for (const v of c?.l1Validators ?? []) {
      e.networks.add(v.network);
      e.l1.push(v);
    }
    for (const m of c?.icmMessages ?? []) {
      e.networks.add(m.network);
      e.icmAddresses.add(m.from).add(m.to);
    }
    e.series.push(...(c?.metrics ?? []));
    for (const t of c?.stakingTransactions ?? []) {
      e.networks.add(t.network);
      for (const a of t.addresses) e.stakers.set(t.network, (e.stakers.get(t.network) ?? new Set()).add(a));
    }
    for (const subnet of c?.subnets ?? []) {
      e.networks.add(subnet.network);
      e.subnetNetworks.add(subnet.network);
    }
    for (const t of c?.nfts ?? []) e.collections.add(`${t.chainId}/${t.collection}`);
    for (const d of c?.deployments ?? []) e.deployers.add(`${d.chainId}/${d.deployer}`);
    for (const t of c?.blockTransactions ?? []) e.blocks.add(`${t.chainId}/${t.block}`);
    for (const t of c?.assetTransactions ?? []) e.assets.add(`${t.network}/${t.assetId}`);
    for (const t of c?.evmTransactions ?? []) {
      const ends = [t.from, t.to, ...t.erc20.flatMap((x) => [x.from, x.to]), ...t.internal.flatMap((x) => [x.from, x.to])];
      for (const a of ends) e.evmAddresses.set(t.chainId, (e.evmAddresses.get(t.chainId) ?? new Set()).add(a));
    }
  }
  return e;
}

function addNode(e: Entities, network: Network, nodeId: string): void {
  e.networks.add(network);
  e.nodeIds.set(network, (e.nodeIds.get(network) ?? new Set()).add(nodeId));
}

// ---- the walk

/** Every endpoint once (every page), in the world's current state. */
export async function walk(c: Checker, e: Entities, state: string): Promise<void> {
  c.state = state;
  c.walks++;
  // The lists the simulator always answers empty do not change with the world: once per simulator.
  const first = c.walks === 1;
  for (const net of e.networks) {
    await walkValidators(c, e, net);
    await walkValidatorList(c, e, net, first);
    await walkDelegators(c, e, net);
    await walkL1(c, e, net);
    // A world without staking transactions or subnets answers them empty: once is enough.
    if (first || e.stakers.has(net)) await walkStaking(c, e, net, first);
    if (first || e.subnetNetworks.has(net)) await walkSubnets(c, net, first);
    if (first) await walkPrimaryNetworkLists(c, net);
  }
  await walkIcm(c, e);
  if (first) await walkEvmLists(c);
  await walkEvmActivity(c, e, first);
  await walkMetrics(c, e);
  await walkExports(c);
  await walkProposedBlocks(c);
  await walkSignatureAggregator(c);
  await walkLongTail(c, e);
}

async function walkValidators(c: Checker, e: Entities, net: Network): Promise<void> {
  for (const nodeId of [...(e.nodeIds.get(net) ?? []), UNKNOWN_NODE]) {
    // A node whose only period is not yet added, or no node, is a 404 (or an empty list: unknownNode: empty).
    await c.pages(`/v1/networks/${net}/validators/${nodeId}?pageSize=1`, 404);
    await c.call('GET', `/v1/networks/${net}/validators/${nodeId}?sortOrder=asc&validationStatus=active`, { allow: 404 });
  }
}

/**
 * The bulk list: every page, each filter and sort, then with the default uptime floor on. The
 * simulator renders the whole list for each page, and a bulk network holds a hundred: after a
 * first page of one (or two) item(s), the rest a hundred at a time (every item read, every shape
 * of page: with a token, from one, the last).
 */
async function walkValidatorList(c: Checker, e: Entities, net: Network, first: boolean): Promise<void> {
  const base = `/v1/networks/${net}/validators`;
  const nodeIds = [...(e.nodeIds.get(net) ?? [])];
  await c.pages(`${base}?pageSize=1`, undefined, 100);
  // Exact ids, and a prefix every NodeID has (the service matches substrings).
  if (nodeIds.length > 0) await c.pages(`${base}?pageSize=2&nodeIds=${nodeIds.join(',')}`);
  await c.pages(`${base}?nodeIds=NodeID-&subnetId=11111111111111111111111111111111LpoYY&minUptimePerformance=0&maxUptimePerformance=100&minTimeRemaining=0&maxTimeRemaining=31536000`);
  for (const status of ['active', 'completed', 'pending', 'removed']) await c.pages(`${base}?validationStatus=${status}&pageSize=100`);
  // A sort changes the order of the same items, a refusal nothing the world holds: once per simulator.
  if (first) {
    for (const sortBy of ['blockIndex', 'delegationCapacity', 'timeRemaining', 'delegationFee', 'uptimePerformance']) await c.call('GET', `${base}?sortBy=${sortBy}&sortOrder=asc`);
    for (const bad of ['pageSize=101', 'sortBy=stake', 'validationStatus=gone', 'minUptimePerformance=high']) await c.call('GET', `${base}?${bad}`, { allow: 400 });
  }
  const floor = c.sim.world.bulkDefaultMinUptime;
  c.sim.world.bulkDefaultMinUptime = 90;
  try {
    await c.pages(`${base}?pageSize=2`, undefined, 100);
    await c.pages(`${base}?validationStatus=active&pageSize=100`);
  } finally {
    c.sim.world.bulkDefaultMinUptime = floor;
  }
}

async function walkDelegators(c: Checker, e: Entities, net: Network): Promise<void> {
  await c.pages(`/v1/networks/${net}/delegators?pageSize=1`);
  await c.call('GET', `/v1/networks/${net}/delegators?pageSize=101`, { allow: 400 });
  const nodeIds = [...(e.nodeIds.get(net) ?? [])];
  if (nodeIds.length > 0) await c.pages(`/v1/networks/${net}/delegators?pageSize=2&nodeIds=${nodeIds.join(',')}`);
  for (const address of e.rewardAddresses) await c.pages(`/v1/networks/${net}/delegators?rewardAddresses=P-${address}`);
  for (const status of ['active', 'pending', 'completed']) await c.pages(`/v1/networks/${net}/delegators?sortOrder=asc&delegationStatus=${status}`);
}

async function walkL1(c: Checker, e: Entities, net: Network): Promise<void> {
  await c.pages(`/v1/networks/${net}/l1Validators?pageSize=1`);
  await c.pages(`/v1/networks/${net}/l1Validators?pageSize=1&includeInactiveL1Validators=true`);
  for (const v of e.l1) {
    await c.pages(`/v1/networks/${net}/l1Validators?includeInactiveL1Validators=true&subnetId=${v.subnetId}&nodeId=${v.nodeId}&l1ValidationId=${v.validationId}`);
  }
}

/** Staking transactions: every page, by address (bare, P-, X-, several at once), type, time and order. */
async function walkStaking(c: Checker, e: Entities, net: Network, first: boolean): Promise<void> {
  const base = `/v1/networks/${net}/blockchains/p-chain/transactions:listStaking`;
  const stakers = [...(e.stakers.get(net) ?? [])];
  await c.pages(`${base}?pageSize=1`);
  for (const a of stakers) await c.pages(`${base}?addresses=P-${a}&sortOrder=desc&pageSize=1`);
  if (stakers.length > 0) await c.pages(`${base}?addresses=${stakers.map((a) => `X-${a}`).join(',')}&sortOrder=asc`);
  const now = c.sim.world.clock.now();
  await c.pages(`${base}?txTypes=AddPermissionlessDelegatorTx&txTypes=AddDelegatorTx&startTimestamp=${now - 40 * 86_400}&endTimestamp=${now}`);
  if (first) for (const bad of ['pageSize=101', 'sortOrder=sideways', 'startTimestamp=soon']) await c.call('GET', `${base}?${bad}`, { allow: 400 });
}

/** The subnet list: every page, both orders, the largest page. */
async function walkSubnets(c: Checker, net: Network, first: boolean): Promise<void> {
  const base = `/v1/networks/${net}/subnets`;
  await c.pages(`${base}?pageSize=1`);
  await c.pages(`${base}?pageSize=10000&sortOrder=desc`);
  if (first) for (const bad of ['pageSize=10001', 'sortOrder=sideways']) await c.call('GET', `${base}?${bad}`, { allow: 400 });
}

async function walkPrimaryNetworkLists(c: Checker, net: Network): Promise<void> {
  await c.pages(`/v1/networks/${net}/subnets?pageSize=10000`);
  await c.pages(`/v1/networks/${net}/blockchains/p-chain/transactions:listStaking?pageSize=100`);
  await c.pages(`/v1/networks/${net}/blockchains/x-chain/assets/FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z/transactions?pageSize=100`);
  await c.pages(`/v1/networks/${net}/blockchains/p-chain/nodes/${UNKNOWN_NODE}/blocks?pageSize=100`);
  await c.call('GET', `/v1/signatureAggregator/${net}/aggregateSignatures/2sJ6UoPSrqkpdcNWvNFnudjRJdvxVLdXgDaGGD4mfhJm5aULHF`);
}

async function walkIcm(c: Checker, e: Entities): Promise<void> {
  const addresses = e.icmAddresses.size > 0 ? [...e.icmAddresses] : ['0xAbC0000000000000000000000000000000000001'];
  for (const address of addresses) {
    await c.pages(`/v1/icm/addresses/${address}/messages?pageSize=1`);
    for (const net of e.networks) await c.pages(`/v1/icm/addresses/${address.toLowerCase()}/messages?network=${net}`);
  }
}

async function walkEvmLists(c: Checker): Promise<void> {
  const address = '0x253b2784c75e510dD0fF1da844684a1aC0aa5fcf';
  for (const suffix of ['', ':listErc20', ':listErc721', ':listErc1155', ':listInternals']) {
    await c.pages(`/v1/chains/43114/addresses/${address}/transactions${suffix}?pageSize=100`);
  }
  await c.pages(`/v1/chains/43114/contracts/${address}/deployments?pageSize=100`);
  await c.pages(`/v1/chains/43114/blocks/100/transactions?pageSize=100`);
  await c.pages(`/v1/chains/43114/nfts/collections/${address}/tokens?pageSize=100`);
  await c.call('GET', `/v1/chains/43114/contracts/${address}/transactions:getDeployment`, { allow: 404 });
}

/** Each address's three lists: every page, both orders, a block range that cuts the history in two. */
async function walkEvmActivity(c: Checker, e: Entities, first: boolean): Promise<void> {
  const now = blockAt(c.sim.world.clock.now());
  for (const [chainId, addresses] of e.evmAddresses) {
    for (const address of addresses) {
      const base = `/v1/chains/${chainId}/addresses/${address}/transactions`;
      for (const suffix of ['', ':listErc20', ':listInternals']) await c.pages(`${base}${suffix}?pageSize=2`);
      // The three share the range and order code: one list each way, and in a world's later states the pages alone.
      if (!first && c.walks > 2) continue;
      await c.pages(`${base}:listErc20?startBlock=${now - 5400}&endBlock=${now + 1}&pageSize=100`);
      await c.pages(`${base}?sortOrder=asc&startBlock=${now - 3600}`);
    }
  }
  if (first) {
    const base = '/v1/chains/43114/addresses/0xAbC0000000000000000000000000000000000001/transactions';
    for (const bad of ['startBlock=recent', 'endBlock=-1', 'sortOrder=newest', 'pageSize=0']) await c.call('GET', `${base}?${bad}`, { allow: 400 });
    await c.call('GET', `${base}:listErc20?startBlock=1.5`, { allow: 400 });
  }
}

async function walkMetrics(c: Checker, e: Entities): Promise<void> {
  const series = e.series.length > 0 ? e.series : [{ chainId: '43114', metric: 'txCount', timeInterval: 'hour' }];
  for (const s of series) await c.pages(`/v2/chains/${s.chainId}/metrics/${s.metric}?timeInterval=${s.timeInterval}&pageSize=40`);
  const now = c.sim.world.clock.now();
  for (const chainId of new Set(series.map((s) => s.chainId))) {
    await c.pages(`/v2/chains/${chainId}/metrics/avgTps?timeInterval=day&startTimestamp=${now - 30 * 86_400}&endTimestamp=${now}&pageSize=20`);
    await c.call('GET', `/v1/avg_tps/${chainId}`);
  }
}

/** Every metric at every interval it has, on a chain nobody set (the simulator's default series). */
export async function walkAllMetrics(c: Checker): Promise<void> {
  for (const metric of METRICS) {
    for (const interval of supportedIntervals(metric)) await c.pages(`/v2/chains/43113/metrics/${metric}?timeInterval=${interval}`);
  }
}

/** An export polled until it ends as the world's plan says; every export type on a simulator's first walk. */
async function walkExports(c: Checker): Promise<void> {
  const options = { addresses: ['0xAbC0000000000000000000000000000000000001'], includeChains: ['43114'] };
  for (const type of c.walks === 1 ? EXPORT_TYPES : EXPORT_TYPES.slice(0, 1)) {
    const started = await c.call('POST', '/v1/operations/transactions:export', { body: { type, firstDate: '2026-03-01', lastDate: '2026-03-02', options } });
    const id = started?.['operationId'];
    for (let poll = 0; typeof id === 'string' && poll < 10; poll++) {
      const op = await c.call('GET', `/v1/operations/${id}`);
      if (op?.['operationStatus'] !== 'RUNNING') break;
    }
  }
  await c.call('GET', '/v1/operations/op-none', { allow: 404 });
}

// ---- block-production and signature-aggregator: what the world holds now (their entities
// come and go with the steps, and the aggregator's answer is the world's current outcome).

/** Each proposer's blocks on its chain: every page, the last hour, and by blockchain id. */
async function walkProposedBlocks(c: Checker): Promise<void> {
  const now = c.sim.world.clock.now();
  const seen = new Set<string>();
  for (const { network, nodeId, chain } of c.sim.world.proposedBlocks.proposers()) {
    const base = `/v1/networks/${network}/blockchains/${chain}/nodes/${nodeId}/blocks`;
    if (seen.has(base)) continue;
    seen.add(base);
    await c.pages(`${base}?pageSize=100`);
    await c.pages(`${base}?startTimestamp=${now - 3600}&endTimestamp=${now}&pageSize=5`);
  }
  if (c.walks === 1) {
    await c.call('GET', `/v1/networks/mainnet/blockchains/2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5/nodes/${UNKNOWN_NODE}/blocks`);
    await c.call('GET', `/v1/networks/mainnet/blockchains/d-chain/nodes/${UNKNOWN_NODE}/blocks`, { allow: 400 });
  }
}

/** Each txHash the world has an outcome for: 201 with a signed message, or its error status. */
async function walkSignatureAggregator(c: Checker): Promise<void> {
  for (const [txHash, o] of c.sim.world.signatureAggregator.entries()) {
    await c.call('GET', `/v1/signatureAggregator/mainnet/aggregateSignatures/${txHash}`, o.fail === null ? {} : { allow: o.fail });
  }
}

/** NFT tokens, deployments, block and asset transactions of the world, a page at a time and filtered. */
async function walkLongTail(c: Checker, e: Entities): Promise<void> {
  for (const id of e.collections) {
    const [chainId, address = ''] = id.split('/');
    await c.pages(`/v1/chains/${chainId}/nfts/collections/${address}/tokens?pageSize=1`);
    await c.pages(`/v1/chains/${chainId}/nfts/collections/${address.toLowerCase()}/tokens?pageSize=100`);
  }
  for (const id of e.deployers) {
    const [chainId, address] = id.split('/');
    await c.pages(`/v1/chains/${chainId}/contracts/${address}/deployments?pageSize=1`);
  }
  for (const id of e.blocks) {
    const [chainId, block] = id.split('/');
    await c.pages(`/v1/chains/${chainId}/blocks/${block}/transactions?pageSize=1`);
    await c.pages(`/v1/chains/${chainId}/blocks/${block}/transactions?pageSize=0`);
  }
  for (const id of e.assets) {
    const [net, assetId] = id.split('/');
    const base = `/v1/networks/${net}/blockchains/x-chain/assets/${assetId}/transactions`;
    await c.pages(`${base}?pageSize=1`);
    await c.pages(`${base}?txTypes=BaseTx,ImportTx&startTimestamp=0&endTimestamp=${c.sim.world.clock.now()}`);
    if (c.walks === 1) await c.call('GET', `${base}?startTimestamp=yesterday`, { allow: 400 });
  }
}
