import { NodeApiError, type HealthReport, type NodeApi } from '../../api/node-api.js';
import { linkedSignal } from '../../base/abort.js';
import { PRIMARY_NETWORK } from '../fields.js';
import { isFailed, type Failed } from '../lookup.js';
import type { ObserveContext } from '../types.js';
import { observeValidators, type Seen } from '../validators.js';
import { isBootstrapped, nodeIdentity, nodeUpgrades, nodeUptime, nodeVersion, peersOfMetrics, PEERS_GAUGE, type NodeIdentity, type NodeUptime } from './read.js';
import type { Spec, State } from './schema.js';
import { settle, type Read } from '../node-calls.js';

// One node's own APIs, read together: /ext/health first (a node that does not answer it is
// not asked the rest, so an unreachable node costs one timeout, not seven), then the info
// calls side by side. A call that fails leaves its figure unread: the evaluation keeps the
// last value, so one odd answer neither fires nor resolves anything. The peer count is the
// health answer's (never info.peers: the whole list, over 1 MiB past ~3,000 peers); with the
// health API off, /ext/metrics' gauge.

/** A figure read from the node, or why it could not be. */

/** A figure what the node answered does not carry (never a failed read): why. */
export interface Unknown {
  unknown: string;
}

export interface NodeReading {
  /** `off`: the node does not serve /ext/health (404: --api-health-enabled=false); judged by its info API. */
  health: HealthReport | 'off';
  identity: Read<NodeIdentity>;
  version: Read<string>;
  bootstrapped: Record<string, Read<boolean>>;
  uptime: Read<NodeUptime>;
  /** Connected peers: /ext/health's network check, else /ext/metrics' gauge; unknown when neither tells. */
  peers: { ok: number } | Unknown;
  upgrades: Read<Record<string, number>>;
}

/** The node's API did not answer (network, deadline, HTTP error): a fact to alert on, not a failed lookup. */
export interface Unreachable {
  unreachable: string;
}

export interface Observation {
  /** NodeID → what its API said, or that it did not answer, or why its answer could not be read. */
  nodes: Record<string, NodeReading | Unreachable | Failed>;
  /** The service's view of the same nodes; undefined when the rule reads none (outside: false). */
  service?: Map<string, Seen> | Failed;
}

// Each node's calls listen on a signal of their own: the rule's signal holds one listener per node in flight.
const NODE_CONCURRENCY = 4;

export async function observeNodes(s: Spec, ctx: ObserveContext): Promise<Observation> {
  const api: NodeApi | undefined = ctx.node;
  if (!api) throw new Error('node-health needs the node API client');
  const node: NodeApi = api;
  const ids = Object.keys(s.urls);
  const nodes: Observation['nodes'] = {};
  let next = 0;
  async function worker(): Promise<void> {
    while (next < ids.length) {
      const id = ids[next++] as string;
      const own = linkedSignal(ctx.signal);
      try {
        nodes[id] = await readNode(node, s.urls[id] as string, s.chains, own.signal);
      } finally {
        own.dispose();
      }
    }
  }
  // Side by side, and both awaited at once: a rejection of either (shutdown) is never left unhandled.
  const [service] = await Promise.all([
    s.outside === false ? undefined : readService(s, ids, ctx),
    Promise.all(Array.from({ length: Math.min(NODE_CONCURRENCY, ids.length) }, worker)),
  ]);
  return service === undefined ? { nodes } : { nodes, service };
}

async function readNode(api: NodeApi, base: string, chains: readonly string[], signal: AbortSignal): Promise<NodeReading | Unreachable | Failed> {
  let health: HealthReport | 'off';
  try {
    health = await api.health(base, signal);
  } catch (err) {
    signal.throwIfAborted();
    // It answers 404: up, with its health API switched off; the info calls still tell.
    if (err instanceof NodeApiError && err.kind === 'off') health = 'off';
    else if (err instanceof NodeApiError && err.kind !== 'unreachable') return { failed: `/ext/health: ${err.message}` };
    else return { unreachable: err instanceof Error ? err.message : String(err) };
  }
  const read = <T>(call: () => Promise<T>): Promise<Read<T>> => settle(call, signal);
  const [identity, version, uptime, peers, upgrades, ...boot] = await Promise.all([
    read(() => nodeIdentity(api, base, signal)),
    read(() => nodeVersion(api, base, signal)),
    read(() => nodeUptime(api, base, signal)),
    peersOf(api, base, health, signal),
    read(() => nodeUpgrades(api, base, signal)),
    ...chains.map((c) => read(() => isBootstrapped(api, base, c, signal))),
  ]);
  const bootstrapped = Object.fromEntries(chains.map((c, i) => [c, boot[i] as Read<boolean>]));
  return { health, identity, version, uptime, peers, upgrades, bootstrapped };
}

/** The peer count: the health answer's; with the health API off, the metrics gauge (a read node-metrics shares), else unknown. */
async function peersOf(api: NodeApi, base: string, health: HealthReport | 'off', signal: AbortSignal): Promise<{ ok: number } | Unknown> {
  if (health !== 'off') return health.connectedPeers === undefined ? { unknown: "/ext/health's network check gives no connectedPeers (not run yet?)" } : { ok: health.connectedPeers };
  try {
    const n = await peersOfMetrics(api, base, signal);
    return n === undefined ? { unknown: `the health API is off and /ext/metrics has no ${PEERS_GAUGE}` } : { ok: n };
  } catch (err) {
    signal.throwIfAborted();
    // A fallback: its failure leaves the figure unknown, it does not fail the node.
    const why = err instanceof NodeApiError && err.kind === 'off' ? '/ext/metrics is switched off too' : `/ext/metrics: ${err instanceof Error ? err.message : String(err)}`;
    return { unknown: `the health API is off and ${why}` };
  }
}

/** The service's bulk lists (the validator rules' very calls, so shared with them); blind is not an error of the rule. */
async function readService(s: Spec, ids: readonly string[], ctx: ObserveContext): Promise<Map<string, Seen> | Failed> {
  // The lists' bookkeeping reads each node's last period: only states that hold one.
  const previous = new Map<string, unknown>();
  for (const id of ids) {
    const st = ctx.previous.get(id) as State | undefined;
    if (st?.period !== undefined) previous.set(id, { period: st.period, missing: st.missing });
  }
  try {
    const seen = await observeValidators({ network: s.network, nodeIds: ids, subnetId: PRIMARY_NETWORK }, { ...ctx, previous }, s.nodeIds ? { askedWith: s.nodeIds } : {});
    return new Map(ids.map((id, i) => [id, seen[i] as Seen]));
  } catch (err) {
    ctx.signal.throwIfAborted();
    return { failed: err instanceof Error ? err.message : String(err) };
  }
}

export function isUnreachable(v: unknown): v is Unreachable {
  return typeof v === 'object' && v !== null && typeof (v as Unreachable).unreachable === 'string';
}

export { isFailed };
