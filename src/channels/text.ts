import { keyDetails } from './key-details.js';

// Text helpers for the chat channels (Telegram, Discord): chain text on one inert line, cut
// to a provider's limit after escaping, and lists that end in "+N more" instead of overflowing.

/**
 * Chain text as one line: CR, LF and the other control characters (and Unicode line and
 * paragraph separators) become a space, so a token name can never start a line of its own.
 */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
}

/**
 * `text` escaped character by character (`escape` sees one character, a surrogate pair
 * whole) and cut to at most `max` UTF-16 units (what the providers count, and never fewer
 * than they count), the last one a visible … when it was cut. An escape sequence or a
 * surrogate pair is never split.
 */
export function clipEscaped(text: string, max: number, escape: (ch: string) => string): string {
  let out = '';
  let cut = false;
  const pieces = [...text].map(escape);
  const whole = pieces.join('');
  if (whole.length <= max) return whole;
  for (const piece of pieces) {
    if (out.length + piece.length > max - 1) {
      cut = true;
      break;
    }
    out += piece;
  }
  return cut ? `${out}…` : out;
}

/**
 * Lines joined with \n, at most `max` units in all: every `head` and `tail` line, and as many
 * `items` as fit between them; when some do not (or `hidden` more were never listed), a
 * last item line says how many are left (`more(n)`, "+N more"). The head and tail must fit
 * with room for that line.
 */
export function fitLines(
  head: readonly string[],
  items: readonly string[],
  tail: readonly string[],
  max: number,
  o: { more?: (n: number) => string; hidden?: number } = {},
): string {
  const more = o.more ?? ((n: number) => `+${n} more`);
  const hidden = o.hidden ?? 0;
  const size = (lines: readonly string[]): number => lines.reduce((sum, l) => sum + l.length + 1, 0) - (lines.length > 0 ? 1 : 0);
  const shown: string[] = [];
  for (const [i, item] of items.entries()) {
    const left = items.length - i - 1 + hidden;
    // Room for this item, and for the "+N more" line should a later one not fit.
    const reserve = left > 0 ? more(left).length + 1 : 0;
    if (size([...head, ...shown, item, ...tail]) + reserve > max) return [...head, ...shown, more(items.length - i + hidden), ...tail].join('\n');
    shown.push(item);
  }
  return [...head, ...shown, ...(hidden > 0 ? [more(hidden)] : []), ...tail].join('\n');
}

/**
 * A group's head: how many alerts, and the validator when they are all about one (the
 * shipped grouping by `validator`: "alpha: 4 alerts"). Inventory names are config text.
 */
export function groupHead(alerts: ReadonlyArray<{ status: string; labels: Record<string, string> }>): string {
  const validator = alerts[0]?.labels['validator'];
  const one = validator !== undefined && validator !== '' && alerts.every((a) => a.labels['validator'] === validator);
  // All resolved: "4 alerts" on a phone reads as four new problems.
  const count = `${alerts.length} ${alerts.every((a) => a.status === 'resolved') ? 'resolved' : 'alerts'}`;
  return one ? `${validator}: ${count}` : count;
}

const SEVERITY_RANK: Record<string, number> = { critical: 0, warning: 1, info: 2 };

/**
 * A group's alerts, the most urgent first (what a notification preview and a cut list must
 * not hide): firing and events before resolved, then critical, warning, info; otherwise in
 * the order they came.
 */
export function mostUrgentFirst<A extends { status: string; severity: string }>(alerts: readonly A[]): A[] {
  const rank = (a: A): number => (a.status === 'resolved' ? 10 : 0) + (SEVERITY_RANK[a.severity] ?? 3);
  return [...alerts].sort((a, b) => rank(a) - rank(b));
}

/** How each channel names an alert's status. */
export const STATUS_WORD = { firing: 'FIRING', resolved: 'RESOLVED', event: 'EVENT' } as const;

type Listed = { status: string; severity: string; summary: string; rule: string; kind: string; details: Record<string, string> };

/** A group's worst severity still firing (or news); undefined when every alert is resolved. */
export function groupWorst(alerts: ReadonlyArray<{ status: string; severity: string }>): 'critical' | 'warning' | 'info' | undefined {
  return (['critical', 'warning', 'info'] as const).find((s) => alerts.some((a) => a.severity === s && a.status !== 'resolved'));
}

/**
 * A group's title, what a phone shows of it (push text, subject, first line): the most
 * urgent alert's severity and summary, and how many more: "CRITICAL: alpha validation ended
 * without a reward (+3 more)"; "RESOLVED: …" when all are resolved. Not escaped.
 */
export function groupTitle(alerts: readonly Listed[]): { word: string; summary: string; more: string } {
  const sorted = mostUrgentFirst(alerts);
  const worst = groupWorst(sorted);
  return {
    word: worst ? worst.toUpperCase() : 'RESOLVED',
    summary: sorted[0]?.summary ?? '',
    // Kept when the summary is cut to fit: the count is part of the news.
    more: sorted.length > 1 ? ` (+${sorted.length - 1} more)` : '',
  };
}

/**
 * One alert's line in a grouped post, not escaped: status, severity, (rule), summary, and
 * the key details its kind declares ("· Validation reward: 22.9 AVAX").
 */
export function groupLine(a: Listed, withRule: boolean): string {
  const status = STATUS_WORD[a.status as keyof typeof STATUS_WORD] ?? a.status.toUpperCase();
  const facts = keyDetails(a).map(([name, value]) => ` · ${name}: ${value}`).join('');
  return `${status} ${a.severity.toUpperCase()}${withRule ? ` ${a.rule}` : ''}: ${a.summary}${facts}`;
}
