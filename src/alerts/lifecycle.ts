import { z } from 'zod';
import { humanDuration } from '../base/duration.js';
import { NEWS, SEVERITIES, type AlertDraft, type Condition, type Resolution } from '../base/types.js';
import { namePresent, whoResolves } from '../inventory/name.js';
import type { ActiveRow } from '../store/index.js';

const text = z.record(z.string(), z.string());
/** A condition as stored with its active alert. */
export const conditionSchema: z.ZodType<Condition> = z.object({
  key: z.string(),
  subject: z.string(),
  severity: z.enum(SEVERITIES).optional(),
  news: z.enum(NEWS).optional(),
  summary: z.string(),
  resolvedSummary: z.string().optional(),
  resolvedDetails: text.optional(),
  labels: text,
  details: text,
  tier: z.string().optional(),
  firedAt: z.number().optional(),
}) as z.ZodType<Condition>;

/**
 * A condition that holds (or held, within keepFiringFor), with its pending/firing state,
 * notification times and mutes: the store's row (store/index.ts says what each field
 * means) with its condition parsed.
 */
export interface ActiveAlert extends Omit<ActiveRow, 'condition'> {
  condition: Condition;
}

/** A stored alert with its condition read back, or why it does not parse. */
export function readActive(row: ActiveRow): ActiveAlert | { invalid: string } {
  const c = conditionSchema.safeParse(row.condition);
  return c.success ? { ...row, condition: c.data } : { invalid: c.error.message };
}

export interface LifecycleOptions {
  /** Hold this long before firing. */
  forMs: number;
  /**
   * The rule's poll interval, when it polls on one: `for` counts a condition held for
   * forMs minus half of it (a poll within half an interval counts), so the poll jitter
   * never costs a whole interval more. Undefined: none (a cron schedule).
   */
  pollMs?: number;
  /** Keep firing this long after it stops holding: a condition that blinks pages once. */
  keepFiringForMs: number;
  /** Remind while firing; 0: never. Per condition: the shortest interval of its receivers. */
  repeatMs: number | ((c: Condition) => number);
  sendResolved: boolean;
}

/** Prefixes a firing detail in a resolved notification: a figure of then, not of now. */
export const WHEN_FIRED = 'When it fired: ';
const WHEN_FIRED_ALONE = 'When it fired';

export const IMMEDIATE: LifecycleOptions = { forMs: 0, keepFiringForMs: 0, repeatMs: 0, sendResolved: true };

/**
 * Diffs what holds now against what was active: pending → firing after `for`, escalation
 * on a tier change, reminders every repeatInterval, resolution after keepFiringFor.
 * Pure: the time comes in as `now`.
 */
export function advance(
  active: readonly ActiveAlert[],
  conditions: readonly Condition[],
  now: number,
  o: LifecycleOptions = IMMEDIATE,
  /** The present for a key that stops holding now (the kind's `resolvedAs`). */
  resolvedAs: (key: string) => Resolution | undefined = () => undefined,
): { active: ActiveAlert[]; notifications: AlertDraft[] } {
  const before = new Map(active.map((a) => [a.key, a]));
  const next: ActiveAlert[] = [];
  const notifications: AlertDraft[] = [];
  for (const c of conditions) {
    const was = before.get(c.key);
    before.delete(c.key);
    const tier = c.tier ?? '';
    const startedAt = was?.startedAt ?? now;
    const held = heldLongEnough(now - startedAt, o);
    // When it fired (passed `for:`), kept with the condition the kind gives anew each time.
    const firedAt = was?.state === 'firing' ? was.condition.firedAt : undefined;
    const entry: ActiveAlert = {
      key: c.key,
      tier,
      state: was?.state === 'firing' || held ? 'firing' : 'pending',
      startedAt,
      notifiedAt: was?.notifiedAt ?? null,
      clearedAt: null,
      mutedAt: was?.mutedAt ?? null,
      mutedReceivers: was?.mutedReceivers ?? [],
      notifiedReceivers: was?.notifiedReceivers ?? {},
      // Stryker disable next-line ConditionalExpression: `firedAt: undefined` is never stored (JSON), the same as none.
      condition: firedAt === undefined ? c : { ...c, firedAt },
    };
    if (entry.state === 'firing') {
      if (was?.state !== 'firing') {
        const heldFor: Record<string, string> = o.forMs > 0 ? { 'Failing since': new Date(startedAt).toISOString(), 'Held for': humanDuration(now - startedAt) } : {};
        notifications.push({ ...toDraft(c, 'firing', heldFor), transition: transitionKey('firing', tier, startedAt) });
        entry.notifiedAt = now;
        entry.condition = { ...c, firedAt: now };
      } else if (was.tier !== tier) {
        notifications.push({ ...toDraft(c, 'firing', { Escalated: `${was.tier || 'firing'} → ${tier}`, ...firedTimes(entry) }), transition: transitionKey('firing', tier, startedAt, was) });
        entry.notifiedAt = now;
      } else {
        const repeatMs = typeof o.repeatMs === 'function' ? o.repeatMs(c) : o.repeatMs;
        // A firing row with no notification time (none is written today) counts from its start.
        if (repeatMs > 0 && now - (was.notifiedAt ?? startedAt) >= repeatMs) {
          notifications.push(reminderDraft(entry.condition, startedAt));
          entry.notifiedAt = now;
        }
      }
    }
    next.push(entry);
  }
  for (const was of before.values()) {
    if (was.state === 'pending') continue; // never fired: nothing to resolve
    // Kept with the alert: a resolution delayed by keepFiringFor still says why it ended.
    const present = resolvedAs(was.key);
    const gone = present === undefined ? was : { ...was, condition: withPresent(was.condition, present) };
    const clearedAt = gone.clearedAt ?? now;
    if (now - clearedAt < o.keepFiringForMs) {
      next.push({ ...gone, clearedAt });
      continue;
    }
    if (o.sendResolved) notifications.push({ ...resolvedDraft(gone), transition: transitionKey('resolved', was.tier, was.startedAt) });
  }
  return { active: next, notifications };
}

