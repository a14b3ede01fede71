import type { InventoryValidator } from '../../src/inventory/schema.js';
import type { Baseline, BaselineMetric, ChildRef, NodeFigures, Quantiles } from '../../src/incidents/types.js';

// A network and an operator's fleet for the incident specs and benchmark: network validator i
// is `node-i`; the fleet is the first `fleet` of them, five to a host.

export const THRESHOLDS: Readonly<Record<BaselineMetric, number>> = { uptime: 80, reachability: 80, benched: 20 };

export const HEALTHY: NodeFigures = { uptime: 99.5, reach: 100, benched: 0, stakePct: 0 };

export const nodeOf = (i: number) => `node-${i}`;

/** The fleet's inventory: host h<i/5>, region r<i%5>, provider p<i%3>. */
export function fleetInventory(fleet: number, network: 'mainnet' | 'fuji' | 'testnet' = 'mainnet'): InventoryValidator[] {
  return Array.from({ length: fleet }, (_, i) => ({
    nodeId: nodeOf(i),
    name: `v${i}`,
    network,
    labels: { host: `h${Math.floor(i / 5)}`, region: `r${i % 5}`, provider: `p${i % 3}` },
  }));
}

function quantiles(values: number[]): Quantiles {
  const s = [...values].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] as number;
  return { p10: at(0.1), p50: at(0.5), p90: at(0.9) };
}

/** A baseline over `size` validators of equal stake, validator i's figures from `figures(i)`. */
export function baselineOf(size: number, figures: (i: number) => Partial<NodeFigures>, opts: { at?: number; complete?: boolean; network?: string } = {}): Baseline {
  const stakePct = 100 / size;
  const all = new Map<string, NodeFigures>();
  for (let i = 0; i < size; i++) all.set(nodeOf(i), { ...HEALTHY, stakePct, ...figures(i) });
  const list = [...all.values()];
  const below = (m: BaselineMetric, f: NodeFigures) => (m === 'uptime' ? f.uptime < THRESHOLDS.uptime : m === 'reachability' ? f.reach < THRESHOLDS.reachability : f.benched > THRESHOLDS.benched);
  return {
    network: opts.network ?? 'mainnet',
    at: opts.at ?? 0,
    complete: opts.complete ?? true,
    count: size,
    quantiles: { uptime: quantiles(list.map((f) => f.uptime)), reachability: quantiles(list.map((f) => f.reach)), benched: quantiles(list.map((f) => f.benched)) },
    versions: { '1.14.1': size },
    figureOf: (id) => all.get(id),
    belowShare: (m) => list.reduce((sum, f) => sum + (below(m, f) ? f.stakePct : 0), 0) / 100,
  };
}

/** A child alert of validator i. */
export function child(i: number, family: string, since: number, over: Partial<ChildRef> = {}): ChildRef {
  const [kind, check] = family.split('/') as [string, string];
  return { rule: kind, key: `${nodeOf(i)}:${check}`, family, network: 'mainnet', validator: `v${i}`, nodeId: nodeOf(i), state: 'firing', since, severity: 'warning', ...over };
}
