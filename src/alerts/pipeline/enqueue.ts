import type { AlertDraft } from '../../base/types.js';
import type { LoadedRule } from '../../config/load.js';
import type { ActiveAlert } from '../lifecycle.js';
import type { CommitPart, NewAlert, StateDiff, StateStore } from '../../store/index.js';
import type { Target } from '../route.js';

/** The rule-failing alertname: its rows are of that kind, not the rule's. */
export const FAILING_ALERTNAME = 'rule-failing';

/** One planned notification as the store keeps it: the alert row and its targets. */
export function newAlert(rule: Pick<LoadedRule, 'name' | 'kind' | 'severity'>, draft: AlertDraft, labels: Record<string, string>, targets: readonly Target[]): NewAlert {
  return {
    rule: rule.name,
    kind: labels['alertname'] === FAILING_ALERTNAME ? FAILING_ALERTNAME : rule.kind,
    status: draft.status,
    severity: draft.severity ?? rule.severity,
    subject: draft.subject,
    summary: draft.summary,
    labels,
    details: draft.details,
    ...(draft.conditionKey === undefined ? {} : { conditionKey: draft.conditionKey }),
    // A reminder, or the notification owed once a mute ends: the alert fired already, the history shows it once.
    ...(draft.reminder || draft.onlyReceivers ? { reminder: true } : {}),
    // Which transition it is: the store keeps one alert per transition of a condition.
    ...(draft.transition === undefined || draft.conditionKey === undefined || draft.reminder || draft.onlyReceivers ? {} : { transition: draft.transition }),
    targets,
  };
}

export interface Enqueue {
  /** The rule's name in the store: the rule's, or its rule-failing, cause or incident alerts'. */
  storeRule: string;
  states: StateDiff;
  alerts: readonly NewAlert[];
  /** The steady clock's time: rows are created and aged on it. */
  now: number;
  active?: readonly ActiveAlert[] | undefined;
  expectRevision?: number | undefined;
  startedAt?: number | undefined;
  /** A rule spread by entity: its parts' writes instead of `states` (committed together, each fenced), and the part each state alert is kept in. */
  parts?: EnqueueParts | undefined;
}

export interface EnqueueParts {
  writes: ReadonlyArray<{ storeRule: string; states: StateDiff; expectRevision?: number }>;
  partOf: (a: ActiveAlert) => string;
}

/** Each part's writes with its state alerts (for a kind with any): every part written gets its whole set, none emptying it. */
function partsOf(parts: EnqueueParts, active: readonly ActiveAlert[] | undefined): CommitPart[] {
  const by = new Map<string, ActiveAlert[]>(parts.writes.map((w) => [w.storeRule, []]));
  for (const a of active ?? []) by.get(parts.partOf(a))?.push(a);
  return parts.writes.map((w) => ({ rule: w.storeRule, states: w.states, ...(active ? { active: by.get(w.storeRule) ?? [] } : {}), ...(w.expectRevision === undefined ? {} : { expectRevision: w.expectRevision }) }));
}

/**
 * The `enqueue` stage, the one way an evaluation is committed: states, state alerts, alert
 * rows and one outbox row per target, in one transaction. Returns the alerts' ids.
 */
export async function enqueue(store: StateStore, e: Enqueue, onQueued?: () => void): Promise<number[]> {
  const ids = e.parts
    ? await store.commitParts(partsOf(e.parts, e.active), e.alerts, e.now, e.startedAt)
    : await store.commitEvaluation(e.storeRule, e.states, e.alerts, e.now, e.active, e.expectRevision, e.startedAt);
  if (onQueued && e.alerts.some((a) => a.targets.length > 0)) onQueued();
  return ids;
}
