import type { RpcAnswer, SimNode } from './node-state.js';

// An L1 chain's proposervm as the simulated node serves it (vms/proposervm/service.go,
// acp181/epoch.go of avalanchego v1.14.0+): a tip every 2 s while the chain lives, epochs of
// D = 5 min (upgrade.go GraniteEpochDuration, Mainnet and Fuji) sealed by the first tip past
// their end; a frozen chain keeps its last tip, so its epoch stands still and its
// block-building slot climbs by one every 5 s (proposer/windower.go WindowDuration).

/** Simulated ms between two tips of a live chain. */
const TIP_MS = 2_000;
/** Granite on Mainnet (upgrade.go): epochs are counted from it; before it every field is 0. */
const GRANITE_MS = Date.UTC(2025, 10, 19, 16);
/** GraniteEpochDuration on Mainnet and Fuji. */
export const EPOCH_MS = 300_000;
/** proposer.WindowDuration. */
export const SLOT_MS = 5_000;
/** validators/manager.go RecentlyAcceptedWindowTTL: the proposed height trails the tip by it. */
const PROPOSED_LAG_MS = 30_000;

/** The P-Chain's height at a simulated instant, a block every 2 s (also the Data API's blockHeight, routes-data.ts). */
export function pChainHeightAt(ms: number): number {
  return 20_000_000 + Math.floor(ms / 2_000);
}

/** platform.getHeight: the last accepted height; platform.getProposedHeight: GetMinimumHeight, about 30 s behind. */
export function pChainHeightAnswer(method: string, nowMs: number): RpcAnswer | undefined {
  if (method === 'platform.getHeight') return { result: { height: String(pChainHeightAt(nowMs)) } };
  if (method === 'platform.getProposedHeight') return { result: { height: String(pChainHeightAt(nowMs - PROPOSED_LAG_MS)) } };
  return undefined;
}

/** The chain's tip time: the last 2 s tick, or the last one before it froze. */
export function tipMs(frozenSince: number | undefined, nowMs: number): number {
  const at = frozenSince === undefined ? nowMs : Math.min(frozenSince, nowMs);
  return Math.floor(at / TIP_MS) * TIP_MS;
}

/** The epoch the tip carries: epochs start on D boundaries here (a live chain seals each at its first tip). */
export function epochOf(tip: number): { number: number; startMs: number; pChainHeight: number } {
  if (tip < GRANITE_MS) return { number: 0, startMs: 0, pChainHeight: 0 };
  const number = Math.floor((tip - GRANITE_MS) / EPOCH_MS);
  const startMs = GRANITE_MS + number * EPOCH_MS;
  return { number, startMs, pChainHeight: pChainHeightAt(startMs) };
}

/** avalanche_proposervm_block_building_slot: this node's next turn, in 5 s slots from the tip (about 1 on a live chain). */
export function buildingSlot(frozenSince: number | undefined, nowMs: number): number {
  if (frozenSince === undefined) return 1;
  return Math.floor((nowMs - tipMs(frozenSince, nowMs)) / SLOT_MS);
}

/** Is the version at least 1.14.0 (the release that added the proposervm JSON-RPC)? */
function hasProposerApi(version: string): boolean {
  const m = /(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) return true;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > 1 || (major === 1 && minor >= 14);
}

/**
 * POST /ext/bc/{chain}/proposervm: proposervm.getCurrentEpoch and getProposedHeight for an L1
 * chain the node runs; undefined (a 404) for another chain or a node older than v1.14.0.
 */
export function proposervmAnswer(node: SimNode, chain: string, method: string, nowMs: number): RpcAnswer | undefined {
  const l1 = node.l1Chains[chain];
  if (!l1 || !hasProposerApi(node.version)) return undefined;
  const tip = tipMs(l1.frozenSince, nowMs);
  const [service = '', fn = ''] = method.split('.', 2);
  if (service !== 'proposervm') return { error: { code: -32000, message: `rpc: can't find service "${method}"`, data: null } };
  if (/^[A-Z]/.test(fn)) return { error: { code: -32000, message: 'method must start with a non-uppercase letter', data: null } };
  if (fn === 'getProposedHeight') {
    // max(P-Chain GetMinimumHeight, the tip's own height): it follows the P-Chain even when frozen.
    return { result: { height: String(Math.max(pChainHeightAt(nowMs - PROPOSED_LAG_MS), pChainHeightAt(tip))) } };
  }
  if (fn === 'getCurrentEpoch') {
    const e = epochOf(tip);
    return { result: { number: String(e.number), startTime: String(Math.floor(e.startMs / 1000)), pChainHeight: String(e.pChainHeight) } };
  }
  return { error: { code: -32000, message: `rpc: can't find method "proposervm.${fn.charAt(0).toUpperCase()}${fn.slice(1)}"`, data: null } };
}
