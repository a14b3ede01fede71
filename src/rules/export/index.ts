import { Cron } from 'croner';
import { apiCall } from '../../api/catalog.js';
import { ApiError } from '../../api/errors.js';
import type { Operation } from '../../api/schemas.js';
import { formatDuration, formatElapsed, parseDuration } from '../../base/duration.js';
import type { AlertDraft, Condition, GaugeSample, Resolution, RuleKind } from '../types.js';
import { isoSeconds } from '../format.js';
import { spec, state, type Spec, type State } from './schema.js';

export interface Observation {
  /** An export this evaluation started, with the dates it asked for. */
  started?: Operation;
  request?: { firstDate: string | null; lastDate: string | null };
  /** A start whose outcome is unknown (no answer in time, a 5xx): the service may have started it. */
  startUnknown?: string;
  /** The latest answer for the export being watched. */
  polled?: Operation | 'not-found';
}

const KEY = 'export';
/** Our status for a start whose outcome is unknown: not polled, not retried until the next slot. */
const START_UNKNOWN = 'START_UNKNOWN';
/** The one status that is not an end: any other (COMPLETED, FAILED, one the service adds later, our NOT_FOUND) is final. */
const RUNNING = 'RUNNING';
const KNOWN_ENDS = new Set(['COMPLETED', 'COMPLETED_WITH_WARNING', 'FAILED']);

