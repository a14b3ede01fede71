// An L1's validator weight against what stops it (docs: README.md): consensus needs about 80%
// of the total weight answering (snowball K=20, alpha=15, with the 20% health buffer:
// parameters.go MinPercentConnectedHealthy), Warp 67% signing (warp_verifier.go
// WarpQuorumNumerator). The total counts inactive weight too: the P-Chain keeps it as one
// staker that never answers nor signs (state.go, snow/validators/warp.go). A validator turns
// inactive when its balance reaches 0, so the runway of each says when its weight leaves.

/** ACP-77's minimum fee, nAVAX/s: the burn of a validator not yet measured (every active one pays the same). */
export const MIN_FEE_NAVAX_PER_S = 512;

export interface Member {
  validationId: string;
  nodeId: string;
  weight: number;
  active: boolean;
  /** Remaining balance, nAVAX. */
  balance: bigint;
  /** Measured burn, nAVAX/s; null: not measured yet. */
  burnPerSecond: number | null;
}

export interface Limits {
  /** Share of the total weight consensus needs (0..1). */
  consensus: number;
  /** Share Warp needs (0..1). */
  warp: number;
  /** How far ahead the forecast looks, s. */
  horizonS: number;
}

export interface TopUp {
  validationId: string;
  nodeId: string;
  /** nAVAX that keeps it active through the horizon. */
  need: bigint;
}

export interface Weighing {
  totalWeight: number;
  activeShare: number;
  /** Share of the total held by active validators whose balance runs out within the horizon. */
  lowShare: number;
  /** Seconds from the balances' reading until the active share falls under each limit; 0: it is under now; undefined: not within the horizon. */
  consensusIn: number | undefined;
  warpIn: number | undefined;
  /** The fewest validators whose top-up keeps consensus through the horizon (heaviest first), and how much each needs. */
  topUps: TopUp[];
}

/** Each active validator's runway, s, at its measured burn, else at the others' (all pay the same fee), else at the minimum. */
export function runways(members: readonly Member[]): Map<string, number> {
  const measured = members.filter((m) => m.active && m.burnPerSecond !== null && m.burnPerSecond > 0).map((m) => m.burnPerSecond as number);
  const shared = measured.length > 0 ? Math.max(...measured) : MIN_FEE_NAVAX_PER_S;
  return new Map(members.filter((m) => m.active).map((m) => [m.validationId, Math.floor(Number(m.balance) / (m.burnPerSecond && m.burnPerSecond > 0 ? m.burnPerSecond : shared))]));
}

/** The L1's shares now and when they fall under the limits, with the top-ups that would keep it running. */
export function weigh(members: readonly Member[], limits: Limits): Weighing {
  const totalWeight = members.reduce((sum, m) => sum + m.weight, 0);
  const active = members.filter((m) => m.active && m.weight > 0);
  let activeWeight = active.reduce((sum, m) => sum + m.weight, 0);
  if (totalWeight <= 0) return { totalWeight, activeShare: 0, lowShare: 0, consensusIn: undefined, warpIn: undefined, topUps: [] };
  const runway = runways(members);
  const byRunway = [...active].sort((a, b) => (runway.get(a.validationId) ?? 0) - (runway.get(b.validationId) ?? 0) || (a.validationId < b.validationId ? -1 : 1));
  const share = activeWeight / totalWeight;
  let consensusIn = share < limits.consensus ? 0 : undefined;
  let warpIn = share < limits.warp ? 0 : undefined;
  let lowWeight = 0;
  for (const m of byRunway) {
    const at = runway.get(m.validationId) ?? 0;
    if (at > limits.horizonS) break;
    lowWeight += m.weight;
    activeWeight -= m.weight;
    if (consensusIn === undefined && activeWeight / totalWeight < limits.consensus) consensusIn = at;
    if (warpIn === undefined && activeWeight / totalWeight < limits.warp) warpIn = at;
  }
  return { totalWeight, activeShare: share, lowShare: lowWeight / totalWeight, consensusIn, warpIn, topUps: consensusIn === undefined || share < limits.consensus ? [] : topUps(byRunway, runway, members, totalWeight, limits) };
}

/** Heaviest first among those running dry within the horizon, until what stays active holds consensus. */
function topUps(byRunway: readonly Member[], runway: Map<string, number>, members: readonly Member[], totalWeight: number, limits: Limits): TopUp[] {
  const dry = byRunway.filter((m) => (runway.get(m.validationId) ?? 0) <= limits.horizonS);
  const lasting = byRunway.filter((m) => !dry.includes(m)).reduce((sum, m) => sum + m.weight, 0);
  const shared = Math.max(MIN_FEE_NAVAX_PER_S, ...members.map((m) => m.burnPerSecond ?? 0));
  let kept = lasting;
  const out: TopUp[] = [];
  for (const m of [...dry].sort((a, b) => b.weight - a.weight || (a.validationId < b.validationId ? -1 : 1))) {
    if (kept / totalWeight >= limits.consensus) break;
    kept += m.weight;
    const burn = m.burnPerSecond && m.burnPerSecond > 0 ? m.burnPerSecond : shared;
    const need = BigInt(Math.ceil(burn * limits.horizonS)) - m.balance;
    out.push({ validationId: m.validationId, nodeId: m.nodeId, need: need > 0n ? need : 0n });
  }
  return out;
}
