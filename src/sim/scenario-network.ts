import { z } from 'zod';
import type { World } from './world.js';

// The scenario keys of a bulk network (issue 40): `bulkNetwork:` adds n active primary
// validators with made-up NodeIDs, so a world holds a network of 1,000+ beside the operator's
// own; `networkDip:` moves the figures of a share of them (70% lose uptime for 20 minutes:
// one change, then another that restores them). The network baseline sweeps them.

const percent = z.number().min(0).max(100);
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

const bulkNetwork = z.strictObject({
  network: z.enum(['mainnet', 'fuji']).default('mainnet'),
  validators: z.number().int().min(1).max(20_000),
  /** Each one's uptime (percent), reachability and version; stake in AVAX. */
  uptime: percent.default(99.5),
  reachability: percent.default(100),
  version: z.string().min(1).default('avalanchego/1.14.1'),
  stake: z.number().positive().default(2_000),
});

const networkDip = z.strictObject({
  network: z.enum(['mainnet', 'fuji']).default('mainnet'),
  /** The share (%) of the bulk validators it moves: the first ones, always the same. */
  share: percent,
  uptime: percent.optional(),
  reachability: percent.optional(),
  /** Benched requests on every chain (percent). */
  benched: percent.optional(),
});

export function networkKeys() {
  return { bulkNetwork: bulkNetwork.optional(), networkDip: networkDip.optional() };
}

/** The i-th bulk validator's NodeID: base58, the same in every world. */
export function bulkNodeId(network: string, i: number): string {
  let n = i;
  let digits = '';
  do {
    digits = BASE58[n % 58]! + digits;
    n = Math.floor(n / 58);
  } while (n > 0);
  return `NodeID-${network === 'fuji' ? 'Fuj' : 'Net'}${digits.padStart(6, '1')}`;
}

/** How many bulk validators each network has (a dip moves a share of them). */
const sizes = new WeakMap<World, Map<string, number>>();

export function applyNetworkChange(world: World, change: { bulkNetwork?: z.output<typeof bulkNetwork> | undefined; networkDip?: z.output<typeof networkDip> | undefined }): void {
  const b = change.bulkNetwork;
  if (b) {
    const known = sizes.get(world) ?? new Map<string, number>();
    sizes.set(world, known);
    const from = known.get(b.network) ?? 0;
    const now = world.clock.now();
    for (let i = from; i < from + b.validators; i++) {
      const period = {
        nodeId: bulkNodeId(b.network, i),
        txHash: `bulk-${b.network}-${i}`,
        startTimestamp: now - 30 * 86_400 - i,
        endTimestamp: now + 300 * 86_400,
        amountStaked: String(BigInt(Math.round(b.stake * 1e9))),
        uptimePerformance: b.uptime,
        avalancheGoVersion: b.version,
        validatorHealth: { reachabilityPercent: b.reachability },
      };
      world.addValidation(b.network, period, 'active');
    }
    known.set(b.network, from + b.validators);
  }
  const d = change.networkDip;
  if (d) {
    const n = sizes.get(world)?.get(d.network) ?? 0;
    if (n === 0) throw new Error(`networkDip: no bulkNetwork on ${d.network} to move`);
    const moved = Math.round((n * d.share) / 100);
    const health = {
      ...(d.reachability === undefined ? {} : { reachabilityPercent: d.reachability }),
      ...(d.benched === undefined ? {} : { benchedPChainRequestsPercent: d.benched, benchedXChainRequestsPercent: d.benched, benchedCChainRequestsPercent: d.benched }),
    };
    for (let i = 0; i < moved; i++) {
      world.updateValidation(bulkNodeId(d.network, i), { ...(d.uptime === undefined ? {} : { uptimePerformance: d.uptime }), ...(Object.keys(health).length > 0 ? { validatorHealth: health } : {}) }, `bulk-${d.network}-${i}`);
    }
  }
}
