import type { AlertMessage } from '../types.js';
import { clipEscaped, fitLines, groupHead, groupLine, groupTitle, groupWorst, mostUrgentFirst, oneLine, STATUS_WORD } from '../text.js';

/**
 * Telegram's limit on a message's text: 4,096 characters after entity parsing. The text as
 * sent (tags and entities counted in full) is kept within it, so it holds however Telegram
 * counts.
 */
export const TELEGRAM_TEXT_LIMIT = 4096;

const SEVERITY_ICON = { critical: '🔴', warning: '🟠', info: '🔵' } as const;
const RESOLVED_ICON = '✅';
/** A summary is cut here, a detail's value sooner: one long error must leave room for the rest. */
const SUMMARY_MAX = 1500;
const DETAIL_MAX = 600;
const GROUP_LINE_MAX = 300;
/** Lines of a group at most: a chat message is read on a phone. */
const GROUP_LISTED = 30;

/** The three characters HTML parse mode reads as markup; with them escaped, chain text is text. */
export function escapeTelegram(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** Chain text on one line, escaped, at most `max` characters as sent. */
function line(text: string, max: number): string {
  return clipEscaped(oneLine(text), max, escapeTelegram);
}

/** The text (HTML parse mode) of one message for a group of alerts, a group of one included. */
export function telegramText(alerts: readonly AlertMessage[]): string {
  return alerts.length === 1 ? single(alerts[0] as AlertMessage) : group(alerts);
}

function single(a: AlertMessage): string {
  const icon = a.status === 'resolved' ? RESOLVED_ICON : SEVERITY_ICON[a.severity];
  const head = [`${icon} <b>${STATUS_WORD[a.status]} ${a.severity.toUpperCase()}</b> · ${line(a.summary, SUMMARY_MAX)}`, `<b>Rule:</b> ${line(a.rule, 200)}`];
  const details = Object.entries(a.details).map(([name, value]) => `<b>${line(name, 100)}:</b> ${line(value, DETAIL_MAX) || '–'}`);
  const tail = [`<i>avawatch · ${line(a.kind, 100)} · ${line(a.at, 40)}</i>`];
  return fitLines(head, details, tail, TELEGRAM_TEXT_LIMIT, { more: (n) => `+${n} more details` });
}

function group(unsorted: readonly AlertMessage[]): string {
  // The most urgent first: lines cut for the limit are the calm ones.
  const alerts = mostUrgentFirst(unsorted);
  const rules = [...new Set(alerts.map((a) => a.rule))];
  const worst = groupWorst(alerts);
  const icon = worst ? SEVERITY_ICON[worst] : RESOLVED_ICON;
  // The first line is the notification's preview: the most urgent alert.
  const title = groupTitle(alerts);
  const head = [`${icon} <b>${title.word}</b>: ${line(title.summary, GROUP_LINE_MAX)}${title.more}`, `<b>${line(groupHead(alerts), 300)}</b> · ${line(rules.join(', '), 300)}`];
  const listed = alerts.slice(0, GROUP_LISTED).map((a) => `• ${line(groupLine(a, rules.length > 1), GROUP_LINE_MAX)}`);
  const kinds = [...new Set(alerts.map((a) => a.kind))].join(', ');
  const tail = [`<i>avawatch · ${line(kinds, 200)} · ${line((alerts[0] as AlertMessage).at, 40)}</i>`];
  return fitLines(head, listed, tail, TELEGRAM_TEXT_LIMIT, { hidden: alerts.length - listed.length });
}
