import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as sdk from '@avalanche-sdk/chainkit/models/components';
import fc from 'fast-check';
import { MockAgent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { DataApi } from '../../src/api/data/index.js';
import type { NodeApi } from '../../src/api/node-api.js';
import { HttpClient } from '../../src/api/http.js';
import { MetricsApi } from '../../src/api/metrics-api.js';
import { activeValidator, delegatorsPage, icmMessagesPage, l1ValidatorsPage, metricsPage, operation, validatorsPage } from '../../src/api/schemas.js';
import { proposedBlocksPage, signatureAggregation } from '../../src/api/schemas.js';
import { pageOf } from '../../src/api/parse.js';
import { stakingTransaction } from '../../src/rules/staking-activity/read.js';
import { subnet } from '../../src/rules/subnet-changes/read.js';
import { erc20TransfersPage, evmTransactionsPage, internalTransactionsPage } from '../../src/api/schemas.js';
import { ruleSchema } from '../../src/config/schema.js';
import { ruleKind, ruleKinds } from '../../src/rules/registry.js';
import type { Evaluation } from '../../src/rules/types.js';
import { wireArbitrary } from './arbitrary.js';
import { ExpressionRunner } from '../../src/rules/endpoint/runner.js';
import { systemClock } from '../../src/base/clock.js';

// avawatch's readers held to the service's published contract: Ava Labs' SDK, generated
// from the live OpenAPI specification. Every response the contract allows, and the ones it
// will allow tomorrow (a status it does not list yet, fields it does not have yet), must
// parse, and no rule may throw on them or read an identical second answer as a change.

const SDK_VERSION = (createRequire(import.meta.url)('@avalanche-sdk/chainkit/package.json') as { version: string }).version;
// `npm test` runs a short seeded budget; AVAWATCH_CONTRACT_RUNS (and _SEED) run more: `.ci/run`
// runs 1000 per property (docs/testing.md).
const SEED = process.env['AVAWATCH_CONTRACT_SEED'] === undefined ? 20_260_115 : Number(process.env['AVAWATCH_CONTRACT_SEED']);
const RUNS = Number(process.env['AVAWATCH_CONTRACT_RUNS'] ?? 10);

/** Each response type: the SDK's schema (the contract) and avawatch's reader of it. */
const RESPONSES = {
  validators: { contract: 'ListValidatorDetailsResponse', sdk: sdk.ListValidatorDetailsResponse$inboundSchema, ours: 'validatorsPage', schema: validatorsPage },
  activeSet: { contract: 'ListValidatorDetailsResponse', sdk: sdk.ListValidatorDetailsResponse$inboundSchema, ours: 'activeValidator (the network baseline sweep)', schema: pageOf('validators', activeValidator) },
  delegators: { contract: 'ListDelegatorDetailsResponse', sdk: sdk.ListDelegatorDetailsResponse$inboundSchema, ours: 'delegatorsPage', schema: delegatorsPage },
  l1Validators: { contract: 'ListL1ValidatorsResponse', sdk: sdk.ListL1ValidatorsResponse$inboundSchema, ours: 'l1ValidatorsPage', schema: l1ValidatorsPage },
  icmMessages: { contract: 'ListIcmMessagesResponse', sdk: sdk.ListIcmMessagesResponse$inboundSchema, ours: 'icmMessagesPage', schema: icmMessagesPage },
  operation: { contract: 'OperationStatusResponse', sdk: sdk.OperationStatusResponse$inboundSchema, ours: 'operation', schema: operation },
  metrics: { contract: 'MetricsApiResponse', sdk: sdk.MetricsApiResponse$inboundSchema, ours: 'metricsPage', schema: metricsPage },
  proposedBlocks: { contract: 'ListPrimaryNetworkBlocksResponse', sdk: sdk.ListPrimaryNetworkBlocksResponse$inboundSchema, ours: 'proposedBlocksPage', schema: proposedBlocksPage },
  signatureAggregation: { contract: 'SignatureAggregationResponse', sdk: sdk.SignatureAggregationResponse$inboundSchema, ours: 'signatureAggregation', schema: signatureAggregation },
  stakingTransactions: { contract: 'ListPChainTransactionsResponse', sdk: sdk.ListPChainTransactionsResponse$inboundSchema, ours: 'stakingTransactionsPage (staking-activity/read.ts)', schema: pageOf('transactions', stakingTransaction) },
  subnets: { contract: 'ListSubnetsResponse', sdk: sdk.ListSubnetsResponse$inboundSchema, ours: 'subnetsPage (subnet-changes/read.ts)', schema: pageOf('subnets', subnet) },
  evmTransactions: { contract: 'ListTransactionDetailsResponse', sdk: sdk.ListTransactionDetailsResponse$inboundSchema, ours: 'evmTransactionsPage', schema: evmTransactionsPage },
  erc20Transfers: { contract: 'ListErc20TransactionsResponse', sdk: sdk.ListErc20TransactionsResponse$inboundSchema, ours: 'erc20TransfersPage', schema: erc20TransfersPage },
  internalTransactions: {
    contract: 'ListInternalTransactionsResponse',
    sdk: sdk.ListInternalTransactionsResponse$inboundSchema,
    ours: 'internalTransactionsPage',
    schema: internalTransactionsPage,
  },
};
type ResponseType = keyof typeof RESPONSES;

interface ParseResult {
  success: boolean;
  error?: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> } | undefined;
}

