import { validator } from '../../src/api/schemas.js';
import { activeValidator } from '../../src/sim/samples.js';
import type { Seen } from '../../src/rules/validators.js';
import { validatorHealth } from '../../src/rules/validator-health/index.js';
import type { spec as specSchema, State } from '../../src/rules/validator-health/schema.js';

// validator-health's specs' reads (src/rules/validator-health/index.spec.ts, reads.spec.ts): one
// validation as the service lists it, its health figures, evaluated one minute apart.

export const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
export const START = 1_750_000_000;
export const at = (minutes: number) => new Date((START + 86_400 + minutes * 60) * 1000);
export const isoAt = (minutes: number) => at(minutes).toISOString().replace('.000Z', 'Z');
export const period = { nodeId: NODE, txHash: 'tx1', startTimestamp: START, endTimestamp: START + 180 * 86_400 };
export const active = (over: Record<string, unknown> = {}) => validator.parse({ ...activeValidator(period), ...over });
export const active0 = (uptime: number) => active({ uptimePerformance: uptime });
export const health = (benched: number, reachability = 100) => ({
  validatorHealth: { reachabilityPercent: reachability, benchedPChainRequestsPercent: benched, benchedXChainRequestsPercent: 0, benchedCChainRequestsPercent: benched },
});

/** Evaluates the observations one minute apart, returning what held at each. */
export function run(s: ReturnType<typeof specSchema.parse>, reads: Seen[]) {
  let states: ReadonlyMap<string, State> = new Map();
  return reads.map((read, i) => {
    const r = validatorHealth.evaluate(states, { service: [read] }, at(i), s);
    states = r.states;
    return r;
  });
}