/**
 * Which transition of its condition a notification is (AlertDraft.transition): its status,
 * its tier and its episode's start (a condition that resolves and holds again later starts a
 * new episode). An escalation names the tier and the notification it moves on from as well:
 * a tier that comes back within one episode (warning → critical → warning → critical) is news
 * each time. Made only of what is stored with the active alert, so two instances committing
 * the same news from the same stored state (a hand-over) make the same key, and the store
 * keeps one. A condition that fires at its first sight (no `for`) starts on the committing
 * instance's clock: two such commits differ, and the rule's revision check is what stops them.
 */
export function transitionKey(status: 'firing' | 'resolved', tier: string, startedAt: number, from?: Pick<ActiveAlert, 'tier' | 'notifiedAt'>): string {
  const key = `${status}|${tier}|${startedAt}`;
  return from ? `${key}|${from.tier}@${from.notifiedAt ?? ''}` : key;
}

/**
 * `for` met: held forMs, less half a poll interval of slack. A `for` shorter than the slack
 * still takes a second poll that sees the condition.
 */
function heldLongEnough(heldMs: number, o: LifecycleOptions): boolean {
  if (o.forMs <= 0) return true;
  return heldMs > 0 && heldMs >= o.forMs - (o.pollMs ?? 0) / 2;
}

/** The condition with the kind's present, named after the validator the condition was named after (by its key, not the present's text). */
function withPresent(c: Condition, unnamed: Resolution): Condition {
  const { resolvedDetails: _d, ...rest } = c;
  const present = namePresent(unnamed, whoResolves(c));
  return { ...rest, resolvedSummary: present.summary, ...(present.details ? { resolvedDetails: present.details } : {}) };
}

/**
 * The present first (what the kind read when it stopped holding), then the firing figures
 * under "When it fired: …", so no figure of then reads as one of now. A detail the present
 * repeats unchanged (the node, the validator) is said once; one it does not read again (the
 * failure it fired with) is of then. When every one is unchanged, that is said.
 */
function resolvedDraft(gone: ActiveAlert): AlertDraft {
  const c = gone.condition;
  const present = c.resolvedDetails ?? {};
  const fired: Record<string, string> = {};
  for (const [key, value] of Object.entries(c.details)) if (present[key] !== value) fired[WHEN_FIRED + key] = value;
  if (c.resolvedDetails !== undefined && Object.keys(fired).length === 0) fired[WHEN_FIRED_ALONE] = 'the details above are unchanged';
  const summary = c.resolvedSummary ?? `resolved: ${c.summary}`;
  return toDraft({ ...c, summary, details: c.resolvedDetails ?? {} }, 'resolved', { ...fired, ...firedTimes(gone) });
}

/**
 * When a firing alert fired (it passed `for:`) and, when that was later, when its condition
 * began to hold. A row stored before the firing time was kept says the start only, as
 * "Failing since".
 */
export function firedTimes(a: Pick<ActiveAlert, 'startedAt' | 'condition'>): Record<string, string> {
  const since = new Date(a.startedAt).toISOString();
  const fired = a.condition.firedAt;
  if (fired === undefined) return { 'Failing since': since };
  return fired > a.startedAt ? { 'Failing since': since, 'Fired at': new Date(fired).toISOString() } : { 'Fired at': since };
}

/** A firing alert said again: a reminder (left out of the history's timeline). */
export function reminderDraft(c: Condition, startedAt: number): AlertDraft {
  return { ...toDraft(c, 'firing', { Reminder: 'still firing', ...firedTimes({ startedAt, condition: c }) }), reminder: true };
}

export function toDraft(c: Condition, status: 'firing' | 'resolved', extra: Record<string, string>): AlertDraft {
  return {
    conditionKey: c.key,
    status,
    ...(c.severity ? { severity: c.severity } : {}),
    ...(c.news ? { news: c.news } : {}),
    subject: c.subject,
    summary: c.summary,
    labels: c.labels,
    details: { ...c.details, ...extra },
  };
}
