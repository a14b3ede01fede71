import type { ActiveAlert } from '../alerts/lifecycle.js';
import type { Target } from '../alerts/route.js';
import type { AlertDraft, Condition } from '../base/types.js';
import type { LoadedRule } from '../config/load.js';
import type { IncidentTracker } from './incidents.js';

// What incidents change in one rule's evaluation (issue 40, docs/incidents.md): the `scope` of
// its alerts, how long a firing one waits for its incident, and whether the network is asked
// first. Pure over the tracker; the engine calls each at its place in the pipeline.

type Advanced = { active: ActiveAlert[]; notifications: AlertDraft[] };

/** The networks to sweep before judging: a new alert the network may share, on an old baseline. */
export function networksToAsk(incidents: IncidentTracker, rule: LoadedRule, conditions: readonly Condition[], before: readonly ActiveAlert[], steady: number): string[] {
  if (!incidents.config.enabled) return [];
  const was = new Map(before.map((a) => [a.key, a]));
  const refs = conditions.flatMap((c) => incidents.childOf(rule, c, was.get(c.key)?.state ?? 'pending', was.get(c.key)?.startedAt ?? steady) ?? []);
  return incidents.wantsSweep(rule.name, refs, steady);
}

/**
 * Each alert about a validator carries `scope`: the incident it is part of (network, group)
 * or `validator`. Judged after the lifecycle, with this evaluation's alerts in (a host's five
 * alerts of one poll are one incident from their first notification), and kept while the
 * alert fires: Alertmanager knows an alert by its labels, so one that changed would never resolve.
 */
export function withScopes(incidents: IncidentTracker, rule: LoadedRule, result: Advanced, before: readonly ActiveAlert[], steady: number): Advanced {
  if (!incidents.config.enabled) return result;
  const refs = incidents.childrenOf(rule, result.active);
  if (refs.length === 0) return result;
  const detection = incidents.trial(rule.name, refs, steady);
  const about = new Set(refs.map((r) => r.key));
  const firedAs = new Map(before.filter((a) => a.state === 'firing').map((a) => [a.key, a.condition.labels['scope']]));
  const scopes = new Map<string, string | undefined>();
  const active = result.active.map((a) => {
    if (!about.has(a.key)) return a;
    // Fired already: its scope as it fired (one from before incidents has none, and keeps none).
    const scope = firedAs.has(a.key) ? firedAs.get(a.key) : detection.scopeOf({ rule: rule.name, key: a.key });
    scopes.set(a.key, scope);
    return { ...a, condition: { ...a.condition, labels: labelled(a.condition.labels, scope) } };
  });
  const notifications = result.notifications.map((d) => (d.status === 'firing' && d.conditionKey !== undefined && scopes.has(d.conditionKey) ? { ...d, labels: labelled(d.labels, scopes.get(d.conditionKey)) } : d));
  return { active, notifications };
}

function labelled(labels: Record<string, string>, scope: string | undefined): Record<string, string> {
  const { scope: _s, ...rest } = labels;
  return scope === undefined ? rest : { ...rest, scope };
}

/** An event about a validator is that validator's alone: never part of an incident. */
export function eventScope(incidents: IncidentTracker | undefined, a: AlertDraft, labels: Record<string, string>): Record<string, string> {
  if (a.status !== 'event' || !incidents?.config.enabled || labels['validator'] === undefined || labels['scope'] !== undefined) return labels;
  return { ...labels, scope: 'validator' };
}

/**
 * A firing alert that could still join an incident (its validator is in a group, or its
 * family is judged against a network baseline) waits `incidents.wait` before it is sent,
 * however urgent: the incident's one notification can then replace it (delivery checks the
 * hold when it claims the row). The one exception to "a critical leaves within the poll + 1 s".
 */
export function patient(incidents: IncidentTracker, rule: LoadedRule, a: AlertDraft, targets: Target[]): Target[] {
  if (a.status !== 'firing' || a.reminder || a.onlyReceivers || a.severity === 'info' || !incidents.mayJoin(rule, a)) return targets;
  const wait = incidents.config.wait;
  return wait > 0 ? targets.map((t) => (t.mutedBy || t.digestAt !== undefined ? t : { ...t, minWaitMs: wait })) : targets;
}
