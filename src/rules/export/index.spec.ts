import { describe, expect, it } from 'vitest';
import { exportKind } from './index.js';
import { spec as specSchema } from './schema.js';

const T = 1_800_000_000;
const op = (status: string, extra: Record<string, unknown> = {}) => ({
  operationId: 'op-1',
  operationType: 'TRANSACTION_EXPORT_EVM',
  operationStatus: status,
  createdAtTimestamp: T,
  ...extra,
});
const spec = specSchema.parse({ operationId: 'op-1', timeout: '10m' });

describe('export', () => {
  it('watches an operation started elsewhere; fires past its timeout; reports the end once', () => {
    const a = exportKind.evaluate({}, { polled: op('RUNNING') }, new Date((T + 60) * 1000), spec);
    expect(a.conditions).toEqual([]);
    const b = exportKind.evaluate(a.states, { polled: op('RUNNING') }, new Date((T + 660) * 1000), spec);
    expect(b.conditions?.[0]?.summary).toBe('Export op-1 has been running for 11m, past its 10m timeout');
    const c = exportKind.evaluate(b.states, { polled: op('FAILED', { message: 'boom', metadata: { code: 'ErrInternal' } }) }, new Date((T + 700) * 1000), spec);
    expect(c.alerts.map((x) => x.summary)).toEqual(['Export op-1 failed: ErrInternal: boom']);
    expect(c.conditions).toEqual([]);
    expect(exportKind.evaluate(c.states, {}, new Date((T + 800) * 1000), spec).alerts).toEqual([]);
  });

  it('a status the service adds later (CANCELLED) ends the operation with a warning naming it, and the schedule goes on', async () => {
    const scheduled = specSchema.parse({ request: { type: 'TRANSACTION_EXPORT_EVM', options: { addresses: ['0xabc'] } }, startEvery: '1h', timeout: '10m' });
    const started = exportKind.evaluate({}, { started: op('RUNNING') }, new Date(T * 1000), scheduled);
    const late = exportKind.evaluate(started.states, { polled: op('RUNNING') }, new Date((T + 660) * 1000), scheduled);
    expect(late.conditions?.map((c) => c.key)).toEqual(['export']);
    const cancelled = exportKind.evaluate(late.states, { polled: op('CANCELLED', { message: 'cancelled by operator' }) }, new Date((T + 700) * 1000), scheduled);
    expect(cancelled.alerts.map((x) => [x.severity, x.summary])).toEqual([
      ['warning', 'Export op-1 ended with status "CANCELLED" (not a completion avawatch knows): cancelled by operator'],
    ]);
    expect(cancelled.conditions).toEqual([]);
    expect(cancelled.states['export']?.status).toBe('CANCELLED');
    // Not polled again: the next slot starts the next export.
    const calls: string[] = [];
    const data = {
      operation: async (id: string) => (calls.push(`poll ${id}`), op('CANCELLED')),
      startExport: async () => (calls.push('start'), op('RUNNING', { operationId: 'op-2' })),
    };
    const ctx = (t: number) => ({ data, previous: cancelled.states, now: new Date(t * 1000), signal: new AbortController().signal }) as never;
    expect(await exportKind.observe(scheduled, ctx(T + 800))).toEqual({});
    expect((await exportKind.observe(scheduled, ctx(T + 3600))).started?.operationId).toBe('op-2');
    expect(calls).toEqual(['start']);
  });

  it('says an unknown operation once', () => {
    const a = exportKind.evaluate({}, { polled: 'not-found' }, new Date(T * 1000), spec);
    expect(a.alerts.map((x) => x.summary)).toEqual(['Export operation op-1 is not known to the service']);
    expect(exportKind.evaluate(a.states, { polled: 'not-found' }, new Date((T + 60) * 1000), spec).alerts).toEqual([]);
  });

  it('rejects a rule that neither starts nor watches an export', () => {
    expect(specSchema.safeParse({ timeout: '1h' }).error?.issues.map((i) => i.message)).toEqual([
      'set request (the export to start) or operationId (one to watch)',
      'set exactly one of startEvery or startSchedule',
    ]);
  });
});
