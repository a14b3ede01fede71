import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as components from '@avalanche-sdk/chainkit/models/components';
import * as errors from '@avalanche-sdk/chainkit/models/errors';
import { z as z3, type ZodIssue, type ZodTypeAny } from 'zod/v3';

// The service's published contract, as Ava Labs' SDK (generated from the live OpenAPI
// specification) reads it: which body schema and which success status belong to each path.

const PACKAGE_JSON = createRequire(import.meta.url).resolve('@avalanche-sdk/chainkit/package.json');
export const SDK_DIR = dirname(PACKAGE_JSON);
export const SDK_VERSION = (JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version: string }).version;

type ComponentKey = Extract<keyof typeof components, `${string}$inboundSchema`>;

export interface Contract {
  method: 'GET' | 'POST';
  /** The path as the SDK's src/funcs/ writes it (`pathToFunc`). */
  path: string;
  /** The one success status the SDK accepts; any other 2xx is an error to it. */
  status: 200 | 201;
  /** The SDK component schema of the body; undefined for a route the SDK does not have. */
  component?: ComponentKey;
  schema: ZodTypeAny;
  pattern: RegExp;
}

function sdk(method: Contract['method'], path: string, status: Contract['status'], component: ComponentKey): Contract {
  return { method, path, status, component, schema: components[component] as ZodTypeAny, pattern: templatePattern(path) };
}

/** `/v1/networks/{network}/delegators` → a pattern for concrete paths. */
function templatePattern(path: string): RegExp {
  const parts = path.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[^/]+')}$`);
}

/**
 * The legacy route is not in the SDK (nor in the published specification): it is held to
 * the interface's shape (section 4.9), built from the SDK's metric point.
 */
const LEGACY_AVG_TPS: Contract = {
  method: 'GET',
  path: '/v1/avg_tps/{chainId}',
  status: 200,
  schema: z3.object({ results: z3.array(components.MetricsValue$inboundSchema), status: z3.number().int(), lastRun: z3.number().int() }),
  pattern: templatePattern('/v1/avg_tps/{chainId}'),
};

/** Every operation the simulator serves. */
export const CONTRACTS: readonly Contract[] = [
  sdk('GET', '/v1/networks/{network}/validators/{nodeId}', 200, 'ListValidatorDetailsResponse$inboundSchema'),
  sdk('GET', '/v1/networks/{network}/validators', 200, 'ListValidatorDetailsResponse$inboundSchema'),
  sdk('GET', '/v1/networks/{network}/delegators', 200, 'ListDelegatorDetailsResponse$inboundSchema'),
  sdk('GET', '/v1/networks/{network}/l1Validators', 200, 'ListL1ValidatorsResponse$inboundSchema'),
  sdk('GET', '/v1/icm/addresses/{address}/messages', 200, 'ListIcmMessagesResponse$inboundSchema'),
  sdk('POST', '/v1/operations/transactions:export', 201, 'OperationStatusResponse$inboundSchema'),
  sdk('GET', '/v1/operations/{operationId}', 200, 'OperationStatusResponse$inboundSchema'),
  sdk('GET', '/v1/networks/{network}/subnets', 200, 'ListSubnetsResponse$inboundSchema'),
  sdk('GET', '/v1/networks/{network}/blockchains/{blockchainId}/transactions:listStaking', 200, 'ListPChainTransactionsResponse$inboundSchema'),
  sdk('GET', '/v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}/transactions', 200, 'ListXChainTransactionsResponse$inboundSchema'),
  sdk('GET', '/v1/networks/{network}/blockchains/{blockchainId}/nodes/{nodeId}/blocks', 200, 'ListPrimaryNetworkBlocksResponse$inboundSchema'),
  sdk('GET', '/v1/chains/{chainId}/addresses/{address}/transactions', 200, 'ListTransactionDetailsResponse$inboundSchema'),
  sdk('GET', '/v1/chains/{chainId}/addresses/{address}/transactions:listErc20', 200, 'ListErc20TransactionsResponse$inboundSchema'),
  sdk('GET', '/v1/chains/{chainId}/addresses/{address}/transactions:listErc721', 200, 'ListErc721TransactionsResponse$inboundSchema'),
  sdk('GET', '/v1/chains/{chainId}/addresses/{address}/transactions:listErc1155', 200, 'ListErc1155TransactionsResponse$inboundSchema'),
  sdk('GET', '/v1/chains/{chainId}/addresses/{address}/transactions:listInternals', 200, 'ListInternalTransactionsResponse$inboundSchema'),
  sdk('GET', '/v1/chains/{chainId}/contracts/{address}/deployments', 200, 'ListContractsResponse$inboundSchema'),
  sdk('GET', '/v1/chains/{chainId}/contracts/{address}/transactions:getDeployment', 200, 'GetTransactionResponse$inboundSchema'),
  sdk('GET', '/v1/chains/{chainId}/blocks/{blockId}/transactions', 200, 'ListNativeTransactionsResponse$inboundSchema'),
  sdk('GET', '/v1/chains/{chainId}/nfts/collections/{address}/tokens', 200, 'ListNftTokens$inboundSchema'),
  sdk('GET', '/v1/signatureAggregator/{network}/aggregateSignatures/{txHash}', 201, 'SignatureAggregationResponse$inboundSchema'),
  sdk('GET', '/v2/chains/{chainId}/metrics/{metric}', 200, 'MetricsApiResponse$inboundSchema'),
  LEGACY_AVG_TPS,
];