/** Throws with the schema's own issues, which fast-check prints beside the counterexample. */
function mustAccept(who: string, result: ParseResult): void {
  if (result.success) return;
  const issues = (result.error?.issues ?? []).map((i) => `  ${i.path.map(String).join('.') || '(root)'}: ${i.message}`);
  throw new Error(`${who} rejects the response:\n${issues.join('\n')}`);
}

describe(`avawatch reads every response of @avalanche-sdk/chainkit ${SDK_VERSION}`, () => {
  for (const [type, r] of Object.entries(RESPONSES)) {
    it(`${r.contract}: the SDK and avawatch's ${r.ours} accept every in-contract response (${type})`, () => {
      // The SDK's own acceptance checks the generator: a value it rejects is our bug, not avawatch's.
      const arb = wireArbitrary(r.sdk, { unknownStatuses: false });
      fc.assert(
        fc.property(arb, (body) => {
          mustAccept(`the SDK's ${r.contract}`, r.sdk.safeParse(body));
          mustAccept(`avawatch's ${r.ours}`, r.schema.safeParse(body));
        }),
        { seed: SEED, numRuns: RUNS },
      );
    }, 120_000);

    it(`${r.contract}: avawatch's ${r.ours} accepts statuses and fields the SDK does not list yet (${type})`, () => {
      fc.assert(
        fc.property(wireArbitrary(r.sdk), (body) => mustAccept(`avawatch's ${r.ours}`, r.schema.safeParse(body))),
        { seed: SEED, numRuns: RUNS },
      );
    }, 120_000);
  }
});

// ---- Rules on generated responses, through the real DataApi/MetricsApi and HttpClient:
// only the transport (undici's dispatcher) is fake.

const DATA_URL = 'https://data.contract.test';
const METRICS_URL = 'https://metrics.contract.test';
/** Both reads at one instant: whatever differs between them comes from the read, not the clock. */
const NOW = new Date('2026-01-15T12:00:00Z');
const bodyArbitraries = Object.fromEntries(Object.entries(RESPONSES).map(([t, r]) => [t, wireArbitrary(r.sdk)])) as Record<ResponseType, fc.Arbitrary<unknown>>;
/** One stable function for fc.gen: it replays and shrinks what was drawn through it. */
const bodyOf = (type: ResponseType) => bodyArbitraries[type];
/** Lists only the endpoint kind reads (no page schema of avawatch's own): the SDK's bodies as they are. */
const LONG_TAIL = { nftTokens: wireArbitrary(sdk.ListNftTokens$inboundSchema) };
const longTailOf = (type: keyof typeof LONG_TAIL) => LONG_TAIL[type];

type Json = Record<string, unknown>;
interface Reply {
  statusCode: number;
  body: Json;
}

/**
 * The Data and Metrics APIs, answering each distinct request with a generated body of the
 * type its path returns, and the same body when it is asked again: the second read of a
 * run is identical to the first. Items are made to match what the request asked for (the
 * node, subnet, validation, operation), as the service answers only those.
 */
class FakeService {
  readonly #answers = new Map<string, Reply>();
  readonly #listedActive = new Set<string>();
  readonly #lists = new Map<string, Json>();
  #started: Json | undefined;

  constructor(
    readonly draw: fc.GeneratorValue,
    /** The rule's spec: a validator rule picks its subnet's periods itself (the request does not name it). */
    readonly spec: Record<string, unknown>,
  ) {}

