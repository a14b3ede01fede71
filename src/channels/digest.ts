import { Cron } from 'croner';
import { z } from 'zod';
import { durationMs } from '../base/fields.js';
import { formatDuration } from '../base/duration.js';
import { SEVERITIES, type AlertMessage, type Severity } from '../base/types.js';

// A receiver's digest: notifications of the chosen severities wait in the outbox until the
// next slot, then go out as one message, grouped by rule with counts.

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Rules listed one by one in a digest; the rest are counted. */
const MAX_RULES = 20;
/** Summaries quoted per rule. */
const SAMPLES = 3;
/** A digest's interval: a whole number of hours that divides a day. */
const EVERY_HOURS = [1, 2, 3, 4, 6, 8, 12, 24];

export const digestSchema = z
  .strictObject({
    /** The severities that wait for the digest; the others are sent at once. */
    severities: z.array(z.enum(SEVERITIES)).min(1).default(['info']),
    /** A whole number of hours that divides a day (1h, 2h, 3h, 4h, 6h, 8h, 12h, 24h). */
    every: durationMs.default(DAY_MS),
    /** The first slot of each day, HH:MM in `location`. */
    at: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected HH:MM (24-hour), e.g. "09:00"')
      .default('09:00'),
    /** An IANA time zone, e.g. Europe/Paris. */
    location: z
      .string()
      .refine(isTimeZone, { error: (issue) => `"${String(issue.input)}" is not a time zone known to this system (an IANA name such as Europe/Paris or UTC)` })
      .default('UTC'),
  })
  .refine((d) => EVERY_HOURS.includes(d.every / HOUR_MS), {
    path: ['every'],
    message: 'must be a whole number of hours that divides a day: 1h, 2h, 3h, 4h, 6h, 8h, 12h or 24h',
  });
export type DigestConfig = z.output<typeof digestSchema>;

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The cron pattern of a digest's slots: `at`, then every `every` through the day. */
export function digestPattern(d: DigestConfig): string {
  const [hour, minute] = d.at.split(':').map(Number) as [number, number];
  const step = d.every / HOUR_MS;
  const hours = Array.from({ length: 24 / step }, (_, i) => (hour + i * step) % 24).sort((a, b) => a - b);
  return `0 ${minute} ${hours.join(',')} * * *`;
}

/** The next slot strictly after `now` (unix ms), on the wall clock of `location` (DST included). */
export function nextDigestAt(d: DigestConfig, now: number): number {
  const next = new Cron(digestPattern(d), { timezone: d.location, paused: true }).nextRun(new Date(now));
  if (!next) throw new Error(`digest ${digestPattern(d)} in ${d.location} has no next slot`);
  return next.getTime();
}

/** Does a notification of this severity wait for the receiver's digest? */
export function digestSlot(d: DigestConfig | undefined, severity: string, now: number): number | undefined {
  return d && (d.severities as readonly string[]).includes(severity) ? nextDigestAt(d, now) : undefined;
}

/** The one message a digest sends: counts by rule, the latest summaries of each. */
export function digestMessage(receiver: string, messages: readonly AlertMessage[], d: DigestConfig | undefined): AlertMessage {
  const byRule = new Map<string, AlertMessage[]>();
  for (const m of messages) byRule.set(m.rule, [...(byRule.get(m.rule) ?? []), m]);
  const rules = [...byRule.entries()].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1));
  const details: Record<string, string> = {};
  for (const [rule, list] of rules.slice(0, MAX_RULES)) {
    const latest = list.slice(-SAMPLES).reverse().map((m) => `${statusWord(m)} ${m.summary}`);
    const more = list.length > SAMPLES ? ` (+${list.length - SAMPLES} more)` : '';
    details[`${rule}: ${list.length}`] = `${latest.join(' · ')}${more}`;
  }
  if (rules.length > MAX_RULES) {
    const rest = rules.slice(MAX_RULES).reduce((n, [, list]) => n + list.length, 0);
    details['Other rules'] = `${rest} notification(s) of ${rules.length - MAX_RULES} more rule(s)`;
  }
  const first = messages.reduce((min, m) => (m.at < min ? m.at : min), messages[0]?.at ?? new Date(0).toISOString());
  const counts = rules.map(([rule, list]) => `${rule} ${list.length}`).join(', ');
  const period = d ? `every ${formatDuration(d.every)} at ${d.at} ${d.location}` : 'digest';
  return {
    alertId: messages[messages.length - 1]?.alertId ?? 0,
    rule: 'digest',
    kind: 'digest',
    status: 'event',
    severity: highest(messages.map((m) => m.severity)),
    subject: `${messages.length} notification(s)`,
    summary: `Digest for ${receiver}: ${messages.length} notification(s) since ${first} (${counts})`,
    labels: { alertname: 'digest', receiver },
    details: { ...details, Digest: period },
    at: messages[messages.length - 1]?.at ?? new Date(0).toISOString(),
  };
}

function statusWord(m: AlertMessage): string {
  return m.status === 'event' ? '•' : m.status === 'firing' ? '[firing]' : '[resolved]';
}

function highest(severities: readonly Severity[]): Severity {
  return SEVERITIES.reduce<Severity>((top, s) => (severities.includes(s) ? s : top), severities[0] ?? 'info');
}