export function contractFor(method: string, pathname: string): Contract | undefined {
  return CONTRACTS.find((c) => c.method === method && c.pattern.test(pathname));
}

/** The SDK's error schemas by status: they add the request, response and raw body to the parsed JSON. */
const ERRORS: Record<number, ZodTypeAny> = {
  400: errors.BadRequestError$inboundSchema,
  401: errors.UnauthorizedError$inboundSchema,
  403: errors.ForbiddenError$inboundSchema,
  404: errors.NotFoundError$inboundSchema,
  429: errors.TooManyRequestsError$inboundSchema,
  500: errors.InternalServerError$inboundSchema,
  502: errors.BadGatewayError$inboundSchema,
  503: errors.ServiceUnavailableError$inboundSchema,
};

export function errorSchema(status: number): ZodTypeAny | undefined {
  return ERRORS[status];
}

/**
 * Where the table and the SDK disagree: for each SDK contract, the src/funcs/ file of that
 * method and path must accept exactly `status` with `component` as the body (directly, or
 * as the `Result` of an operations wrapper).
 */
export function tableDrift(): string[] {
  const funcs = readSources(join(SDK_DIR, 'src/funcs'));
  const operations = readSources(join(SDK_DIR, 'src/models/operations'));
  const drift: string[] = [];
  for (const c of CONTRACTS) {
    if (c.component === undefined) continue;
    const file = funcs.find((text) => text.includes(`pathToFunc("${c.path}"`) && text.includes(`method:"${c.method}"`));
    const accepted = file?.match(/M\.json\((\d+),(components|operations)\.(\w+)\$inboundSchema/);
    if (!file || !accepted) {
      drift.push(`${c.method} ${c.path}: no such operation in the SDK`);
      continue;
    }
    const [, status, kind, name] = accepted;
    const body = kind === 'components' ? name : resultOf(operations, name ?? '');
    if (Number(status) !== c.status || `${body}$inboundSchema` !== c.component) {
      drift.push(`${c.method} ${c.path}: the SDK accepts ${status} with ${body}, the table says ${c.status} with ${c.component.replace('$inboundSchema', '')}`);
    }
  }
  return drift;
}

/** The files of a folder with their whitespace removed, so a wrapped call reads as one. */
function readSources(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(join(dir, f), 'utf8').replace(/\s+/g, ''));
}

function resultOf(operations: string[], wrapper: string): string | undefined {
  for (const text of operations) {
    const at = text.indexOf(`exportconst${wrapper}$inboundSchema`);
    if (at === -1) continue;
    return /Result:components\.(\w+)\$inboundSchema/.exec(text.slice(at))?.[1];
  }
  return undefined;
}

/**
 * zod issues as lines `path: message (received value)`. A union reports only "Invalid input":
 * show the branch the body meant (no literal mismatch, fewest issues) instead.
 */
export function describeIssues(issues: readonly ZodIssue[], body: unknown): string[] {
  return issues.flatMap((issue) => {
    if (issue.code === 'invalid_union') return describeIssues(closestBranch(issue.unionErrors.map((e) => e.issues)), body);
    const where = issue.path.join('.') || '(body)';
    return [`${where}: ${issue.message} (got ${preview(valueAt(body, issue.path))})`];
  });
}

/**
 * Fields of `body` that the SDK's parse dropped: the SDK's objects strip keys they do not
 * know, so a misspelt optional field would otherwise pass unseen. Array indices read `[]`.
 */
export function unknownFields(body: unknown, parsed: unknown, path = ''): string[] {
  if (Array.isArray(body)) return [...new Set(body.flatMap((item, i) => unknownFields(item, Array.isArray(parsed) ? parsed[i] : undefined, `${path}[]`)))];
  if (typeof body !== 'object' || body === null || typeof parsed !== 'object' || parsed === null) return [];
  return Object.entries(body).flatMap(([key, value]) => {
    const at = path ? `${path}.${key}` : key;
    return key in parsed ? unknownFields(value, (parsed as Record<string, unknown>)[key], at) : [at];
  });
}

function closestBranch(branches: ZodIssue[][]): ZodIssue[] {
  const meant = branches.filter((b) => !b.some((i) => i.code === 'invalid_literal'));
  const pool = meant.length > 0 ? meant : branches;
  return pool.reduce((best, b) => (b.length < best.length ? b : best), pool[0] ?? []);
}

function valueAt(body: unknown, path: ReadonlyArray<string | number>): unknown {
  let at = body;
  for (const key of path) at = typeof at === 'object' && at !== null ? (at as Record<string | number, unknown>)[key] : undefined;
  return at;
}

function preview(value: unknown): string {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
