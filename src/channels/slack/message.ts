import type { AlertMessage } from '../types.js';
import { groupHead, groupLine, groupTitle, groupWorst, mostUrgentFirst, STATUS_WORD } from '../text.js';

/** Slack's three control characters; with them escaped, text cannot link, mention or format a link. */
export function escapeSlack(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/**
 * Slack's limits on a text object, in characters as sent (entities count in full): longer
 * and Slack refuses the whole message with invalid_blocks. `text` is the notification text
 * (Slack cuts it at 4,000).
 */
export const SLACK_LIMITS = { header: 150, section: 3000, field: 2000, text: 3000 } as const;

// Unicode, not :shortcodes:: the header is plain_text with emoji off, so chain text in it stays text.
const SEVERITY_ICON = { critical: '🔴', warning: '🟠', info: '🔵' } as const;
const RESOLVED_ICON = '✅';
/** Facts per section: a field for the name and one for the value, two columns, Slack's 10 fields. */
const FACTS_PER_SECTION = 5;
/** Sections of facts at most (Slack allows 50 blocks); further facts are counted in the context. */
const MAX_FACT_SECTIONS = 8;

/** Text Slack shows as it is: no markup, no mention, no link, no :emoji:. */
export interface PlainText {
  type: 'plain_text';
  text: string;
  emoji: false;
}

/** avawatch's own markup (field names, the date), never chain text; verbatim: no auto-linking. */
export interface Mrkdwn {
  type: 'mrkdwn';
  text: string;
  verbatim: true;
}

export interface SlackPayload {
  text: string;
  /** A URL in chain text never gets a preview. */
  unfurl_links: false;
  unfurl_media: false;
  blocks: Array<
    | { type: 'header'; text: PlainText }
    | { type: 'section'; text: PlainText }
    | { type: 'section'; fields: Array<PlainText | Mrkdwn> }
    | { type: 'context'; elements: Mrkdwn[] }
  >;
}

/**
 * Chain text as one inert line: line breaks and other control characters become spaces
 * (so a token name cannot start a fake field), `& < >` are escaped, and the result is at
 * most `max` characters, the last one a visible … when it was cut.
 */
export function slackLine(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return clipEscaped(flat, max);
}

/** Block Kit for one alert: what happened first, then rule, severity and the details. */
export function slackMessage(alert: AlertMessage): SlackPayload {
  const icon = alert.status === 'resolved' ? RESOLVED_ICON : SEVERITY_ICON[alert.severity];
  const head = `${STATUS_WORD[alert.status]} ${alert.severity.toUpperCase()}`;
  const summary = slackLine(alert.summary, SLACK_LIMITS.section);
  const headline = `${icon} ${head} · ${alert.summary}`;
  const header = slackLine(headline, SLACK_LIMITS.header);
  const facts: Array<[string, string]> = [['Rule', alert.rule], ['Severity', alert.severity], ...Object.entries(alert.details)];
  const shown = facts.slice(0, FACTS_PER_SECTION * MAX_FACT_SECTIONS);
  const blocks: SlackPayload['blocks'] = [{ type: 'header', text: plain(header) }];
  // The header holds the summary when it fits; a longer one is shown in full below it.
  if (header !== slackLine(headline, Infinity)) blocks.push({ type: 'section', text: plain(summary) });
  for (let i = 0; i < shown.length; i += FACTS_PER_SECTION) {
    const fields = shown
      .slice(i, i + FACTS_PER_SECTION)
      .flatMap(([name, value]) => [mrkdwn(`*${slackLine(name, SLACK_LIMITS.field - 2)}*`), plain(slackLine(value, SLACK_LIMITS.field))]);
    blocks.push({ type: 'section', fields });
  }
  const more = facts.length - shown.length;
  blocks.push({ type: 'context', elements: [mrkdwn(`avawatch · ${slackLine(alert.kind, 200)}${more > 0 ? ` · ${more} more details not shown` : ''} · ${dateToken(alert.at)}`)] });
  return { text: slackLine(`[${head}] ${alert.rule}: ${alert.summary}`, SLACK_LIMITS.text), unfurl_links: false, unfurl_media: false, blocks };
}

const GROUP_LISTED = 10;
/** Each listed alert's line: ten of them and the "…and N more" line stay within a section. */
const GROUP_LINE = Math.floor((SLACK_LIMITS.section - 40) / GROUP_LISTED);

/**
 * One message for a group: the header and the push text lead with the most urgent alert
 * ("🔴 CRITICAL: alpha validation ended without a reward (+3 more)"), then the most urgent
 * few, each on a line with its key details; how many and which rules in the context.
 */
export function slackGroupMessage(group: readonly AlertMessage[]): SlackPayload {
  const alerts = mostUrgentFirst(group);
  const first = alerts[0] as AlertMessage;
  const rules = [...new Set(alerts.map((a) => a.rule))];
  // The colour is the worst still firing (or news); a group only of resolutions is resolved.
  const worst = groupWorst(alerts);
  const icon = worst ? SEVERITY_ICON[worst] : RESOLVED_ICON;
  const title = groupTitle(alerts);
  const head = `${icon} ${title.word}: `;
  const headline = (max: number) => `${head}${slackLine(title.summary, max - head.length - title.more.length)}${title.more}`;
  const lines = alerts.slice(0, GROUP_LISTED).map((a) => slackLine(`• ${groupLine(a, rules.length > 1)}`, GROUP_LINE));
  if (alerts.length > GROUP_LISTED) lines.push(`…and ${alerts.length - GROUP_LISTED} more`);
  const kinds = [...new Set(alerts.map((a) => a.kind))].join(', ');
  return {
    text: headline(SLACK_LIMITS.text),
    unfurl_links: false,
    unfurl_media: false,
    blocks: [
      { type: 'header', text: plain(headline(SLACK_LIMITS.header)) },
      { type: 'section', text: plain(lines.join('\n')) },
      { type: 'context', elements: [mrkdwn(`avawatch · ${slackLine(kinds, 200)} · ${slackLine(`${groupHead(alerts)} · ${rules.join(', ')}`, 400)} · ${dateToken(first.at)}`)] },
    ],
  };
}

/** The time in the reader's time zone; the ISO time where Slack cannot format it. */
function dateToken(at: string): string {
  const seconds = Math.floor(Date.parse(at) / 1000);
  return `<!date^${seconds}^{date_short_pretty} {time_secs}|${escapeSlack(at)}>`;
}

/** Slack refuses an empty text object. */
function plain(text: string): PlainText {
  return { type: 'plain_text', text: text === '' ? '–' : text, emoji: false };
}

function mrkdwn(text: string): Mrkdwn {
  return { type: 'mrkdwn', text, verbatim: true };
}

/** Escapes, then cuts to `max` characters with … without splitting an entity or a surrogate pair. */
function clipEscaped(text: string, max: number): string {
  const escaped = escapeSlack(text);
  if (escaped.length <= max) return escaped;
  let out = '';
  for (const ch of text) {
    const piece = escapeSlack(ch);
    if (out.length + piece.length > max - 1) break;
    out += piece;
  }
  return `${out}…`;
}
