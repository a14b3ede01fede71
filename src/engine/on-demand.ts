import type { LoadedRule } from '../config/load.js';
import { ruleKind } from '../rules/registry.js';

// The on-demand sweep's cap: "is it me or the network?" is asked when children go pending, and a
// flapping fleet must not turn it into a sweep a poll. On the steady clock: a step of the wall
// clock neither frees nor blocks a sweep.

export interface OnDemandLimits {
  /** The least time between two on-demand sweeps (default 2 m). */
  minGapMs: number;
  /** At most this many in any 24 h (default 30: about 12,000 CU a day at 2,000 validators). */
  perDay: number;
}

export const ON_DEMAND_DEFAULTS: OnDemandLimits = { minGapMs: 120_000, perDay: 30 };
const DAY_MS = 86_400_000;

export class OnDemandSweeps {
  /** Steady-clock times of the sweeps allowed in the last 24 h, oldest first. */
  readonly #allowed: number[] = [];

  constructor(readonly limits: OnDemandLimits = ON_DEMAND_DEFAULTS) {}

  /** Whether a sweep may run now (steady ms); when it may, it is counted. */
  take(monoMs: number): boolean {
    while (this.#allowed.length > 0 && monoMs - this.#allowed[0]! >= DAY_MS) this.#allowed.shift();
    const last = this.#allowed.at(-1);
    if (last !== undefined && monoMs - last < this.limits.minGapMs) return false;
    if (this.#allowed.length >= this.limits.perDay) return false;
    this.#allowed.push(monoMs);
    return true;
  }
}

/**
 * "Is it me or the network?": a network's baseline swept between its polls, before the
 * alerts that ask it are committed, at most as often as `sweeps` allows. A sweep that fails
 * leaves the baseline stale: each validator is judged alone.
 */
export async function sweepNetworks(o: { rules: readonly LoadedRule[]; networks: readonly string[]; sweeps: OnDemandSweeps; monoMs: number; evaluate: (rule: LoadedRule) => Promise<unknown> }): Promise<void> {
  const rules = o.rules.filter((r) => ruleKind(r.kind).baselines !== undefined && o.networks.some((n) => r.spec['network'] === n || (n === 'fuji' && r.spec['network'] === 'testnet')));
  if (rules.length === 0 || !o.sweeps.take(o.monoMs)) return;
  for (const r of rules) {
    try {
      await o.evaluate(r);
    } catch {
      // Counted and logged by the engine as the rule's failure.
    }
  }
}
