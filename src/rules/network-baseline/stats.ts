import type { ActiveValidator } from '../../api/schemas.js';
import { navax, navaxToAvax } from '../../base/amount.js';
import type { Quantiles, Spec, Whole } from './schema.js';

// The distribution of one whole sweep: pure, O(n log n) over the set (2,000 values).

/**
 * The p-th quantile of sorted values by count (nearest rank): "p10 of validators", each
 * validator one value, whatever its stake. Undefined for none.
 */
export function quantile(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

function quantilesOf(values: number[]): Quantiles | undefined {
  if (values.length === 0) return undefined;
  const sorted = values.sort((a, b) => a - b);
  return { p10: quantile(sorted, 0.1)!, p50: quantile(sorted, 0.5)!, p90: quantile(sorted, 0.9)! };
}

/** A validator's weight: its stake and its delegators' (AVAX); none given, none. */
function weightOf(v: ActiveValidator): number {
  const staked = v.amountStaked === undefined ? undefined : navax(v.amountStaked);
  const delegated = v.amountDelegated === undefined ? undefined : navax(v.amountDelegated);
  return navaxToAvax((staked ?? 0n) + (delegated ?? 0n));
}

/** A figure no percent can be (−1, 1e308) is none: never a validator, or the network, dipping. */
function percentOf(x: number | undefined): number | undefined {
  return x !== undefined && x >= 0 && x <= 100 ? x : undefined;
}

/** The worst of a validator's benched chains (P, X, C), or undefined when it gives none. */
function benchedOf(v: ActiveValidator): number | undefined {
  const h = v.validatorHealth;
  const chains = [h?.benchedPChainRequestsPercent, h?.benchedXChainRequestsPercent, h?.benchedCChainRequestsPercent].map(percentOf).filter((x): x is number => x !== undefined);
  return chains.length === 0 ? undefined : Math.max(...chains);
}

/** "avalanchego/1.14.1" → "1.14.1"; none: "unknown". */
export function versionOf(text: string | undefined): string {
  if (text === undefined || text.trim() === '') return 'unknown';
  const m = /(\d+\.\d+\.\d+)/.exec(text);
  return m?.[1] ?? 'unknown';
}

/** The distribution of a whole sweep read at `atMs`. */
export function distribution(validators: readonly ActiveValidator[], atMs: number, below: Spec['below']): Whole {
  const uptime: number[] = [];
  const reach: number[] = [];
  const benched: number[] = [];
  const versions: Record<string, number> = {};
  const nodes: Whole['nodes'] = {};
  const weights = validators.map(weightOf);
  const total = weights.reduce((a, b) => a + b, 0);
  const under = { uptime: 0, reachability: 0, benched: 0 };
  for (const [i, v] of validators.entries()) {
    const w = weights[i] ?? 0;
    const u = percentOf(v.uptimePerformance);
    const r = percentOf(v.validatorHealth?.reachabilityPercent);
    const b = benchedOf(v);
    if (u !== undefined) uptime.push(u);
    if (r !== undefined) reach.push(r);
    if (b !== undefined) benched.push(b);
    if (u !== undefined && u < below.uptime) under.uptime += w;
    if (r !== undefined && r < below.reachability) under.reachability += w;
    if (b !== undefined && b > below.benched) under.benched += w;
    const version = versionOf(v.avalancheGoVersion);
    versions[version] = (versions[version] ?? 0) + 1;
    nodes[v.nodeId] = [u ?? -1, r ?? -1, b ?? -1, total > 0 ? round((w / total) * 100) : 0];
  }
  const share = (x: number): number => (total > 0 ? round((x / total) * 100) : 0);
  const out: Whole = { at: atMs, count: validators.length, versions, below: { uptime: share(under.uptime), reachability: share(under.reachability), benched: share(under.benched) }, nodes };
  const q = { uptime: quantilesOf(uptime), reachability: quantilesOf(reach), benched: quantilesOf(benched) };
  for (const [k, v] of Object.entries(q)) if (v) out[k as 'uptime'] = v;
  return out;
}

/** Six significant digits: a share kept in state need not carry float noise. */
function round(x: number): number {
  return Number(x.toPrecision(6));
}
