import { z } from 'zod';
import type { NodeApi } from '../api/node-api.js';
import { goNumber } from '../api/node-schemas.js';

// An L1's view of the P-Chain, read from the operator's own node (AvalancheGo v1.14.0+,
// RELEASES.md: "Added proposervm … jsonrpc APIs for GetProposedHeight and GetCurrentEpoch …
// added to all chains with the base endpoint /proposervm"). vms/proposervm/service.go answers
// with api.GetHeightResponse and GetEpochResponse, every field a json.Uint64 (a quoted
// decimal; a bare number parses too). Only the fields read here are parsed.

/** A json.Uint64 within JavaScript's exact integers: a height or a unix second beyond 2^53 is no reading. */
const uint64 = goNumber.refine((n) => Number.isSafeInteger(n) && n >= 0, { message: 'expected a non-negative integer within 2^53' });

/** The epoch the L1's next block would carry (acp181.NewEpoch over the tip): all zeros before Granite. */
export interface Epoch {
  number: number;
  /** Unix seconds the epoch began (the sealing block's timestamp). */
  startTime: number;
  /** The P-Chain height the epoch pins for Warp and the VM's validator reads. */
  pChainHeight: number;
}

/** proposervm.getCurrentEpoch's GetEpochResponse {number, startTime, pChainHeight}. */
export const epochReply = z.looseObject({ number: uint64, startTime: uint64, pChainHeight: uint64 }).transform((r): Epoch => ({ number: r.number, startTime: r.startTime, pChainHeight: r.pChainHeight }));

/** api.GetHeightResponse {height}: platform.getHeight, platform.getProposedHeight, proposervm.getProposedHeight. */
export const heightReply = z.looseObject({ height: uint64 }).transform((r) => r.height);

/** The JSON-RPC path of a chain's proposervm service (vm.go httpPathEndpoint): the L1's blockchain ID, never its subnet ID. */
export function proposervmPath(blockchainId: string): string {
  return `/ext/bc/${encodeURIComponent(blockchainId)}/proposervm`;
}

/** proposervm.getCurrentEpoch of one L1 chain on the node at `base`. A node older than v1.14.0 answers 404 (NodeApiError `off`). */
export function currentEpoch(api: NodeApi, base: string, blockchainId: string, signal: AbortSignal): Promise<Epoch> {
  return api.rpc(base, proposervmPath(blockchainId), 'proposervm.getCurrentEpoch', {}, epochReply, signal);
}

/**
 * platform.getProposedHeight at /ext/bc/P (since v1.11.13): the P-Chain height a new block
 * would reference, about 30 s behind its tip (GetMinimumHeight). It moves while the P-Chain
 * lives, whatever an L1 does: the yardstick a frozen epoch is held to.
 */
export function proposedHeight(api: NodeApi, base: string, signal: AbortSignal): Promise<number> {
  return api.rpc(base, '/ext/bc/P', 'platform.getProposedHeight', {}, heightReply, signal);
}
