import { ApiError } from '../api/errors.js';
import { NodeApiError } from '../api/node-api.js';
import type { Condition, Severity } from '../base/types.js';
import { CAUSE_RULE } from '../alerts/labels.js';
import { FAILING_ALERTNAME, type Cause, type FailureRun } from './failing.js';

export { CAUSE_RULE } from '../alerts/labels.js';

export type { Cause } from './failing.js';

// One outage, one message: evaluations that fail for a cause outside the rule (the service
// down, a node's API silent, the budget spent) make one alert per cause, listing its rules.

/** A cause's alert is kept in the store under this prefix and the cause's key. */
export const CAUSE_PREFIX = '!cannot-see:';
/** Its condition key: one per cause (`cannot-see:data-service`), stable while the cause lasts; unique across causes, as Alertmanager's identity of an alert needs. */
export function causeKey(cause: string): string {
  return `cannot-see:${cause}`;
}

const SERVICE = { data: ['data-service', 'the data service'], metrics: ['metrics-api', 'the Metrics API'] } as const;

/**
 * The cause outside the rule that an evaluation failed with, or undefined when the failure
 * is the rule's own (a bad request only it makes, an answer that does not parse).
 */
export function causeOf(err: unknown): Cause | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++) {
    if (e instanceof ApiError) return apiCause(e);
    if (e instanceof NodeApiError) return nodeCause(e);
  }
  return undefined;
}

function apiCause(e: ApiError): Cause | undefined {
  const d = e.details;
  if (d.api !== 'data' && d.api !== 'metrics') return undefined;
  const [source, subject] = SERVICE[d.api];
  const service = (what: string): Cause => ({ key: source, labels: { source }, subject, what: `${subject} ${what}` });
  if (d.code === 'budget') {
    const name = `the ${d.api === 'data' ? 'Data' : 'Metrics'} API's compute-unit budget`;
    return { key: `budget:${d.api}`, labels: { source: 'budget', api: d.api }, subject: name, what: `${name} is spent for the day` };
  }
  if (d.code === 'rate_limited') return service('asked us to pause (429)');
  if (d.code === 'timeout') return service('does not answer in time');
  if (d.code === 'network_error') return service(`cannot be reached (${d.network ?? 'network error'})`);
  const status = d.status;
  if (status === undefined) return undefined;
  if (status === 429) return service('answers 429 (rate limited)');
  if (status === 401 || status === 403) return service(`refuses the API key (${status})`);
  if (status >= 500) return service(`answers ${status}`);
  return undefined;
}

function nodeCause(e: NodeApiError): Cause | undefined {
  if (e.kind !== 'unreachable' || e.where === undefined) return undefined;
  const subject = `the node API at ${e.where}`;
  // `node host:port endpoint: what`: the what, without the endpoint.
  const why = /^node \S+ \S+: (.*)$/.exec(e.message)?.[1];
  return { key: `node-api:${e.where}`, labels: { source: 'node-api', node_api: e.where }, subject, what: `${subject} does not answer${why ? ` (${why})` : ''}` };
}

/** A rule's failure run with its cause. */
export type CauseRun = { rule: string } & FailureRun & { cause: Cause };

/**
 * The one alert of a cause: its rules failing now (each run at least once), since the
 * earliest of them. `before` is the rules the alert listed so far: the resolution names
 * every rule it was about, not only the last to recover.
 */
export function causeCondition(runs: readonly CauseRun[], before: readonly string[], severity: Severity): Condition {
  const first = runs[0];
  if (first === undefined) throw new Error('a cause with no failing rule has no alert');
  const { cause } = mostCommon(runs);
  const since = Math.min(...runs.map((r) => r.since));
  const rules = runs.map((r) => r.rule).sort();
  const all = [...new Set([...before, ...rules])].sort();
  const n = (k: number) => `${k} rule${k === 1 ? '' : 's'}`;
  return {
    key: causeKey(cause.key),
    subject: cause.subject,
    severity,
    summary: `avawatch cannot see: ${cause.what} since ${hhmm(since)} UTC, ${n(rules.length)}`,
    resolvedSummary: `avawatch sees again: ${cause.subject} answers, ${n(all.length)} ${all.length === 1 ? 'evaluates' : 'evaluate'} again`,
    resolvedDetails: { Rules: all.join(', ') },
    labels: { alertname: FAILING_ALERTNAME, rule: CAUSE_RULE, ...cause.labels, severity },
    details: {
      Cause: cause.what,
      Rules: rules.map((r) => `${r} (${runs.find((x) => x.rule === r)?.count ?? 0} failed)`).join(', '),
      'All rules it blinded': all.join(', '),
      Error: mostCommon(runs).error,
      'Failing since': new Date(since).toISOString(),
    },
  };
}

/** The rules an alert of a cause listed, read back from its details. */
export function listedRules(c: Condition | undefined): string[] {
  const all = c?.details['All rules it blinded'];
  return all ? all.split(', ').filter((r) => r !== '') : [];
}

/** The run whose wording most runs share (the first on a tie). */
function mostCommon(runs: readonly CauseRun[]): CauseRun {
  const tally = new Map<string, number>();
  for (const r of runs) tally.set(r.cause.what, (tally.get(r.cause.what) ?? 0) + 1);
  let best = runs[0] as CauseRun;
  for (const r of runs) if ((tally.get(r.cause.what) ?? 0) > (tally.get(best.cause.what) ?? 0)) best = r;
  return best;
}

function hhmm(ms: number): string {
  return new Date(ms).toISOString().slice(11, 16);
}

/**
 * Failing rules grouped: one line per cause listing its rules, then one per rule failing for
 * its own reason. For /readyz, the heartbeat and `once`.
 */
export function blindLines(runs: ReadonlyArray<{ rule: string } & FailureRun>, own: (r: { rule: string } & FailureRun) => string): string[] {
  const byCause = new Map<string, Array<{ rule: string } & FailureRun & { cause: Cause }>>();
  const out: string[] = [];
  for (const r of runs) {
    if (r.cause === undefined) continue;
    const list = byCause.get(r.cause.key) ?? [];
    list.push({ ...r, cause: r.cause });
    byCause.set(r.cause.key, list);
  }
  for (const list of byCause.values()) {
    const { cause, error } = mostCommon(list);
    const names = list.map((r) => r.rule).sort();
    const shown = names.slice(0, 8).join(', ') + (names.length > 8 ? ', …' : '');
    out.push(`${cause.what} since ${hhmm(Math.min(...list.map((r) => r.since)))} UTC: ${names.length} rule${names.length === 1 ? '' : 's'} failing (${shown}): ${error}`);
  }
  for (const r of runs) if (r.cause === undefined) out.push(own(r));
  return out;
}
