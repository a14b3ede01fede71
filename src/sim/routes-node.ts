import type { Network } from '../api/data/reader.js';
import type { HealthWorker, NodeWorld, RpcAnswer } from './node.js';

// The simulated nodes' HTTP face, /node/{NodeID}/ext/…: what the server sends, byte for byte
// as AvalancheGo does (Go's encoder ends a body with a newline; every answer carries the
// node-id header), or `destroy` for a node that is down. Unknown NodeIDs: 404. A public
// P-Chain API stands at /p-chain/{mainnet|fuji}/ext/bc/P (an operator's `pChainApi`).

export type NodeReply = { destroy: true } | { status: number; headers: Record<string, string>; body: string };

/** platform.* of a network's P-Chain (World.pchainApi). */
export type PChainRpc = (network: Network, method: string, params: Record<string, unknown>) => RpcAnswer;

const ROUTE = /^\/node\/([^/]+)\/ext\/(health(?:\/health|\/readiness|\/liveness)?|info|metrics|bc\/P|bc\/[^/]+\/proposervm)\/?$/;
const PUBLIC_P_CHAIN = /^\/p-chain\/(mainnet|fuji)\/ext\/bc\/P\/?$/;

/** The body as the simulator read it: parsed JSON, undefined, or the parse error; `query` the URL's (GET /ext/health?tag=…). */
export function nodeReply(nodes: NodeWorld, method: string, pathname: string, body: unknown, pchain: PChainRpc, query?: URLSearchParams): NodeReply {
  const open = PUBLIC_P_CHAIN.exec(pathname);
  if (open) return rpc(method, body, {}, (m, params) => pchain(open[1] as Network, m, params));
  const match = ROUTE.exec(pathname);
  const nodeId = match ? decodeURIComponent(match[1] as string) : undefined;
  const node = nodeId === undefined ? undefined : nodes.get(nodeId);
  if (!match || !node) return text(404, '404 page not found\n');
  if (node.down) return { destroy: true };
  const headers = { 'node-id': node.reportsNodeId ?? node.nodeId };
  const route = match[2] as string;
  // An API switched off by its flag has no route (node.go initHealthAPI, initInfoAPI): gorilla/mux's 404.
  if ((route.startsWith('health') && !node.healthApi) || (route === 'info' && !node.infoApi)) return text(404, '404 page not found\n', headers);

  if (route === 'metrics') {
    if (method !== 'GET') return text(405, 'Method Not Allowed\n', headers);
    return { status: 200, headers: { ...headers, 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }, body: nodes.metrics(node.nodeId) ?? '' };
  }
  if (route.startsWith('health') && method === 'GET') {
    // health.NewGetHandler over the route's worker (GET /ext/health is the health worker), `?tag=` repeatable.
    const worker = (route.split('/')[1] ?? 'health') as HealthWorker;
    const health = nodes.health(node.nodeId, worker, query?.getAll('tag') ?? []);
    if (!health) return text(404, '404 page not found\n');
    return goJson(health.status, health.body, headers, 'application/json');
  }
  return rpc(method, body, headers, (rpcMethod, params) => {
    if (route === 'bc/P' && rpcMethod === 'platform.validates') return nodes.validates(params);
    if (route === 'bc/P') return pchain(node.network, rpcMethod, params);
    if (route === 'info') return nodes.info(node.nodeId, rpcMethod, params);
    if (route.endsWith('/proposervm')) return nodes.proposervm(node.nodeId, decodeURIComponent(route.slice(3, -'/proposervm'.length)), rpcMethod);
    return healthRpc(nodes, node.nodeId, rpcMethod, params);
  });
}

/** api/health/service.go: health.health, health.readiness, health.liveness with APIArgs {tags}; the APIReply as result. */
function healthRpc(nodes: NodeWorld, nodeId: string, rpcMethod: string, params: Record<string, unknown>): RpcAnswer | undefined {
  const [service = '', fn = ''] = rpcMethod.split('.', 2);
  if (service !== 'health') return rpcError(`rpc: can't find service "${rpcMethod}"`);
  if (/^[A-Z]/.test(fn)) return rpcError('method must start with a non-uppercase letter');
  if (fn !== 'health' && fn !== 'readiness' && fn !== 'liveness') return rpcError(`rpc: can't find method "health.${fn.charAt(0).toUpperCase()}${fn.slice(1)}"`);
  const tags = params['tags'];
  if (tags !== undefined && tags !== null && !(Array.isArray(tags) && tags.every((t) => typeof t === 'string'))) {
    return rpcError('couldn\'t unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls');
  }
  const health = nodes.health(nodeId, fn, (tags ?? []) as string[]);
  return health ? { result: health.body } : undefined;
}

function rpcError(message: string): RpcAnswer {
  return { error: { code: -32000, message, data: null } };
}

/** A JSON-RPC 2.0 exchange as gorilla/rpc json2 answers it (always HTTP 200 once it is POST). */
function rpc(method: string, body: unknown, headers: Record<string, string>, answer: (method: string, params: Record<string, unknown>) => RpcAnswer | undefined): NodeReply {
  if (method !== 'POST') return text(405, `rpc: POST method required, received ${method}\n`, headers);
  if (body instanceof Error) return goJson(200, { jsonrpc: '2.0', error: { code: -32700, message: body.message, data: {} }, id: null }, headers);
  const call = (body ?? {}) as { jsonrpc?: unknown; method?: unknown; params?: unknown; id?: unknown };
  const id = call.id ?? null;
  if (call.jsonrpc !== '2.0') return goJson(200, { jsonrpc: '2.0', error: { code: -32600, message: 'jsonrpc must be 2.0', data: call }, id }, headers);
  const rpcMethod = typeof call.method === 'string' ? call.method : '';
  const params = typeof call.params === 'object' && call.params !== null && !Array.isArray(call.params) ? (call.params as Record<string, unknown>) : {};
  const a = answer(rpcMethod, params);
  if (!a) return text(404, '404 page not found\n');
  return goJson(200, { jsonrpc: '2.0', ...a, id }, { ...headers, 'x-content-type-options': 'nosniff' });
}

/** GET health writes `application/json`; gorilla/rpc's answers `application/json; charset=utf-8`. */
function goJson(status: number, body: unknown, headers: Record<string, string>, contentType = 'application/json; charset=utf-8'): NodeReply {
  return { status, headers: { ...headers, 'content-type': contentType }, body: `${JSON.stringify(body)}\n` };
}

function text(status: number, body: string, headers: Record<string, string> = {}): NodeReply {
  return { status, headers: { ...headers, 'content-type': 'text/plain; charset=utf-8' }, body };
}
