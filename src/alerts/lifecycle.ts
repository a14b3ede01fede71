import { z } from 'zod';
import { SEVERITIES, type AlertDraft, type Condition } from '../rules/types.js';

const text = z.record(z.string(), z.string());
/** A condition as stored with its active alert. */
export const conditionSchema: z.ZodType<Condition> = z.object({
  key: z.string(),
  subject: z.string(),
  severity: z.enum(SEVERITIES).optional(),
  summary: z.string(),
  resolvedSummary: z.string().optional(),
  labels: text,
  details: text,
  tier: z.string().optional(),
}) as z.ZodType<Condition>;

/** A condition that was firing at the last evaluation, as the store keeps it. */
export interface ActiveAlert {
  key: string;
  /** Escalation level (e.g. the warnBefore threshold crossed); a change notifies again. */
  tier: string;
  startedAt: number;
  condition: Condition;
}

/**
 * Diffs what holds now against what was firing: a new condition fires, a raised tier
 * fires again (escalation), one that no longer holds resolves. Pure: no clock, no I/O.
 */
export function advance(
  active: readonly ActiveAlert[],
  conditions: readonly Condition[],
  now: number,
): { active: ActiveAlert[]; notifications: AlertDraft[] } {
  const before = new Map(active.map((a) => [a.key, a]));
  const next: ActiveAlert[] = [];
  const notifications: AlertDraft[] = [];
  for (const c of conditions) {
    const was = before.get(c.key);
    before.delete(c.key);
    const tier = c.tier ?? '';
    next.push({ key: c.key, tier, startedAt: was?.startedAt ?? now, condition: c });
    if (!was || was.tier !== tier) notifications.push(toDraft(c, 'firing', was ? { Escalated: `${was.tier || 'firing'} → ${tier}` } : {}));
  }
  for (const gone of before.values()) {
    notifications.push(toDraft({ ...gone.condition, summary: gone.condition.resolvedSummary ?? `resolved: ${gone.condition.summary}` }, 'resolved', {}));
  }
  return { active: next, notifications };
}

function toDraft(c: Condition, status: 'firing' | 'resolved', extra: Record<string, string>): AlertDraft {
  return {
    status,
    ...(c.severity ? { severity: c.severity } : {}),
    subject: c.subject,
    summary: c.summary,
    labels: c.labels,
    details: { ...c.details, ...extra },
  };
}
