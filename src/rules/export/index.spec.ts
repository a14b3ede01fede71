import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/errors.js';
import { advance } from '../../alerts/lifecycle.js';
import { severityOf } from '../../alerts/pipeline/enrich.js';
import { exportKind } from './index.js';
import type { State } from './schema.js';
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

const rule = { severity: 'critical' as const };

describe('export', () => {
  it('watches an operation started elsewhere; fires past its timeout; reports the end once', () => {
    const a = exportKind.evaluate(new Map(), { polled: op('RUNNING') }, new Date((T + 60) * 1000), spec);
    expect(a.conditions).toEqual([]);
    const b = exportKind.evaluate(a.states, { polled: op('RUNNING') }, new Date((T + 660) * 1000), spec);
    expect(b.conditions?.[0]?.summary).toBe('Export op-1 has been running for 11m, past its 10m timeout');
    const c = exportKind.evaluate(b.states, { polled: op('FAILED', { message: 'boom', metadata: { code: 'ErrInternal' } }) }, new Date((T + 700) * 1000), spec);
    expect(c.alerts.map((x) => [x.summary, severityOf(rule, x)])).toEqual([['Export op-1 failed: ErrInternal: boom', 'critical']]);
    expect(c.conditions).toEqual([]);
    // The timeout alert resolves with the status now, not "running".
    const fired = advance([], b.conditions ?? [], (T + 660) * 1000);
    const [resolved] = advance(fired.active, c.conditions ?? [], (T + 700) * 1000, undefined, c.resolvedAs).notifications;
    expect(resolved?.summary).toBe('Export op-1 is no longer running past its timeout: FAILED');
    expect(resolved?.details).toMatchObject({ Status: 'FAILED' });
    expect(exportKind.evaluate(c.states, {}, new Date((T + 800) * 1000), spec).alerts).toEqual([]);
  });

  it('a status the service adds later (CANCELLED) ends the operation with a warning naming it, and the schedule goes on', async () => {
    const scheduled = specSchema.parse({ request: { type: 'TRANSACTION_EXPORT_EVM', options: { addresses: ['0xabc'] } }, startEvery: '1h', timeout: '10m' });
    const started = exportKind.evaluate(new Map(), { started: op('RUNNING') }, new Date(T * 1000), scheduled);
    const late = exportKind.evaluate(started.states, { polled: op('RUNNING') }, new Date((T + 660) * 1000), scheduled);
    expect(late.conditions?.map((c) => c.key)).toEqual(['export']);
    const cancelled = exportKind.evaluate(late.states, { polled: op('CANCELLED', { message: 'cancelled by operator' }) }, new Date((T + 700) * 1000), scheduled);
    expect(cancelled.alerts.map((x) => [x.severity, x.summary])).toEqual([
      ['warning', 'Export op-1 ended with status "CANCELLED" (not a completion avawatch knows): cancelled by operator'],
    ]);
    expect(cancelled.conditions).toEqual([]);
    expect(cancelled.states.get('export')?.status).toBe('CANCELLED');
    // Not polled again: the next slot starts the next export.
    const calls: string[] = [];
    const operations = {
      status: async (id: string) => (calls.push(`poll ${id}`), op('CANCELLED')),
      startExport: async () => (calls.push('start'), op('RUNNING', { operationId: 'op-2' })),
    };
    const ctx = (t: number) => ({ data: { operations }, previous: cancelled.states, now: new Date(t * 1000), signal: new AbortController().signal }) as never;
    expect(await exportKind.observe(scheduled, ctx(T + 800))).toEqual({});
    expect((await exportKind.observe(scheduled, ctx(T + 3600))).started?.operationId).toBe('op-2');
    expect(calls).toEqual(['start']);
  });

  it('a truncated export continues only forward: a service repeating its nextDate gets one follow-up, then the truncation is reported once and the chain stops', async () => {
    const truncating = specSchema.parse({
      request: { type: 'TRANSACTION_EXPORT_EVM', firstDate: '2026-01-01', lastDate: '2026-01-10', options: { addresses: ['0xabc'] } },
      startEvery: '1d',
      continueTruncated: true,
    });
    const bodies: Array<Record<string, unknown>> = [];
    let n = 0;
    const operations = {
      startExport: async (body: Record<string, unknown>) => (bodies.push(body), op('RUNNING', { operationId: `op-${++n}` })),
      status: async (id: string) => op('COMPLETED_WITH_WARNING', { operationId: id, metadata: { code: 'WarnTruncatedExport', downloadUrl: 'https://x/y.csv', nextDate: '2026-01-05' } }),
    };
    let states: ReadonlyMap<string, State> = new Map();
    const summaries: string[] = [];
    for (let i = 0; i < 12; i++) {
      const now = new Date((T + i * 60) * 1000);
      const observation = await exportKind.observe(truncating, { data: { operations }, previous: states, now, signal: new AbortController().signal } as never);
      const result = exportKind.evaluate(states, observation, now, truncating);
      states = result.states;
      summaries.push(...result.alerts.map((a) => a.summary));
    }
    expect(bodies.map((b) => `${String(b['firstDate'])}..${String(b['lastDate'])}`)).toEqual(['2026-01-01..2026-01-10', '2026-01-05..2026-01-10']);
    expect(summaries).toEqual([
      'Export op-1 completed but was truncated: continue from 2026-01-05; the follow-up export starts next',
      "Export op-2 completed but was truncated: continue from 2026-01-05; no follow-up: the service's nextDate 2026-01-05 is not usable (it does not move past 2026-01-05, where this export started)",
    ]);
  });

  it('an export whose start got no answer in time is reported as maybe started, and not POSTed again before the next slot', async () => {
    const daily = specSchema.parse({ request: { type: 'TRANSACTION_EXPORT_EVM', options: { addresses: ['0xabc'] } }, startEvery: '1d' });
    const posts: number[] = [];
    const operations = {
      startExport: async () => {
        posts.push(posts.length);
        if (posts.length === 1) throw new ApiError('data API POST /v1/operations/transactions:export: no complete response within 10000 ms', { api: 'data', endpoint: 'x', code: 'timeout', retryable: true });
        return op('RUNNING', { operationId: 'op-2' });
      },
      status: async () => op('RUNNING'),
    };
    const step = async (states: ReadonlyMap<string, State>, t: number) => {
      const now = new Date(t * 1000);
      return exportKind.evaluate(states, await exportKind.observe(daily, { data: { operations }, previous: states, now, signal: new AbortController().signal } as never), now, daily);
    };
    const first = await step(new Map(), T);
    expect(first.alerts.map((a) => [a.severity, a.summary])).toEqual([
      ['warning', 'An export may have started without avawatch seeing it: the start got no usable answer (data API POST /v1/operations/transactions:export: no complete response within 10000 ms); it is not started again before the next scheduled start'],
    ]);
    const later = await step(first.states, T + 600);
    expect(later.alerts).toEqual([]);
    expect(posts).toHaveLength(1);
    expect((await step(later.states, T + 86_400)).states.get('export')?.operationId).toBe('op-2');
    expect(posts).toHaveLength(2);
  });

  it('a start the service refused (a 400) fails the poll: nothing is recorded, the next evaluation tries again', async () => {
    const daily = specSchema.parse({ request: { type: 'TRANSACTION_EXPORT_EVM', options: { addresses: ['0xabc'] } }, startEvery: '1d' });
    const operations = {
      startExport: async () => {
        throw new ApiError('data API POST /v1/operations/transactions:export: HTTP 400: bad addresses', { api: 'data', endpoint: 'x', code: '400', status: 400, retryable: false });
      },
    };
    await expect(exportKind.observe(daily, { data: { operations }, previous: new Map(), now: new Date(T * 1000), signal: new AbortController().signal } as never)).rejects.toThrow('HTTP 400');
  });

  it('a completed export is good news: info, unless the rule says otherwise', () => {
    const a = exportKind.evaluate(new Map(), { polled: op('RUNNING') }, new Date(T * 1000), spec);
    const done = exportKind.evaluate(a.states, { polled: op('COMPLETED', { metadata: { downloadUrl: 'https://x/y.csv' } }) }, new Date((T + 60) * 1000), spec);
    expect(done.alerts.map((x) => [x.summary, severityOf(rule, x), severityOf({ ...rule, severities: { good: 'warning' } }, x)])).toEqual([['Export op-1 completed: https://x/y.csv', 'info', 'warning']]);
  });

  it('says an unknown operation once', () => {
    const a = exportKind.evaluate(new Map(), { polled: 'not-found' }, new Date(T * 1000), spec);
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