  answer(method: string, url: URL): Reply {
    const key = `${method} ${url.pathname}${url.search}`;
    let reply = this.#answers.get(key);
    if (!reply) this.#answers.set(key, (reply = this.#generate(method, url)));
    return reply;
  }

  #body(type: ResponseType): Json {
    // A copy: fast-check keeps the drawn value to shrink and print it.
    return JSON.parse(JSON.stringify(this.draw(bodyOf, type))) as Json;
  }

  /** One list per address, whatever block range is asked: a later read sees the same chain. */
  #addressList(path: string, type: ResponseType): Json {
    let body = this.#lists.get(path);
    if (!body) this.#lists.set(path, (body = this.#body(type)));
    return body;
  }

  #generate(method: string, url: URL): Reply {
    const p = url.pathname;
    const q = url.searchParams;
    const ids = (name: string) => (q.get(name) ?? '').split(',').filter(Boolean);
    let m: RegExpExecArray | null;
    if ((m = /^\/v1\/networks\/[^/]+\/validators(?:\/([^/]+))?$/.exec(p))) {
      const reply = page(q, this.#body('validators'), 'validators', { nodeId: m[1] ? [decodeURIComponent(m[1])] : ids('nodeIds') });
      // Every other period on the rule's subnet; the rest on random ones, which the rule must leave out.
      const subnet = q.get('subnetId') ?? this.spec['subnetId'];
      if (typeof subnet === 'string') {
        items(reply.body, 'validators').forEach((v, i) => {
          if (i % 2 === 0) v['subnetId'] = subnet;
        });
      }
      return reply;
    }
    if (/^\/v1\/networks\/[^/]+\/delegators$/.test(p)) {
      const body = page(q, this.#body('delegators'), 'delegators', { nodeId: ids('nodeIds') });
      const addresses = ids('rewardAddresses').map((a) => a.replace(/^[PX]-/, ''));
      if (addresses.length > 0) items(body.body, 'delegators').forEach((d, i) => (d['rewardAddresses'] = [addresses[i % addresses.length]]));
      // One state of the chain: a delegation listed active is not also listed completed.
      for (const d of items(body.body, 'delegators')) {
        if (q.get('delegationStatus') !== 'completed') this.#listedActive.add(String(d['txHash']));
        else if (this.#listedActive.has(String(d['txHash']))) d['txHash'] = `${String(d['txHash'])}-completed`;
      }
      return body;
    }
    if (/^\/v1\/networks\/[^/]+\/l1Validators$/.test(p)) {
      return page(q, this.#body('l1Validators'), 'validators', { subnetId: ids('subnetId'), nodeId: ids('nodeId'), validationId: ids('l1ValidationId') });
    }
    if (/^\/v1\/networks\/[^/]+\/blockchains\/[^/]+\/transactions:listStaking$/.test(p)) {
      // Each transaction is one of the addresses asked for (the service lists no other).
      const reply = page(q, this.#body('stakingTransactions'), 'transactions', {});
      const addresses = ids('addresses').map((a) => a.replace(/^[PX]-/, ''));
      if (addresses.length > 0) items(reply.body, 'transactions').forEach((t, i) => (t['rewardAddresses'] = [addresses[i % addresses.length]]));
      return reply;
    }
    if (/^\/v1\/networks\/[^/]+\/subnets$/.test(p)) {
      const watched = Array.isArray(this.spec['subnetIds']) ? (this.spec['subnetIds'] as string[]) : [];
      return page(q, this.#body('subnets'), 'subnets', { subnetId: watched });
    }
    if (/^\/v1\/icm\/addresses\/[^/]+\/messages$/.test(p)) return page(q, this.#body('icmMessages'), 'messages', {});
    if (/^\/v2\/chains\/[^/]+\/metrics\/[^/]+$/.test(p)) return page(q, this.#body('metrics'), 'results', {});
    if (/^\/v1\/networks\/[^/]+\/blockchains\/[^/]+\/nodes\/[^/]+\/blocks$/.test(p)) return page(q, this.#body('proposedBlocks'), 'blocks', {});
    // The contract's success status for this GET.
    if (/^\/v1\/signatureAggregator\/[^/]+\/aggregateSignatures\/[^/]+$/.test(p)) return { statusCode: 201, body: this.#body('signatureAggregation') };
    if (method === 'POST' && p === '/v1/operations/transactions:export') {
      this.#started = this.#body('operation');
      return { statusCode: 201, body: this.#started };
    }
    if ((m = /^\/v1\/operations\/([^/]+)$/.exec(p))) {
      // Polling the export started before reads that same operation.
      return { statusCode: 200, body: { ...(this.#started ?? this.#body('operation')), operationId: decodeURIComponent(m[1] as string) } };
    }
    if (/^\/v1\/chains\/[^/]+\/nfts\/collections\/[^/]+\/tokens$/.test(p)) {
      return page(q, JSON.parse(JSON.stringify(this.draw(longTailOf, 'nftTokens'))) as Json, 'tokens', {});
    }
    if ((m = /^\/v1\/chains\/[^/]+\/addresses\/[^/]+\/transactions(:listErc20|:listInternals)?$/.exec(p))) {
      const type = m[1] === ':listErc20' ? 'erc20Transfers' : m[1] === ':listInternals' ? 'internalTransactions' : 'evmTransactions';
      return blockRange(q, this.#addressList(p, type));
    }
    throw new Error(`the fake service has no answer for ${method} ${p}`);
  }
}

function items(body: Json, key: string): Json[] {
  const list = body[key];
  return Array.isArray(list) ? (list.filter((x) => typeof x === 'object' && x !== null) as Json[]) : [];
}

/** The items get the ids the request filtered by; a page asked for by token is the last (fresh random tokens would page past maxPages, which fails by design). */
function page(q: URLSearchParams, body: Json, key: string, filters: Record<string, string[]>): Reply {
  if (q.has('pageToken')) delete body['nextPageToken'];
  for (const [field, values] of Object.entries(filters)) {
    if (values.length > 0) items(body, key).forEach((item, i) => (item[field] = values[i % values.length]));
  }
  return { statusCode: 200, body };
}

/**
 * An EVM address list as the service reads startBlock (inclusive) and endBlock (exclusive);
 * an item whose blockNumber is not a number stays in every range (a rule must not trip on
 * it). A page asked for by token is empty and the last.
 */
function blockRange(q: URLSearchParams, listed: Json): Reply {
  const body: Json = JSON.parse(JSON.stringify(listed)) as Json;
  if (q.has('pageToken')) return { statusCode: 200, body: { transactions: [] } };
  const start = q.has('startBlock') ? Number(q.get('startBlock')) : undefined;
  const end = q.has('endBlock') ? Number(q.get('endBlock')) : undefined;
  const blockOf = (item: Json) => String((item['nativeTransaction'] as Json | undefined)?.['blockNumber'] ?? item['blockNumber']);
  if (start !== undefined || end !== undefined) {
    body['transactions'] = items(body, 'transactions').filter((item) => {
      const text = blockOf(item);
      if (!/^\d+$/.test(text)) return true;
      const block = Number(text);
      return (start === undefined || block >= start) && (end === undefined || block < end);
    });
  }
  return { statusCode: 200, body };
}

/** The node the profile's examples watch here (in a config, the inventory's). */
const PROFILE_NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';

const INFO_REPLIES: Record<string, unknown> = {
  'info.getNodeID': { nodeID: PROFILE_NODE, nodePOP: null },
  'info.getNodeVersion': { version: 'avalanchego/1.14.2' },
  'info.isBootstrapped': { isBootstrapped: true },
  'info.uptime': { rewardingStakePercentage: '100.0000', weightedAveragePercentage: '100.0000' },
  'info.peers': { numPeers: '60', peers: [] },
  'info.upgrades': { durangoTime: '2024-03-06T16:00:00Z', heliconTime: '2026-09-22T15:00:00Z' },
  // Its P-Chain API: Mainnet's, and no validator that renews (validator-health's and validation-end's auto-renew read).
  'platform.getStakingAssetID': { assetID: 'FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z' },
  'platform.getCurrentValidators': { validators: [] },
  // l1-liveness: the L1's chain, its epoch (service.md's example) and the P-Chain's proposed height.
  'platform.validates': { blockchainIDs: ['2tsLsNQUZfZnqDD9WBhTyj2XyMcmSGJHWTo7qFrVqzaiWvWbjN'] },
  'proposervm.getCurrentEpoch': { number: '56', startTime: '1755802182', pChainHeight: '21857141' },
  'platform.getProposedHeight': { height: '21857200' },
};

/** The operator's own node, the same at every read: the node kinds' service side is what is generated here. */
const HEALTHY_NODE: NodeApi = {
  health: async () => ({ healthy: true, checks: [{ name: 'C', contiguousFailures: 0 }] }),
  metricsText: async () => 'avalanche_network_peers 60\n',
  // The node's replies as it writes them, read with the caller's schema; no kind reads another method yet.
  rpc: async (_base, _path, method, _params, schema) => {
    const reply = INFO_REPLIES[method];
    if (reply === undefined) throw new Error(`no kind reads ${method} yet`);
    return schema.parse(reply);
  },
};

/** The rule files' examples, parsed as the config loader parses a rule: one per kind. */
function exampleRules(): Map<string, Record<string, unknown>> {
  const dir = fileURLToPath(new URL('../../rules/', import.meta.url));
  const out = new Map<string, Record<string, unknown>>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
    const doc = parseYaml(readFileSync(join(dir, file), 'utf8')) as { rules?: unknown[] } | null;
    for (const raw of doc?.rules ?? []) {
      const kind = (raw as { kind?: unknown }).kind;
      // The profile's rules select the inventory (`validators: all`): one validator stands in for it.
      const { validators: selects, ...rest } = raw as Record<string, unknown>;
      // A kind that fills no key (network-baseline) takes only the validator's network.
      const keys = ruleKind(String(kind)).selects ?? [];
      const selected = keys.includes('urls') ? { urls: { [PROFILE_NODE]: 'http://127.0.0.1:9650' } } : keys.length === 0 ? {} : { nodeIds: [PROFILE_NODE] };
      const rule = selects === undefined ? rest : { network: 'mainnet', ...selected, ...rest };
      // `subnets: from-inventory` is the inventory's too: the stand-in validates one L1.
      if (selects !== undefined && rule['subnets'] === 'from-inventory') rule['subnets'] = { [PROFILE_NODE]: ['2XDnKyAEr1RhhWpTpMXqrjeejN23vETmDkA5H8aSsGLBj5d4Uh'] };
      if (typeof kind === 'string' && !out.has(kind)) out.set(kind, ruleSchema.parse(rule) as Record<string, unknown>);
    }
  }
  return out;
}

describe(`rules on generated responses of @avalanche-sdk/chainkit ${SDK_VERSION}: an identical second read changes nothing`, () => {
  const agent = new MockAgent();
  agent.disableNetConnect();
  let service: FakeService | undefined;
  for (const origin of [DATA_URL, METRICS_URL]) {
    agent
      .get(origin)
      .intercept({ path: () => true, method: () => true })
      .reply((req) => {
        const { statusCode, body } = (service as FakeService).answer(req.method, new URL(req.path, origin));
        return { statusCode, data: JSON.stringify(body), responseOptions: { headers: { 'content-type': 'application/json' } } };
      })
      .persist();
  }
  afterAll(() => agent.close());
  const http = (api: string, baseUrl: string) =>
    new HttpClient({ api, baseUrl, dispatcher: agent, headers: {}, timeoutMs: 10_000, maxResponseBytes: 64_000_000, retries: 0, backoffInitialMs: 1, backoffMaxMs: 1, maxRetryAfterMs: 1, clock: systemClock });
  const data = new DataApi(http('data', DATA_URL), { pageSize: 100, maxPages: 10 });
  const metrics = new MetricsApi(http('metrics', METRICS_URL));
  const examples = exampleRules();
  const expressions = new ExpressionRunner();
  afterAll(() => expressions.stop());

  it.each(Object.keys(ruleKinds))('%s', async (name) => {
    const kind = ruleKind(name);
    const spec = examples.get(name);
    if (!spec) throw new Error(`no example rule of kind ${name} in rules/*.yaml`);
    const read = async (previous: ReadonlyMap<string, unknown>): Promise<Evaluation<unknown>> => {
      const observation: unknown = await kind.observe(spec, { data, metrics, node: HEALTHY_NODE, signal: new AbortController().signal, now: NOW, previous, expressions });
      return kind.evaluate(previous, observation, NOW, spec) as Evaluation<unknown>;
    };
    await fc.assert(
      fc.asyncProperty(fc.gen(), async (draw) => {
        service = new FakeService(draw, spec);
        // As the engine passes it: a Map (ids such as __proto__ are keys).
        const baseline = await read(new Map());
        const second = await read(baseline.states);
        // A per-entity failure is a lookup that could not read an answer the contract allows.
        expect(baseline.failed ?? {}, 'entities that failed at the baseline').toEqual({});
        expect(second.failed ?? {}, 'entities that failed at the second read').toEqual({});
        expect(second.alerts, 'events on an identical second read').toEqual([]);
        expect(second.conditions, 'conditions of the second read (the baseline had these)').toEqual(baseline.conditions);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  }, 300_000);
});
