import { toDraft, type ActiveAlert } from './lifecycle.js';
import type { Target } from './route.js';
import type { AlertDraft } from '../base/types.js';

/** One notification with where it goes: its final labels and its targets (muted ones say why). */
export interface Planned {
  draft: AlertDraft;
  labels: Record<string, string>;
  targets: Target[];
}

export interface PlanInput {
  /** What the evaluation produced: events, and the lifecycle's notifications. */
  drafts: readonly AlertDraft[];
  /** The rule's state alerts after the lifecycle (undefined for kinds with none). */
  active: readonly ActiveAlert[] | undefined;
  now: number;
  /** A draft's labels as delivered (the rule's, the kind's, rule and severity). */
  labelsOf: (draft: AlertDraft) => Record<string, string>;
  /** Where an alert with these labels goes now, each target muted or not. */
  targetsFor: (labels: Record<string, string>) => readonly Target[];
  /** A receiver's reminder interval for this rule (the rule's repeatInterval, else the route's). */
  repeatMs: (target: Target) => number;
  /** Why a firing notification of this condition is held back from this receiver (its incident fires there), if it is. */
  held?: (conditionKey: string, receiver: string) => string | undefined;
}

/**
 * Per receiver, who gets what: a reminder only reaches a receiver whose own interval has
 * passed; a firing alert remembers the receivers it was muted for, and a still-firing one
 * is notified to each of them when its mute ends. Pure: returns the plan and the active
 * alerts with their receivers' times updated (the input is not changed).
 */
export function planNotifications(o: PlanInput): { planned: Planned[]; active: ActiveAlert[] | undefined } {
  const active = o.active?.map((a) => ({ ...a }));
  const byKey = new Map(active?.map((a) => [a.key, a]));
  const drafts = active ? [...o.drafts, ...unmuted(active, o)] : [...o.drafts];
  const planned = drafts.map((draft): Planned => {
    const labels = o.labelsOf(draft);
    const entry = draft.conditionKey === undefined ? undefined : byKey.get(draft.conditionKey);
    const targets = withHolds(draft, o.targetsFor(labels), o).filter((t) => {
      if (draft.onlyReceivers && !draft.onlyReceivers.includes(t.receiver)) return false;
      if (!draft.reminder) return true;
      const every = o.repeatMs(t);
      return every > 0 && o.now - (entry?.notifiedReceivers[t.receiver] ?? 0) >= every;
    });
    if (entry && draft.status === 'firing') remember(entry, draft, targets, o.now);
    return { draft, labels, targets };
  });
  return { planned, active };
}

/** A firing notification is held from the receivers its incident fires to (recorded as muted, owed once it ends); never a resolution. */
function withHolds(draft: Pick<AlertDraft, 'status' | 'conditionKey'>, targets: readonly Target[], o: PlanInput): Target[] {
  const { held } = o;
  if (!held || draft.status !== 'firing' || draft.conditionKey === undefined) return [...targets];
  const key = draft.conditionKey;
  return targets.map((t) => {
    if (t.mutedBy) return t;
    const why = held(key, t.receiver);
    return why === undefined ? t : { ...t, mutedBy: why };
  });
}

/** A firing alert's receivers: when each was notified, and which are owed it after their mute. */
function remember(entry: ActiveAlert, draft: AlertDraft, targets: readonly Target[], now: number): void {
  const muted = targets.filter((t) => t.mutedBy).map((t) => t.receiver);
  for (const t of targets) if (!t.mutedBy) entry.notifiedReceivers = { ...entry.notifiedReceivers, [t.receiver]: now };
  const stillOwed = draft.onlyReceivers ? entry.mutedReceivers.filter((r) => !draft.onlyReceivers?.includes(r)) : [];
  entry.mutedReceivers = [...new Set([...stillOwed, ...muted])];
  entry.mutedAt = entry.mutedReceivers.length > 0 ? (entry.mutedAt ?? now) : null;
}

/** Firing alerts whose last notification was muted for receivers no longer muted: notify those now. */
function unmuted(active: readonly ActiveAlert[], o: PlanInput): AlertDraft[] {
  const out: AlertDraft[] = [];
  for (const a of active) {
    if (a.state !== 'firing' || a.mutedReceivers.length === 0 || o.drafts.some((d) => d.conditionKey === a.key)) continue;
    const free = withHolds({ status: 'firing', conditionKey: a.key }, o.targetsFor(a.condition.labels), o)
      .filter((t) => a.mutedReceivers.includes(t.receiver) && !t.mutedBy)
      .map((t) => t.receiver);
    if (free.length === 0) continue;
    const since = a.mutedAt === null ? '' : `muted since ${new Date(a.mutedAt).toISOString()}; `;
    out.push({ ...toDraft(a.condition, 'firing', { 'Still firing': `${since}the mute has ended` }), onlyReceivers: free });
  }
  return out;
}
