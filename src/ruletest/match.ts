import { stringify } from 'yaml';
import type { AlertMessage } from '../base/types.js';
import type { ExpectedAlert } from './schema.js';

export function matches(expected: ExpectedAlert, actual: AlertMessage): boolean {
  if (expected.rule !== actual.rule || expected.status !== actual.status) return false;
  if (expected.severity !== undefined && expected.severity !== actual.severity) return false;
  if (expected.subject !== undefined && expected.subject !== actual.subject) return false;
  if (expected.summary !== undefined && !summaryMatches(expected.summary, actual.summary)) return false;
  return Object.entries(expected.labels ?? {}).every(([k, v]) => actual.labels[k] === v);
}

function summaryMatches(pattern: string, summary: string): boolean {
  const regex = /^\/(.*)\/$/.exec(pattern);
  return regex ? new RegExp(regex[1] as string).test(summary) : pattern === summary;
}

/** Pairs expectations with alerts one to one; returns what is left over on each side. */
export function compare(expected: readonly ExpectedAlert[], actual: readonly AlertMessage[]): { missing: ExpectedAlert[]; unexpected: AlertMessage[] } {
  const left = [...actual];
  const missing: ExpectedAlert[] = [];
  for (const e of expected) {
    const i = left.findIndex((a) => matches(e, a));
    if (i === -1) missing.push(e);
    else left.splice(i, 1);
  }
  return { missing, unexpected: left };
}

/** An alert as a test file would write it, to copy into `expect:`. */
export function asExpectation(a: AlertMessage): ExpectedAlert {
  return { rule: a.rule, status: a.status, severity: a.severity, subject: a.subject, summary: a.summary, labels: a.labels };
}

/** `-` lines: expected but not produced; `+` lines: produced but not expected. */
export function diff(missing: readonly ExpectedAlert[], unexpected: readonly AlertMessage[]): string {
  const block = (sign: string, value: unknown) =>
    stringify(value, { lineWidth: 0 })
      .trimEnd()
      .split('\n')
      .map((line, i) => `${sign} ${i === 0 ? '' : '  '}${line}`)
      .join('\n');
  const out: string[] = [];
  if (missing.length > 0) out.push('expected, not produced:', ...missing.map((m) => block('-', m)));
  if (unexpected.length > 0) out.push('produced, not expected:', ...unexpected.map((u) => block('+', asExpectation(u))));
  return out.join('\n');
}
