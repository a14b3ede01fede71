import { z } from 'zod';
import type { NodeApi } from '../../api/node-api.js';
import { ownTurn } from '../../base/timers.js';

// info.uptime is read by validator-health too: it lives in rules/node-uptime.ts.
export { nodeUptime, uptimeReply, type NodeUptime } from '../node-uptime.js';
// info.upgrades is read by node-upgrade too: it lives in rules/node-upgrades.ts.
export { nodeUpgrades, upgradesReply, UNREADABLE } from '../node-upgrades.js';

// The node's info calls this kind reads, read from here (POST /ext/info, through NodeApi.rpc;
// no compute units): getNodeID, getNodeVersion, isBootstrapped, uptime (shared), upgrades. Their replies
// are read as the Go source writes them (docs/node-api-source.md), only the fields used;
// test/contract/node.test.ts holds the schemas to it.

export interface NodeIdentity {
  nodeId: string;
  /** The BLS public key from nodePOP (0x + 96 lowercase hex digits), when the node reports one. */
  blsPublicKey?: string | undefined;
}

/** info.getNodeID: {nodeID, nodePOP: {publicKey, proofOfPossession} | null}. */
export const nodeIdReply = z
  .looseObject({
    // ids.NodeID's text: NodeID- and CB58 (a hostile length never reaches an alert).
    nodeID: z.string().regex(/^NodeID-[1-9A-HJ-NP-Za-km-z]{20,60}$/, 'expected NodeID-…'),
    // formatting.HexNC: 0x and 96 hex digits; another shape is no key read (never a failed answer).
    nodePOP: z.looseObject({ publicKey: z.string().optional().catch(undefined) }).nullish().catch(undefined),
  })
  .transform((r): { nodeId: string; blsPublicKey?: string } => {
    const key = r.nodePOP?.publicKey;
    return key === undefined || !/^0x[0-9a-fA-F]{96}$/.test(key) ? { nodeId: r.nodeID } : { nodeId: r.nodeID, blsPublicKey: key.toLowerCase() };
  });

/** info.getNodeVersion: {version: "avalanchego/1.14.2", databaseVersion, rpcProtocolVersion, gitCommit, vmVersions}. */
export const nodeVersionReply = z.looseObject({ version: z.string().min(1) }).transform((r) => r.version);

/** info.isBootstrapped: {isBootstrapped}. */
export const isBootstrappedReply = z.looseObject({ isBootstrapped: z.boolean() }).transform((r) => r.isBootstrapped);

/** The info API's JSON-RPC endpoint. */
const INFO = '/ext/info';

export async function nodeIdentity(api: NodeApi, base: string, signal: AbortSignal): Promise<NodeIdentity> {
  return api.rpc(base, INFO, 'info.getNodeID', {}, nodeIdReply, signal);
}

/** e.g. "avalanchego/1.14.2" */
export async function nodeVersion(api: NodeApi, base: string, signal: AbortSignal): Promise<string> {
  return api.rpc(base, INFO, 'info.getNodeVersion', {}, nodeVersionReply, signal);
}

/** chain: an alias (P, X, C) or a blockchain id. */
export async function isBootstrapped(api: NodeApi, base: string, chain: string, signal: AbortSignal): Promise<boolean> {
  return api.rpc(base, INFO, 'info.isBootstrapped', { chain }, isBootstrappedReply, signal);
}

/** network/metrics.go's gauge (namespace avalanche_network): set on each connect and disconnect, health API or not. */
export const PEERS_GAUGE = 'avalanche_network_peers';

/** The node's /ext/metrics under its API base (a path prefix and credentials kept): node-metrics reads the same URL, so one read serves both. */
export function metricsUrlOf(base: string): string {
  const u = new URL(base);
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/ext/metrics`;
  return u.toString();
}

/** The connected peers from /ext/metrics' gauge, for a node whose health API is off; undefined when the exposition has no such sample. */
export async function peersOfMetrics(api: NodeApi, base: string, signal: AbortSignal): Promise<number | undefined> {
  const text = await api.metricsText(metricsUrlOf(base), signal);
  return ownTurn(() => gaugeValue(text, PEERS_GAUGE));
}

/**
 * The value of an unlabelled gauge's sample (`name value` or `name{} value`), found with the
 * native search (the exposition runs to MBs); a count only: a non-negative safe integer.
 */
export function gaugeValue(text: string, name: string): number | undefined {
  let from = 0;
  while (from < text.length) {
    const at = text.indexOf(name, from);
    if (at < 0) return undefined;
    const end = text.indexOf('\n', at);
    from = end < 0 ? text.length : end + 1;
    if (at !== 0 && text[at - 1] !== '\n') continue;
    const m = /^(?:\{\})?[ \t]+(\S+)/.exec(text.slice(at + name.length, end < 0 ? undefined : end));
    if (!m) continue;
    const value = Number(m[1]);
    return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  }
  return undefined;
}
