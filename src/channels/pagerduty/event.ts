import { createHash } from 'node:crypto';
import type { AlertMessage } from '../types.js';
import { oneLine } from '../text.js';

/** The Events API v2's limits: a summary of 1,024 characters, a dedup_key of 255, an event of 512 KB. */
export const PAGERDUTY_LIMITS = { summary: 1024, source: 255, dedupKey: 255, eventBytes: 512 * 1024 } as const;
/** A detail value is cut here, so a few huge ones cannot take the event past its size. */
const DETAIL_MAX = 4000;

export interface PagerDutyEvent {
  routing_key: string;
  event_action: 'trigger' | 'resolve';
  dedup_key: string;
  payload?: {
    summary: string;
    source: string;
    severity: 'critical' | 'warning' | 'info';
    timestamp: string;
    component: string;
    group: string;
    class: string;
    custom_details: Record<string, unknown>;
  };
  client?: string;
}

/**
 * What identifies an alert's incident. A state alert: its rule, kind and condition key, the
 * same for its firing, every reminder, an escalation and its resolve, so the resolve closes
 * the incident and a reminder is deduplicated into it. An event (delivered once): its own
 * alert id. PagerDuty takes at most 255 characters: a longer key is hashed.
 */
export function dedupKey(a: AlertMessage): string {
  let key: string;
  if (a.status !== 'event' && a.conditionKey !== undefined) key = `avawatch/${a.rule}/${a.kind}/${a.conditionKey}`;
  else if (a.status !== 'event') key = `avawatch/${a.rule}/${a.kind}/${a.subject}/${stableLabels(a.labels)}`; // a row stored before condition keys were
  else if (a.alertId > 0) key = `avawatch/${a.rule}/event/${a.alertId}`;
  else key = `avawatch/${a.rule}/event/${a.subject}/${a.at}`; // notify-test: a new one each time
  return key.length <= PAGERDUTY_LIMITS.dedupKey ? key : `avawatch/${createHash('sha256').update(key).digest('hex')}`;
}

/** Labels that do not change while an alert fires (not severity), in a fixed order. */
function stableLabels(labels: Record<string, string>): string {
  return Object.keys(labels)
    .filter((k) => k !== 'severity')
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join(',');
}

/**
 * One alert as an event: `trigger` for firing (a reminder too: PagerDuty adds it to the open
 * incident) and for an event; `resolve` for resolved, which needs only the key. Summary
 * and source are plain text, on one line, within their limits; the details follow in
 * custom_details, cut so the event stays far below 512 KB.
 */
export function pagerDutyEvent(a: AlertMessage, routingKey: string): PagerDutyEvent {
  const dedup_key = dedupKey(a);
  if (a.status === 'resolved') return { routing_key: routingKey, event_action: 'resolve', dedup_key };
  const details: Record<string, string> = {};
  for (const [k, v] of Object.entries(a.details)) details[k.slice(0, 200)] = cut(v, DETAIL_MAX);
  return {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key,
    payload: {
      summary: cut(oneLine(a.summary), PAGERDUTY_LIMITS.summary) || a.rule,
      source: cut(oneLine(a.subject), PAGERDUTY_LIMITS.source) || 'avawatch',
      severity: a.severity,
      timestamp: a.at,
      component: a.kind,
      group: a.rule,
      class: a.status === 'event' ? 'event' : 'condition',
      custom_details: { rule: a.rule, kind: a.kind, subject: cut(a.subject, DETAIL_MAX), labels: a.labels, ...details },
    },
    client: 'avawatch',
  };
}

/** The event as sent: within 512 KB whatever its details (past it, they are dropped and counted). */
export function eventBody(event: PagerDutyEvent): string {
  const body = JSON.stringify(event);
  if (Buffer.byteLength(body) <= PAGERDUTY_LIMITS.eventBytes || !event.payload) return body;
  const { custom_details: all, ...payload } = event.payload;
  const { rule, kind, subject, labels, ...details } = all;
  const kept = { rule, kind, subject, labels, note: `${Object.keys(details).length} details not shown: the event would pass 512 KB` };
  return JSON.stringify({ ...event, payload: { ...payload, custom_details: kept } });
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  // Never half a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(text[max - 2] ?? '') ? max - 2 : max - 1;
  return `${text.slice(0, end)}…`;
}
