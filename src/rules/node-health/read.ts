import { z } from 'zod';
import type { NodeApi } from '../../api/node-api.js';
import { goNumber } from '../../api/node-schemas.js';

// info.uptime is read by validator-health too: it lives in rules/node-uptime.ts.
export { nodeUptime, uptimeReply, type NodeUptime } from '../node-uptime.js';
// info.upgrades is read by node-upgrade too: it lives in rules/node-upgrades.ts.
export { nodeUpgrades, upgradesReply, UNREADABLE } from '../node-upgrades.js';

// The node's info calls this kind reads, read from here (POST /ext/info, through NodeApi.rpc;
// no compute units): getNodeID, getNodeVersion, isBootstrapped, uptime (shared), peers, upgrades. Their replies
// are read as the Go source writes them (docs/node-api-source.md), only the fields used;
// test/contract/node.test.ts holds the schemas to it.

export interface NodeIdentity {
  nodeId: string;
  /** The BLS public key from nodePOP (0x + 96 lowercase hex digits), when the node reports one. */
  blsPublicKey?: string | undefined;
}


/** A count (json.Uint64): a non-negative integer. */
const count = goNumber.refine((n) => Number.isSafeInteger(n) && n >= 0, { message: 'expected a non-negative integer' });

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

/** info.peers: numPeers (json.Uint64); without it, the length of `peers`. */
export const peersReply = z
  .looseObject({ numPeers: count.optional(), peers: z.array(z.unknown()).nullish() })
  .refine((r) => r.numPeers !== undefined || Array.isArray(r.peers), { message: 'neither numPeers nor peers' })
  .transform((r) => r.numPeers ?? r.peers?.length ?? 0);

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


export async function peerCount(api: NodeApi, base: string, signal: AbortSignal): Promise<number> {
  return api.rpc(base, INFO, 'info.peers', {}, peersReply, signal);
}
