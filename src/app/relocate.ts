import { readActive, type ActiveAlert } from '../alerts/lifecycle.js';
import { relocate } from '../alerts/relocate.js';
import type { LoadedConfig } from '../config/load.js';
import type { Engine } from '../engine/engine.js';
import { FAILING_ALERTNAME, FAILING_PREFIX } from '../engine/failing.js';
import { ruleKind } from '../rules/registry.js';
import { StateDiff, type NewAlert, type Store } from '../store/index.js';

export interface RelocateOnReload {
  store: Store;
  prev: LoadedConfig;
  next: LoadedConfig;
  /** The running config's rules to look at: removed, changed, or all when the route changed. */
  rules: readonly string[];
  /** The engines before and after the reload: each routes as its config says. */
  before: Engine;
  after: Engine;
  /** Receivers the new config delivers to. */
  enabled: ReadonlySet<string>;
  /** The steady clock's time, which stored alerts keep; `wall` routes (mute windows are a person's times). */
  now: number;
  wall: number;
}

/**
 * At a reload, before the rules start again: the stored alerts of each rule looked at are
 * ended, moved or kept (alerts/relocate.ts), and what their receivers must hear is queued,
 * each rule's in one transaction. Returns the notifications queued.
 */
export function relocateOnReload(o: RelocateOnReload): number {
  let queued = 0;
  const at = new Date(o.wall);
  for (const name of o.rules) {
    const rule = o.prev.rules.find((r) => r.name === name);
    if (!rule) continue;
    const next = o.next.rules.find((r) => r.name === name);
    for (const storeRule of [rule.name, FAILING_PREFIX + rule.name]) {
      const active = parsed(o.store, storeRule);
      if (active === undefined || active.length === 0) continue;
      const result = relocate({
        before: { rule, inventory: o.prev.inventory, targets: (labels) => o.before.targets(rule, labels, at) },
        after: next && { rule: next, inventory: o.next.inventory, targets: (labels) => o.after.targets(next, labels, at) },
        active,
        kindLabels: ruleKind(rule.kind).labelNames,
        enabled: o.enabled,
        now: o.now,
      });
      if (result.active === undefined && result.planned.length === 0) continue;
      const alerts: NewAlert[] = result.planned.map(({ draft, labels, targets }, i) => {
        const owner = result.rules[i] ?? rule;
        return {
          rule: owner.name,
          kind: labels['alertname'] === FAILING_ALERTNAME ? FAILING_ALERTNAME : owner.kind,
          status: draft.status,
          severity: draft.severity ?? owner.severity,
          subject: draft.subject,
          summary: draft.summary,
          labels,
          details: draft.details,
          ...(draft.conditionKey === undefined ? {} : { conditionKey: draft.conditionKey }),
          targets,
        };
      });
      o.store.commitEvaluation(storeRule, new StateDiff([], []), alerts, o.now, result.active ?? active);
      queued += alerts.reduce((n, a) => n + a.targets.length, 0);
    }
  }
  return queued;
}

/** The stored alerts, or undefined when one does not parse (left as they are: the rule's evaluation says why). */
function parsed(store: Store, storeRule: string): ActiveAlert[] | undefined {
  const out: ActiveAlert[] = [];
  for (const row of store.loadActive(storeRule)) {
    const active = readActive(row);
    if ('invalid' in active) return undefined;
    out.push(active);
  }
  return out;
}
