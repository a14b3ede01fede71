import { Cron } from 'croner';
import { z } from 'zod';
import { parseDuration } from '../../base/duration.js';
import { durationMs } from '../../base/fields.js';

/** `2026-01-31`, or relative to the start of the export: `-1d`, `-7d`, `0d`. */
const exportDate = z.string().refine((d) => /^\d{4}-\d{2}-\d{2}$/.test(d) || parseDuration(d.replace(/^[+-]/, '')) !== undefined, 'expected YYYY-MM-DD or a relative date such as -1d');

export const spec = z
  .strictObject({
    /** The body of POST /v1/operations/transactions:export; dates may be relative. */
    request: z
      .strictObject({
        type: z.enum(['TRANSACTION_EXPORT_EVM', 'TRANSACTION_EXPORT_PRIMARY_NETWORK', 'TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING', 'TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE']),
        firstDate: exportDate.optional(),
        lastDate: exportDate.optional(),
        options: z.looseObject({ addresses: z.array(z.string()).min(1), includeChains: z.array(z.string()).optional() }),
      })
      .optional(),
    startEvery: durationMs.optional(),
    startSchedule: z.string().refine((p) => cronOk(p), 'not a valid cron expression').optional(),
    /** Watch one export started elsewhere instead of starting any. */
    operationId: z.string().min(1).optional(),
    /** Firing while an export runs longer than this. */
    timeout: durationMs.default(3_600_000),
    /** After COMPLETED_WITH_WARNING, start the follow-up export from nextDate. */
    continueTruncated: z.boolean().default(false),
  })
  .superRefine((s, ctx) => {
    if (s.operationId !== undefined) {
      if (s.request || s.startEvery !== undefined || s.startSchedule) ctx.addIssue({ code: 'custom', message: 'operationId watches an export started elsewhere: drop request, startEvery and startSchedule' });
      return;
    }
    if (!s.request) ctx.addIssue({ code: 'custom', message: 'set request (the export to start) or operationId (one to watch)' });
    if ((s.startEvery === undefined) === (s.startSchedule === undefined)) ctx.addIssue({ code: 'custom', message: 'set exactly one of startEvery or startSchedule' });
  });
export type Spec = z.output<typeof spec>;

export const state = z.object({
  operationId: z.string().nullable(),
  /** RUNNING until it ends; then the final status. */
  status: z.string().nullable(),
  /** When the current (or last) export was started (unix s); null when none yet. */
  startedAt: z.number().nullable(),
  /** When this rule last started one, or first ran (unix s): the schedule counts from here. */
  since: z.number(),
  /** After a truncated export with continueTruncated: start the follow-up from this date. */
  continueFrom: z.string().nullable(),
  /** The dates the current (or last) export asked for, YYYY-MM-DD: a follow-up only moves forward within them. */
  firstDate: z.string().nullable().default(null),
  lastDate: z.string().nullable().default(null),
});
export type State = z.output<typeof state>;

function cronOk(pattern: string): boolean {
  try {
    new Cron(pattern, { paused: true }).stop();
    return true;
  } catch {
    return false;
  }
}
