import { z } from 'zod';
import { SEVERITIES } from '../base/types.js';
import type { OutboxRow } from './types.js';

// Rows as both stores read them back: SQLite keeps labels and details as JSON text,
// PostgreSQL as jsonb (parsed by the driver); the rest is the same.

const record = z.record(z.string(), z.string());

function alertRowOf(labels: z.ZodType<Record<string, string>, unknown>) {
  return z.object({
    alert_id: z.number(),
    rule: z.string(),
    kind: z.string(),
    status: z.enum(['firing', 'resolved', 'event']),
    severity: z.enum(SEVERITIES),
    subject: z.string(),
    summary: z.string(),
    labels,
    details: labels,
    created_at: z.number(),
    condition_key: z.string().nullable(),
  });
}

/** An alerts row from SQLite (labels and details JSON text, parsed here). */
export const textAlertRow = alertRowOf(z.string().transform((s) => record.parse(JSON.parse(s))));
/** An alerts row from PostgreSQL (labels and details jsonb: parsed already). */
export const jsonAlertRow = alertRowOf(record);
export type AlertRow = z.output<typeof jsonAlertRow>;

/** A claimed outbox row joined with its alert (the columns both stores select) as delivery sends it. */
export function outboxRowOf(row: Record<string, unknown>, a: AlertRow): OutboxRow {
  return {
    id: row['id'] as number,
    receiver: row['receiver'] as string,
    attempts: row['attempts'] as number,
    unknownOutcomes: row['unknown_outcomes'] as number,
    createdAt: row['outbox_created_at'] as number,
    groupKey: row['group_key'] as string,
    groupIntervalMs: row['group_interval'] as number,
    ...(typeof row['digest_at'] === 'number' ? { digestAt: row['digest_at'] } : {}),
    ...(typeof row['last_error'] === 'string' ? { lastError: row['last_error'] } : {}),
    message: {
      alertId: a.alert_id,
      rule: a.rule,
      kind: a.kind,
      status: a.status,
      severity: a.severity,
      subject: a.subject,
      summary: a.summary,
      labels: a.labels,
      details: a.details,
      at: new Date(a.created_at).toISOString(),
      ...(a.condition_key === null ? {} : { conditionKey: a.condition_key }),
    },
  };
}
