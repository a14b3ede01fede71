import type { NodeApi, NodeIdentity, NodeUptime } from '../../api/node-api.js';
import { isBootstrappedReply, nodeIdReply, nodeVersionReply, peersReply, uptimeReply } from '../../api/node-schemas.js';

// The node's info calls this kind reads, read from here (POST /ext/info, through NodeApi.rpc;
// no compute units): getNodeID, getNodeVersion, isBootstrapped, uptime, peers.

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

/** Throws `rpc` when the node is not a validator ("node is not a validator"); `invalid` for a figure outside 0..100. */
export async function nodeUptime(api: NodeApi, base: string, signal: AbortSignal): Promise<NodeUptime> {
  return api.rpc(base, INFO, 'info.uptime', {}, uptimeReply, signal);
}

export async function peerCount(api: NodeApi, base: string, signal: AbortSignal): Promise<number> {
  return api.rpc(base, INFO, 'info.peers', {}, peersReply, signal);
}
