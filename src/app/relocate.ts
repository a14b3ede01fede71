import { readActive, type ActiveAlert } from '../alerts/lifecycle.js';
import { relocate, watches } from '../alerts/relocate.js';
import type { LoadedConfig, LoadedRule } from '../config/load.js';
import type { Pipeline } from '../alerts/pipeline/index.js';
import { newAlert } from '../alerts/pipeline/enqueue.js';
import { FAILING_PREFIX } from '../engine/failing.js';
import { entityShards, partName } from '../engine/parts.js';
import { ruleKind } from '../rules/registry.js';
import type { Logger } from '../base/log.js';
import { pruneOtherLayout } from './layout.js';
import { type NewAlert, StateDiff, type StateStore } from '../store/index.js';

export interface RelocateOnReload {
  store: StateStore;
  prev: LoadedConfig;
  next: LoadedConfig;
  /** The running config's rules to look at: removed, changed, or all when the route changed. */
  rules: readonly string[];
  /** The pipelines before and after the reload: each routes as its config says. */
  before: Pipeline;
  after: Pipeline;
  /** Receivers the new config delivers to. */
  enabled: ReadonlySet<string>;
  /** The steady clock's time, which stored alerts keep; `wall` routes (mute windows are a person's times). */
  now: number;
  wall: number;
  /** Shared state: the shards held here (a rule spread by entity relocates the parts of those); default all. */
  holdsShard?: (shard: number) => boolean;
  log: Logger;
}

/**
 * At a reload, before the rules start again: the stored alerts of each rule looked at are
 * ended, moved or kept (alerts/relocate.ts), and what their receivers must hear is queued,
 * each rule's in one transaction. Returns the notifications queued.
 */
export async function relocateOnReload(o: RelocateOnReload): Promise<number> {
  let queued = 0;
  const at = new Date(o.wall);
  const [before, after] = [await o.before.targetsAt(at), await o.after.targetsAt(at)];
  for (const name of o.rules) {
    const rule = o.prev.rules.find((r) => r.name === name);
    if (!rule) continue;
    const next = o.next.rules.find((r) => r.name === name);
    for (const [prefix, part] of ['', FAILING_PREFIX].flatMap((p) => partsHere(o, rule).map((x) => [p, x] as const))) {
      const active = await parsed(o.store, prefix + rule.name + part);
      if (active === undefined || active.length === 0) continue;
      // An alert about a validator another network's part of the same rule now watches goes on there (a rule split or joined at this reload).
      const groups = new Map<LoadedRule | undefined, ActiveAlert[]>();
      for (const a of active) {
        const to = heir(o.next.rules, rule, next, a) ?? next;
        groups.set(to, [...(groups.get(to) ?? []), a]);
      }
      // The rule's own alerts are written again even when all of them moved.
      if (!groups.has(next)) groups.set(next, []);
      for (const [to, alerts] of groups) {
        const moved = to !== undefined && to !== next;
        const result = relocate({
          before: { rule, inventory: o.prev.inventory, targets: (labels) => before(rule, labels) },
          after: to && { rule: to, inventory: o.next.inventory, targets: (labels) => after(to, labels) },
          active: alerts,
          kindLabels: ruleKind(rule.kind).labelNames,
          enabled: o.enabled,
          now: o.now,
          inventoryAfter: o.next.inventory,
        });
        const planned = notifications(rule, result);
        queued += planned.reduce((n, a) => n + a.targets.length, 0);
        if (moved) {
          // The heir's part of the same shard when it is spread too (the same entity, the same shard).
          const heirRule = prefix + to.name + (entityShards(o.store, to) ? part : '');
          const kept = ((await parsed(o.store, heirRule)) ?? []).filter((a) => !alerts.some((m) => m.key === a.key));
          await o.after.enqueue({ storeRule: heirRule, states: new StateDiff([], []), alerts: planned, now: o.now, active: [...kept, ...(result.active ?? alerts)] });
          continue;
        }
        if (result.active === undefined && planned.length === 0 && groups.size === 1) continue;
        await o.after.enqueue({ storeRule: prefix + rule.name + part, states: new StateDiff([], []), alerts: planned, now: o.now, active: result.active ?? alerts });
      }
    }
  }
  // A rule laid out anew at this reload (spread by entity, or whole again), its alerts told above, starts afresh.
  await pruneOtherLayout(o.store, o.next.rules.filter((r) => o.rules.includes(r.name)), o.log);
  return queued;
}

/** The store rule suffixes of a rule here: '' for a rule kept whole, each held part's `#SSS` for one spread by entity. */
function partsHere(o: RelocateOnReload, rule: LoadedRule): string[] {
  const shards = entityShards(o.store, rule);
  if (!shards) return [''];
  return [...shards].filter((s) => o.holdsShard?.(s) ?? true).map((s) => partName('', s));
}

/**
 * The rule of the new config that takes a stored alert over: another network's part of the
 * rule as written (inventory/select.ts splitByNetwork), of the same kind, that watches what
 * the alert is about when the rule of its own name no longer does.
 */
function heir(rules: readonly LoadedRule[], rule: LoadedRule, next: LoadedRule | undefined, a: ActiveAlert): LoadedRule | undefined {
  if (next && watches(next, a.condition)) return undefined;
  const origin = rule.split?.of ?? rule.name;
  return rules.find((r) => r !== next && r.kind === rule.kind && (r.split?.of ?? r.name) === origin && watches(r, a.condition));
}

/** What relocate planned, as the store's alerts (each with the rule it belongs to). */
function notifications(rule: LoadedRule, result: ReturnType<typeof relocate>): NewAlert[] {
  return result.planned.map(({ draft, labels, targets }, i) => newAlert(result.rules[i] ?? rule, draft, labels, targets));
}

/** The stored alerts, or undefined when one does not parse (left as they are: the rule's evaluation says why). */
async function parsed(store: StateStore, storeRule: string): Promise<ActiveAlert[] | undefined> {
  const out: ActiveAlert[] = [];
  for (const row of await store.loadActive(storeRule)) {
    const active = readActive(row);
    if ('invalid' in active) return undefined;
    out.push(active);
  }
  return out;
}
