import type { Network } from '../api/data/reader.js';
import type { NodeWorld, RpcAnswer } from './node.js';

// The simulated nodes' HTTP face, /node/{NodeID}/ext/…: what the server sends, byte for byte
// as AvalancheGo does (Go's encoder ends a body with a newline; every answer carries the
// node-id header), or `destroy` for a node that is down. Unknown NodeIDs: 404. A public
// P-Chain API stands at /p-chain/{mainnet|fuji}/ext/bc/P (an operator's `pChainApi`).

export type NodeReply = { destroy: true } | { status: number; headers: Record<string, string>; body: string };

/** platform.* of a network's P-Chain (World.pchainApi). */
export type PChainRpc = (network: Network, method: string, params: Record<string, unknown>) => RpcAnswer;

const ROUTE = /^\/node\/([^/]+)\/ext\/(health(?:\/health|\/readiness|\/liveness)?|info|metrics|bc\/P)\/?$/;
const PUBLIC_P_CHAIN = /^\/p-chain\/(mainnet|fuji)\/ext\/bc\/P\/?$/;

/** The body as the simulator read it: parsed JSON, undefined, or the parse error. */
export function nodeReply(nodes: NodeWorld, method: string, pathname: string, body: unknown, pchain: PChainRpc): NodeReply {
  const open = PUBLIC_P_CHAIN.exec(pathname);
  if (open) return rpc(method, body, {}, (m, params) => pchain(open[1] as Network, m, params));
  const match = ROUTE.exec(pathname);
  const nodeId = match ? decodeURIComponent(match[1] as string) : undefined;
  const node = nodeId === undefined ? undefined : nodes.get(nodeId);
  if (!match || !node) return text(404, '404 page not found\n');
  if (node.down) return { destroy: true };
  const headers = { 'node-id': node.reportsNodeId ?? node.nodeId };
  const route = match[2] as string;

  if (route === 'metrics') {
    if (method !== 'GET') return text(405, 'Method Not Allowed\n', headers);
    return { status: 200, headers: { ...headers, 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }, body: nodes.metrics(node.nodeId) ?? '' };
  }
  if (route.startsWith('health') && method === 'GET') {
    const health = nodes.health(node.nodeId);
    if (!health) return text(404, '404 page not found\n');
    // Readiness and liveness hold no checks the simulator fails but bootstrapping (readiness).
    const body = route === 'health' || route === 'health/health' ? health.body : subset(health.body, route === 'health/readiness' ? ['bootstrapped'] : []);
    const status = route === 'health' || route === 'health/health' ? health.status : body.healthy ? 200 : 503;
    return goJson(status, body, headers, 'application/json');
  }
  return rpc(method, body, headers, (rpcMethod, params) => {
    if (route === 'bc/P') return pchain(node.network, rpcMethod, params);
    if (route === 'info') return nodes.info(node.nodeId, rpcMethod, params);
    const health = nodes.health(node.nodeId);
    if (rpcMethod !== 'health.health' || !health) return { error: { code: -32000, message: `rpc: can't find method "${rpcMethod}"`, data: null } };
    return { result: health.body };
  });
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

function subset(body: { checks: Record<string, unknown>; healthy: boolean }, names: string[]): { checks: Record<string, unknown>; healthy: boolean } {
  const checks = Object.fromEntries(Object.entries(body.checks).filter(([name]) => names.includes(name)));
  return { checks, healthy: Object.values(checks).every((c) => (c as { error?: unknown }).error === undefined) };
}

/** GET health writes `application/json`; gorilla/rpc's answers `application/json; charset=utf-8`. */
function goJson(status: number, body: unknown, headers: Record<string, string>, contentType = 'application/json; charset=utf-8'): NodeReply {
  return { status, headers: { ...headers, 'content-type': contentType }, body: `${JSON.stringify(body)}\n` };
}

function text(status: number, body: string, headers: Record<string, string> = {}): NodeReply {
  return { status, headers: { ...headers, 'content-type': 'text/plain; charset=utf-8' }, body };
}