export const exportKind: RuleKind<Spec, Observation, State> = {
  kind: 'export',
  keyDetails: ['Status', 'Error'],
  labelNames: ['operation', 'export_status'],
  spec: spec as unknown as RuleKind<Spec, Observation, State>['spec'],
  state,
  gauges: [
    { name: 'avawatch_export_status', help: 'Status of the latest export of a rule (1 for the status shown).', labelNames: ['rule', 'status'] },
    { name: 'avawatch_export_started_timestamp_seconds', help: 'When the latest export of a rule was started.', labelNames: ['rule'] },
  ],

  async observe(s, { data, signal, now, previous }) {
    const st = (previous as ReadonlyMap<string, State>).get(KEY);
    const nowS = Math.floor(now.getTime() / 1000);
    // A running export (also after a restart) is polled, never started again.
    const watching = st?.operationId && st.status === RUNNING ? st.operationId : s.operationId && !st ? s.operationId : undefined;
    if (watching) return { polled: await data.operations.status(watching, signal) };
    if (s.operationId || !s.request) return {};
    const followUp = st?.continueFrom ? { firstDate: st.continueFrom, lastDate: st.lastDate } : undefined;
    if (!followUp && !due(s, st, nowS)) return {};
    const body = requestBody(s, nowS, followUp);
    const request = { firstDate: (body['firstDate'] as string | undefined) ?? null, lastDate: (body['lastDate'] as string | undefined) ?? null };
    try {
      return { started: await data.operations.startExport(body, signal), request };
    } catch (err) {
      signal.throwIfAborted();
      // Refused for sure: the poll fails and the next evaluation tries again.
      if (!mayHaveStarted(err)) throw err;
      return { startUnknown: err instanceof Error ? err.message : String(err), request };
    }
  },

  evaluate(previous, observation, now, s) {
    const nowS = Math.floor(now.getTime() / 1000);
    const before: State = previous.get(KEY) ?? { operationId: null, status: null, startedAt: null, since: nowS, continueFrom: null, firstDate: null, lastDate: null };
    const alerts: AlertDraft[] = [];
    let next: State = before;
    const dates = observation.request ?? { firstDate: null, lastDate: null };
    if (observation.started) {
      next = { operationId: observation.started.operationId, status: observation.started.operationStatus, startedAt: nowS, since: nowS, continueFrom: null, ...dates };
    } else if (observation.startUnknown !== undefined) {
      // The slot is used: the schedule counts from here, so it is not POSTed again blindly.
      next = { operationId: null, status: START_UNKNOWN, startedAt: nowS, since: nowS, continueFrom: null, ...dates };
      alerts.push({
        status: 'event',
        severity: 'warning',
        subject: 'export',
        summary: `An export may have started without avawatch seeing it: the start got no usable answer (${observation.startUnknown}); it is not started again before the next scheduled start`,
        labels: { export_status: START_UNKNOWN },
        details: { Error: observation.startUnknown, 'First date': dates.firstDate ?? '', 'Last date': dates.lastDate ?? '', 'What to do': 'look for a running export of your API key before starting one by hand' },
      });
    } else if (observation.polled === 'not-found') {
      if (before.status !== 'NOT_FOUND') alerts.push({
        status: 'event',
        severity: 'warning',
        subject: before.operationId ?? s.operationId ?? '',
        summary: `Export operation ${before.operationId ?? s.operationId} is not known to the service`,
        labels: { operation: before.operationId ?? s.operationId ?? '' },
        details: {},
      });
      next = { ...before, operationId: before.operationId ?? s.operationId ?? null, status: 'NOT_FOUND' };
    } else if (observation.polled) {
      const op = observation.polled;
      next = { ...before, operationId: op.operationId, status: op.operationStatus, startedAt: before.startedAt ?? op.createdAtTimestamp };
      if (op.operationStatus !== RUNNING && before.status !== op.operationStatus) {
        const follow = op.operationStatus === 'COMPLETED_WITH_WARNING' && s.continueTruncated ? followUpFrom(op.metadata?.nextDate, before) : undefined;
        alerts.push(finished(op, s, follow));
        if (follow?.ok) next.continueFrom = follow.date;
      }
    }
    const conditions: Condition[] = [];
    if (next.status === RUNNING && next.startedAt !== null && (nowS - next.startedAt) * 1000 > s.timeout) {
      conditions.push({
        key: KEY,
        subject: next.operationId ?? '',
        summary: `Export ${next.operationId} has been running for ${formatElapsed((nowS - next.startedAt) * 1000)}, past its ${formatDuration(s.timeout)} timeout`,
        resolvedSummary: `Export ${next.operationId} is no longer running past its timeout`,
        labels: { operation: next.operationId ?? '' },
        details: { Operation: next.operationId ?? '', Started: isoSeconds(next.startedAt), Timeout: formatDuration(s.timeout) },
      });
    }
    // The timeout alert ends when the operation does (or a new one replaces it): say its status now.
    const resolvedAs = (): Resolution | undefined =>
      next.status === RUNNING || next.status === null ? undefined : { summary: `Export ${next.operationId ?? ''} is no longer running past its timeout: ${next.status}`, details: { Operation: next.operationId ?? '', Status: next.status } };
    return { states: new Map([[KEY, next]]), alerts, conditions, resolvedAs };
  },

  samples(_s, states) {
    const st = states.get(KEY);
    const out: GaugeSample[] = [];
    if (st?.status) out.push({ metric: 'avawatch_export_status', labels: { status: st.status }, value: 1 });
    if (st?.startedAt) out.push({ metric: 'avawatch_export_started_timestamp_seconds', labels: {}, value: st.startedAt });
    return out;
  },

  describe: (s) =>
    s.operationId
      ? `watch operation ${s.operationId}`
      : `${s.request?.type} ${s.startEvery !== undefined ? `every ${formatDuration(s.startEvery)}` : `on "${s.startSchedule}"`}, timeout ${formatDuration(s.timeout)}`,
  // While an export runs, each evaluation polls it; starting one costs 20 CU more.
  cost: (s) => ({ calls: [apiCall('GET', `/v1/operations/${s.operationId ?? `started-by:${JSON.stringify(s.request)}`}`)], more: 'plus 20 CU for each export started' }),
};

/** startEvery counts from the last start (now on the first run); startSchedule from the rule's first run. */
function due(s: Spec, st: State | undefined, nowS: number): boolean {
  if (s.startEvery !== undefined) return !st || nowS - st.since >= s.startEvery / 1000;
  if (!st) return false;
  const next = new Cron(s.startSchedule as string, { paused: true }).nextRun(new Date(st.since * 1000));
  return next !== null && next.getTime() <= nowS * 1000;
}

/**
 * Where a truncated export continues: only forward (after the start of the one it follows)
 * and within the dates first asked for. A service that repeats a nextDate, or moves it
 * back, gets no follow-up: the truncation is reported once and the chain stops.
 */
