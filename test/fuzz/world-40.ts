import { applyNetworkChange, bulkNodeId } from '../../src/sim/scenario-network.js';
import type { World } from '../../src/sim/world.js';

// Issue 40's part of the fuzz world: a small bulk network beside the four validators (the
// network baseline sweeps all of them) and three L1 validators of the fuzz L1, each with
// years of balance (l1-liveness weighs them; nothing of theirs fires). The rules that read
// them, as rules.yaml gets them, and what steps-baseline-l1.ts changes. No import of
// daemon.ts or commands.ts: daemon.ts imports this file.

/** Bulk validators: enough for a distribution, few enough to cost little per poll (one page). */
export const BULK = 40;
export const BULK_UPTIME = 99.5;
export const BULK_REACHABILITY = 100;
/** The baseline rule's name, its `for` and its share under which a sweep is short (the shipped ones). */
export const BASELINE_RULE = 'network-baseline';
export const BASELINE_FOR_MS = 10 * 60_000;
export const L1_RULE = 'l1-liveness';
/** l1-liveness's frozenAfter (its default, as shipped). */
export const FROZEN_AFTER_MS = 15 * 60_000;
/** The simulated tip's period (src/sim/proposervm.ts): a frozen tip is the last 2 s tick. */
export const TIP_MS = 2_000;

export function bulkIds(): string[] {
  return Array.from({ length: BULK }, (_, i) => bulkNodeId('mainnet', i));
}

/** The bulk network and the L1's validators, added to a fresh world. */
export function seedWorld40(world: World, l1Subnet: string): void {
  applyNetworkChange(world, {
    bulkNetwork: { network: 'mainnet', validators: BULK, uptime: BULK_UPTIME, reachability: BULK_REACHABILITY, version: 'avalanchego/1.14.1', stake: 2_000 },
  });
  const created = Math.floor(world.clock.now()) - 86_400;
  for (let i = 0; i < 3; i++) {
    // 1,000,000 AVAX at ACP-77's 512 nAVAX/s: decades of runway.
    world.addL1Validator('mainnet', { validationId: `fuzz-l1-validation-${i}`, nodeId: bulkNodeId('mainnet', BULK + 100 + i), subnetId: l1Subnet, weight: 100, creationTimestamp: created }, 1e15, 512);
  }
}

/** The dip: the first `share` % of the bulk validators at these figures (restore: share 100 at the bulk's own). */
export function dip(world: World, share: number, uptime: number, reachability: number): void {
  applyNetworkChange(world, { networkDip: { network: 'mainnet', share, uptime, reachability } });
}

/** rules.yaml's issue-40 rules: the baseline as shipped (`validators: all`), l1-liveness on the L1 node. */
export function rules40(schedule: string, urls: string, l1Node: string, l1Subnet: string): string {
  return `
  - {name: ${BASELINE_RULE}, kind: network-baseline, schedule: "${schedule}", severity: info, for: ${BASELINE_FOR_MS / 60_000}m, validators: all}
  - {name: ${L1_RULE}, kind: l1-liveness, schedule: "${schedule}", severity: critical, network: mainnet, frozenAfter: ${FROZEN_AFTER_MS / 60_000}m, urls: {${urls}}, subnets: {${l1Node}: [${l1Subnet}]}}`;
}
