import type { StateStore } from '../store/index.js';
import { conditionSchema } from './lifecycle.js';

/** A firing alert as `avawatch alerts` and GET /api/v1/alerts show it. */
export interface FiringAlert {
  rule: string;
  key: string;
  subject: string;
  severity: string;
  summary: string;
  labels: Record<string, string>;
  details: Record<string, string>;
  tier: string;
  startsAt: string;
}

export async function firingAlerts(store: Pick<StateStore, 'activeAlerts'>): Promise<FiringAlert[]> {
  return (await store.activeAlerts()).flatMap((row) => {
    const c = conditionSchema.safeParse(row.condition);
    if (!c.success) return [];
    return [
      {
        // rule-failing alerts are stored apart (engine/failing.ts) but belong to their rule.
        rule: c.data.labels['rule'] ?? row.rule,
        key: row.key,
        subject: c.data.subject,
        severity: c.data.severity ?? 'warning',
        summary: c.data.summary,
        labels: c.data.labels,
        details: c.data.details,
        tier: row.tier,
        startsAt: new Date(row.startedAt).toISOString(),
      },
    ];
  });
}
