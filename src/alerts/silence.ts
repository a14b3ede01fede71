import { WEEKDAYS, type TimeIntervalConfig } from '../config/schema.js';
import type { Matcher, Silence } from '../store/index.js';

/** `name=value` or `name=~regex` (anchored), as `avawatch silence add --match` takes them. */
export function parseMatcher(text: string): Matcher {
  const m = /^([a-zA-Z_][a-zA-Z0-9_]*)(=~|=)(.*)$/.exec(text);
  if (!m) throw new Error(`"${text}" is not a matcher: write name=value or name=~regex`);
  const [, name, op, value] = m as unknown as [string, string, string, string];
  if (op === '=~') new RegExp(`^(?:${value})$`); // throws on a bad regex
  return { name, value, regex: op === '=~' };
}

export function formatMatcher(m: Matcher): string {
  return `${m.name}${m.regex ? '=~' : '='}${m.value}`;
}

export function silenceMatches(s: Pick<Silence, 'matchers'>, labels: Record<string, string>): boolean {
  return s.matchers.every((m) => {
    const value = labels[m.name] ?? '';
    return m.regex ? new RegExp(`^(?:${m.value})$`).test(value) : value === m.value;
  });
}

/** Inside the named window at `now`, on the clock of its location? */
export function inTimeInterval(ti: Pick<TimeIntervalConfig, 'weekdays' | 'times'> & { location?: string }, now: Date): boolean {
  const { day, minute } = wallClock(now, ti.location ?? 'UTC');
  if (ti.weekdays && !ti.weekdays.some((w) => dayInRange(w, day))) return false;
  if (!ti.times) return true;
  return ti.times.some(({ start, end }) => minute >= toMinute(start) && minute < toMinute(end));
}

/** Weekday (0 = Sunday) and minute of the day at `now` in a time zone. */
function wallClock(now: Date, timeZone: string): { day: number; minute: number } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(now);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(get('weekday'));
  return { day, minute: Number(get('hour')) * 60 + Number(get('minute')) };
}

function dayInRange(spec: string, day: number): boolean {
  const [first, last] = spec.split(':');
  const from = WEEKDAYS.indexOf(first as (typeof WEEKDAYS)[number]);
  const to = last === undefined ? from : WEEKDAYS.indexOf(last as (typeof WEEKDAYS)[number]);
  if (from < 0 || to < 0) return false;
  return from <= to ? day >= from && day <= to : day >= from || day <= to;
}

function toMinute(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
}
