import { testNodeId } from './node-ids.js';
import type { Condition, Severity } from '../../src/base/types.js';
import type { LoadedRule } from '../../src/config/load.js';
import { incidentsSchema } from '../../src/config/schema.js';
import { incidentCondition } from '../../src/incidents/condition.js';
import type { InventoryValidator } from '../../src/inventory/schema.js';
import type { BaselineView, Figure, NodeFigures, Quantiles } from '../../src/rules/baseline.js';
import type { IncidentTracker } from '../../src/engine/incidents.js';

// The incident tracker's specs' world (src/engine/incidents*.spec.ts): a fleet of ten, two
// rules, conditions and alerts about them, and a network baseline. Steady clock in ms.

export const MIN = 60_000;
export const T = 50 * MIN;
export const STAMP = Date.parse('2026-11-29T10:00:00Z');
/** The defaults: k 3, window 10 min, wait 1 min, network share 0.33, tolerance 5, maxAge 20 min. */
export const CONFIG = incidentsSchema.parse({});

/** v1..v5 on host h1, v6..v8 alone on mainnet; f1, f2 on host lab on testnet (fuji). */
export const FLEET: InventoryValidator[] = [
  ...[1, 2, 3, 4, 5].map((i) => ({ name: `v${i}`, nodeId: testNodeId(`tracker-${i}`), network: 'mainnet' as const, labels: { host: 'h1' } })),
  ...[6, 7, 8].map((i) => ({ name: `v${i}`, nodeId: testNodeId(`tracker-${i}`), network: 'mainnet' as const, labels: { host: `h${i}` } })),
  ...[1, 2].map((i) => ({ name: `f${i}`, nodeId: testNodeId(`tracker-f${i}`), network: 'testnet' as const, labels: { host: 'lab' } })),
];
export const id = (name: string) => (FLEET.find((v) => v.name === name) as InventoryValidator).nodeId;
export const byNodeId = Object.fromEntries(FLEET.map((v) => [v.nodeId, v]));

export const ruleOf = (name: string, kind: string, severity: Severity): LoadedRule => ({ name, kind, severity, labels: {}, validators: byNodeId }) as unknown as LoadedRule;
export const HEALTH = ruleOf('health', 'validator-health', 'warning');
export const NODES = ruleOf('nodes', 'node-health', 'critical');

/** One condition about validator `v` (its `node` label, as a kind sets it), `check` its label (none when undefined). */
export function cond(v: string, check: string | undefined, over: Partial<Condition> = {}): Condition {
  return { key: `${id(v)}:${check ?? 'x'}`, subject: id(v), summary: `${check} of ${id(v)}`, labels: { node: id(v), ...(check === undefined ? {} : { check }) }, details: {}, ...over };
}

export const alert = (c: Condition, state: 'pending' | 'firing' = 'firing', startedAt = T) => ({ key: c.key, state, startedAt, condition: c });

/** A rule's evaluation committed: its active alerts become its children. */
export function commit(t: IncidentTracker, rule: LoadedRule, alerts: ReturnType<typeof alert>[]): void {
  t.update(rule.name, t.childrenOf(rule, alerts));
}

export const down = (...names: string[]) => names.map((v) => alert(cond(v, 'down')));
export const uptime = (...names: string[]) => names.map((v) => alert(cond(v, 'uptime')));

/** What an operator reads of each incident that holds. */
export function told(t: IncidentTracker, steady = T) {
  return t.incidents(steady).map((i) => ({ key: i.key, severity: i.severity, validators: i.validators.join(' '), summary: incidentCondition(i).summary }));
}

export const Q = (p10: number, p90: number): Quantiles => ({ p10, p50: (p10 + p90) / 2, p90 });

/** A network baseline: every fleet validator known with 1 % of the stake and healthy figures, unless `figures` says otherwise (by name). */
export function viewOf(o: { network?: string; at?: number | undefined; usable?: boolean; why?: string; below?: Partial<Record<Figure, number>>; quantiles?: Partial<Record<Figure, Quantiles>>; figures?: Record<string, Partial<NodeFigures>> } = {}): BaselineView {
  const figures = new Map(FLEET.map((v) => [v.nodeId, { uptime: 99.5, reachability: 100, benched: 0, stakePct: 1, ...o.figures?.[v.name] } as NodeFigures]));
  return {
    network: o.network ?? 'mainnet',
    at: 'at' in o ? o.at : STAMP,
    usable: o.usable ?? true,
    why: o.why,
    count: 100,
    quantiles: o.quantiles ?? { uptime: Q(60, 99.9), reachability: Q(60, 100), benched: Q(0, 40) },
    versions: { '1.14.1': 100 },
    belowShare: (f) => o.below?.[f] ?? 0,
    figureOf: (nodeId) => figures.get(nodeId),
  };
}

/** 70 % of the network's stake under the uptime threshold; v6 and v7 within its dip, v8 far under it. */
export const DIP = { below: { uptime: 70 }, figures: { v6: { uptime: 60 }, v7: { uptime: 57 }, v8: { uptime: 20 } } };
