import type { AlertDraft, Condition, News, Severity } from '../../base/types.js';
import type { LoadedRule } from '../../config/load.js';
import { nameValidator } from '../../inventory/name.js';
import { scrubCondition, scrubDraft, type Redact } from './scrub.js';

type Enriched = Pick<LoadedRule, 'name' | 'labels' | 'severity' | 'severities' | 'validators'>;

/**
 * The `enrich` stage, one function for events and conditions: the validator's name (from the
 * inventory), the severity its news calls for, the labels it is routed and silenced by, and no
 * secret left in any text. Run once, where the alert is made: a condition before its lifecycle
 * (the stored alert reads whole), an event before the commit.
 */
export function enrich<T extends AlertDraft | Condition>(rule: Enriched, item: T, redact: Redact): T {
  const named = nameValidator(rule.validators, item);
  const severity = severityOf(rule, named);
  const whole = { ...named, severity, labels: alertLabels(rule, named.labels, severity) };
  return ('key' in whole ? scrubCondition(whole as Condition, redact) : scrubDraft(whole as AlertDraft, redact)) as T;
}

/** An alert's labels as it is routed, silenced and delivered: the rule's, the kind's over them, then rule and severity. */
export function alertLabels(rule: { name: string; labels?: Record<string, string> | undefined }, labels: Record<string, string>, severity: Severity): Record<string, string> {
  return { ...rule.labels, ...labels, rule: rule.name, severity };
}

/**
 * The one place news becomes a severity: an explicit severity wins; bad news (the default)
 * goes at the rule's; good and neutral at the rule's `severities`, else info. The
 * `severity` label is made from this, so a route for critical never gets good news.
 */
export function severityOf(rule: Pick<LoadedRule, 'severity' | 'severities'>, a: { severity?: Severity | undefined; news?: News | undefined }): Severity {
  if (a.severity) return a.severity;
  if (a.news === undefined || a.news === 'bad') return rule.severity;
  return rule.severities?.[a.news] ?? 'info';
}
