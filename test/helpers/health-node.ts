import { advance, type ActiveAlert } from '../../src/alerts/lifecycle.js';
import type { HealthReport } from '../../src/api/node-api.js';
import { validator } from '../../src/api/schemas.js';
import { activeValidator } from '../../src/sim/samples.js';
import type { Condition } from '../../src/rules/types.js';
import { isFailed, type Failed } from '../../src/rules/lookup.js';
import type { Seen } from '../../src/rules/validators.js';
import { nodeHealth } from '../../src/rules/node-health/index.js';
import type { NodeReading, Observation } from '../../src/rules/node-health/observe.js';
import { spec as specSchema, type State } from '../../src/rules/node-health/schema.js';

// node-health's specs' node (src/rules/node-health/*.spec.ts): its readings and the service's
// lists, evaluated one minute apart through the lifecycle, and a step's conditions of one check.

export const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
export const OTHER = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
export const URL_A = 'http://10.0.0.5:9650';
export const URL_B = 'http://10.0.0.6:9650';
export const START = 1_750_000_000;
export const at = (minutes: number) => new Date((START + 86_400 + minutes * 60) * 1000);
export const BLS = '0x8f95423f7142d00a48e1014a3de8d28907d420dc33b3052a6dee03a3f2941a393c2351e354704ca66a3fc29870282e15';
export const listed = (over: Record<string, unknown> = {}) =>
  validator.parse({ ...activeValidator({ nodeId: NODE, txHash: 'tx1', startTimestamp: START, endTimestamp: START + 180 * 86_400 }), ...over });

export const healthy: HealthReport = { healthy: true, checks: [{ name: 'C', contiguousFailures: 0 }, { name: 'diskspace', contiguousFailures: 0 }] };
export function reading(over: Partial<NodeReading> = {}): NodeReading {
  return {
    health: healthy,
    identity: { ok: { nodeId: NODE, blsPublicKey: BLS } },
    version: { ok: 'avalanchego/1.14.2' },
    bootstrapped: { P: { ok: true }, X: { ok: true }, C: { ok: true } },
    uptime: { ok: { rewardingStakePercentage: 100, weightedAveragePercentage: 99.5 } },
    peers: { ok: 60 },
    upgrades: { ok: { durango: 1_709_740_800, etna: 1_734_368_400, fortuna: 1_744_124_400, granite: 1_763_568_000, helicon: 1_790_089_200 } },
    ...over,
  };
}
export const down = { unreachable: 'ECONNREFUSED' };

/** Evaluates one observation a minute, through the lifecycle as the engine does; returns what each step sent. */
export function run(s: ReturnType<typeof specSchema.parse>, observations: Observation[]) {
  let states: ReadonlyMap<string, State> = new Map();
  let active: ActiveAlert[] = [];
  return observations.map((o, i) => {
    const r = nodeHealth.evaluate(states, o, at(i), s);
    states = r.states;
    const next = advance(active, r.conditions ?? [], at(i).getTime(), undefined, (key) => r.resolvedAs?.(key));
    active = next.active;
    return { ...r, sent: next.notifications.map((n) => `${n.status} ${n.severity ?? '-'}: ${n.summary}`) };
  });
}

/** One node's reading, and the service's lists (by node) or why they could not be read. */
export const one = (node: Observation['nodes'][string], service?: Record<string, Seen> | Failed): Observation => ({
  nodes: { [NODE]: node },
  ...(service === undefined ? {} : { service: isFailed(service) ? service : new Map(Object.entries(service)) }),
});
export const spec = (over: Record<string, unknown> = {}) => specSchema.parse({ urls: { [NODE]: URL_A }, ...over });
/** What each step holds for one check: severity, labels, summary and details as an operator reads them. */
export const of = (step: { conditions?: Condition[] } | undefined, check: string) => step?.conditions?.filter((c) => c.labels['check'] === check) ?? [];