function followUpFrom(nextDate: string | undefined, before: State): { ok: boolean; date: string; why?: string } | undefined {
  if (!nextDate) return undefined;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(nextDate)) return { ok: false, date: nextDate, why: 'it is not a YYYY-MM-DD date' };
  if (before.firstDate && nextDate <= before.firstDate) return { ok: false, date: nextDate, why: `it does not move past ${before.firstDate}, where this export started` };
  if (before.lastDate && nextDate > before.lastDate) return { ok: false, date: nextDate, why: `it is past ${before.lastDate}, the last date asked for` };
  return { ok: true, date: nextDate };
}

/** A start the service may have acted on: no answer in time, a 5xx, an unreadable 201. A 4xx (and 429) refused it. */
function mayHaveStarted(err: unknown): boolean {
  if (!(err instanceof ApiError)) return true;
  const { status, code } = err.details;
  if (status !== undefined) return status >= 500;
  return !['budget', 'rate_limited', 'aborted'].includes(code) && !/ECONNREFUSED|ENOTFOUND|EAI_AGAIN/.test(err.message);
}

/** The request with relative dates (`-1d`) turned into YYYY-MM-DD at `nowS`; a follow-up starts at nextDate, within the first one's last date. */
function requestBody(s: Spec, nowS: number, followUp?: { firstDate: string; lastDate: string | null }): Record<string, unknown> {
  const request = s.request as NonNullable<Spec['request']>;
  const date = (d: string | undefined) => {
    if (d === undefined || /^\d{4}-\d{2}-\d{2}$/.test(d)) return d;
    const ms = (d.startsWith('-') ? -1 : 1) * (parseDuration(d.replace(/^[+-]/, '')) ?? 0);
    return new Date(nowS * 1000 + ms).toISOString().slice(0, 10);
  };
  const body: Record<string, unknown> = followUp
    ? { ...request, firstDate: followUp.firstDate, lastDate: followUp.lastDate ?? undefined }
    : { ...request, firstDate: date(request.firstDate), lastDate: date(request.lastDate) };
  for (const k of ['firstDate', 'lastDate']) if (body[k] === undefined) delete body[k];
  return body;
}

function finished(op: Operation, s: Spec, follow?: { ok: boolean; date: string; why?: string }): AlertDraft {
  const base = { subject: op.operationId, labels: { operation: op.operationId, export_status: op.operationStatus } };
  const details: Record<string, string> = { Operation: op.operationId, Status: op.operationStatus, Started: isoSeconds(op.createdAtTimestamp) };
  if (op.operationStatus === 'FAILED') {
    return {
      ...base,
      status: 'event',
      severity: 'critical',
      summary: `Export ${op.operationId} failed: ${op.metadata?.code ?? 'no code'}: ${op.message ?? 'no message'}`,
      details: { ...details, Code: op.metadata?.code ?? '', Message: op.message ?? '' },
    };
  }
  if (!KNOWN_ENDS.has(op.operationStatus)) {
    return {
      ...base,
      status: 'event',
      severity: 'warning',
      summary: `Export ${op.operationId} ended with status "${op.operationStatus}" (not a completion avawatch knows): ${op.message ?? 'no message'}`,
      details: { ...details, Code: op.metadata?.code ?? '', Message: op.message ?? '' },
    };
  }
  const url = op.metadata?.downloadUrl ?? '';
  if (op.operationStatus === 'COMPLETED_WITH_WARNING') {
    const more = !s.continueTruncated ? '' : follow?.ok ? '; the follow-up export starts next' : follow ? `; no follow-up: the service's nextDate ${follow.date} is not usable (${follow.why})` : '';
    return {
      ...base,
      status: 'event',
      // Continued by a follow-up: news to see; left truncated: bad.
      news: follow?.ok ? 'neutral' : 'bad',
      summary: `Export ${op.operationId} completed but was truncated: continue from ${op.metadata?.nextDate ?? '?'}${more}`,
      details: { ...details, Download: url, Code: op.metadata?.code ?? '', 'Next date': op.metadata?.nextDate ?? '' },
    };
  }
  return { ...base, status: 'event', news: 'good', summary: `Export ${op.operationId} completed: ${url}`, details: { ...details, Download: url } };
}
