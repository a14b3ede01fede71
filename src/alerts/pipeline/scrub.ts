import { record } from '../../base/record.js';
import type { AlertDraft, Condition, Resolution } from '../../base/types.js';

// Text built from the service's answers may quote a secret (a gateway's error page that
// echoes the request's API key). Every alert is scrubbed here, as it is made, so Slack, the
// status page, /api/v1/alerts and the state file all get the same <secret> text.

export type Redact = (text: string) => string;

/** Every string of a record, keys and values. */
function scrubRecord(r: Readonly<Record<string, string>>, redact: Redact): Record<string, string> {
  // Keys may be chain text (`__proto__` is an ordinary key here).
  return record(Object.entries(r).map(([k, v]) => [redact(k), redact(v)] as const));
}

/**
 * Whether any of these texts holds a secret: one pass over them joined, instead of one per
 * text (a join can only add matches, never hide one). Almost always none does.
 */
function anySecret(texts: readonly string[], redact: Redact): boolean {
  const all = texts.join('\u0000');
  return redact(all) !== all;
}

function recordTexts(r: Readonly<Record<string, string>>): string[] {
  // Not entries().flat(): at 1,000 alerts a poll (and their conditions) that showed in the profile.
  const out: string[] = [];
  for (const [key, value] of Object.entries(r)) out.push(key, value);
  return out;
}

/**
 * A condition with every text scrubbed, its key too: applied before the lifecycle, so the
 * key stored with its active alert is the one the next evaluation brings.
 */
export function scrubCondition(c: Condition, redact: Redact): Condition {
  const texts = [c.key, c.subject, c.summary, c.resolvedSummary ?? '', c.tier ?? '', ...recordTexts(c.labels), ...recordTexts(c.details)];
  if (!anySecret(texts, redact)) return c;
  return {
    ...c,
    key: redact(c.key),
    subject: redact(c.subject),
    summary: redact(c.summary),
    ...(c.resolvedSummary === undefined ? {} : { resolvedSummary: redact(c.resolvedSummary) }),
    labels: scrubRecord(c.labels, redact),
    details: scrubRecord(c.details, redact),
    ...(c.tier === undefined ? {} : { tier: redact(c.tier) }),
  };
}

/** The present a kind gives for a condition that stops holding (stored with its active alert). */
export function scrubResolution(r: Resolution | undefined, redact: Redact): Resolution | undefined {
  if (r === undefined || !anySecret([r.summary, ...recordTexts(r.details ?? {})], redact)) return r;
  return { summary: redact(r.summary), ...(r.details ? { details: scrubRecord(r.details, redact) } : {}) };
}

/** A notification (an event, or a state alert's) as it is queued and stored. */
export function scrubDraft(d: AlertDraft, redact: Redact): AlertDraft {
  if (!anySecret([d.subject, d.summary, d.conditionKey ?? '', ...recordTexts(d.labels), ...recordTexts(d.details)], redact)) return d;
  return {
    ...d,
    subject: redact(d.subject),
    summary: redact(d.summary),
    labels: scrubRecord(d.labels, redact),
    details: scrubRecord(d.details, redact),
    ...(d.conditionKey === undefined ? {} : { conditionKey: redact(d.conditionKey) }),
  };
}

/**
 * One entity's state as JSON, scrubbed. Almost always nothing matches and the state is
 * returned as it is; otherwise every string in it is scrubbed (not the JSON text, whose
 * structure a replacement could break) and the new state is returned with its JSON.
 */
export function scrubState(state: unknown, redact: Redact, json = JSON.stringify(state)): { state: unknown; json: string } {
  // Without a backslash no string was escaped, so each is in the text as it is and one
  // pass over the text finds what a pass over each would.
  if (!json.includes('\\') && redact(json) === json) return { state, json };
  const clean = deepScrub(state, redact);
  return { state: clean, json: JSON.stringify(clean) };
}

function deepScrub(value: unknown, redact: Redact): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((v) => deepScrub(v, redact));
  if (typeof value !== 'object' || value === null) return value;
  return record(Object.entries(value).map(([k, v]) => [redact(k), deepScrub(v, redact)] as const));
}
