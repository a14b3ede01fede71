import type { AlertMessage } from '../types.js';
import { groupHead, groupLine, groupTitle, groupWorst, mostUrgentFirst, STATUS_WORD } from '../text.js';


export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** One line: control characters (CR, LF) from chain text can never start a new header. */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

const GROUP_LISTED = 50;
/** A group's colour, the worst still firing (resolved: green), as the chat channels show it. */
const COLOUR = { critical: '#e01e5a', warning: '#f2a900', info: '#1d9bd1', resolved: '#2eb67d' } as const;

/** One mail for a group of alerts, the most urgent first (its subject leads with it); a group of one reads as that alert alone. */
export function emailMessage(group: readonly AlertMessage[]): EmailContent {
  if (group.length === 1) return oneAlert(group[0] as AlertMessage);
  const alerts = mostUrgentFirst(group);
  const ruleList = [...new Set(alerts.map((a) => a.rule))];
  const rules = ruleList.join(', ');
  const title = groupTitle(alerts);
  // The subject leads with the most urgent alert: what a mail list shows.
  const subject = `${oneLine(`[${title.word}] ${title.summary}`).slice(0, 250 - title.more.length)}${title.more}`;
  const listed = alerts.slice(0, GROUP_LISTED);
  const parts = listed.map(oneAlert);
  const lines = listed.map((a) => oneLine(groupLine(a, ruleList.length > 1)));
  const more = alerts.length > GROUP_LISTED ? `…and ${alerts.length - GROUP_LISTED} more` : '';
  const worst = groupWorst(alerts);
  const colour = worst ? COLOUR[worst] : COLOUR.resolved;
  return {
    subject,
    text: [`${groupHead(alerts)} (${rules})\n${lines.map((l) => `- ${l}`).join('\n')}`, ...parts.map((p) => p.text.replace(/\n-- avawatch$/, '')), more].join('\n\n'),
    html: `<!doctype html>\n<html><body style="font-family:sans-serif">\n<p style="border-left:4px solid ${colour};padding-left:8px"><strong>${escapeHtml(groupHead(alerts))}</strong> (${escapeHtml(rules)})</p>\n<ul>\n${lines
      .map((l) => `<li>${escapeHtml(l)}</li>`)
      .join('\n')}\n</ul><hr>\n${parts
      .map((p) => p.html.replace(/^[\s\S]*?<body[^>]*>/, '').replace(/<\/body><\/html>$/, ''))
      .join('<hr>\n')}${more ? `<p>${escapeHtml(more)}</p>` : ''}\n</body></html>`,
  };
}

/** Subject with status, severity and summary; a plain-text part and an HTML part with the same facts. */
function oneAlert(alert: AlertMessage): EmailContent {
  const head = `${STATUS_WORD[alert.status]} ${alert.severity.toUpperCase()}`;
  const subject = oneLine(`[${head}] ${alert.rule}: ${alert.summary}`).slice(0, 250);
  const facts: Array<[string, string]> = [['Rule', alert.rule], ['Severity', alert.severity], ...Object.entries(alert.details), ['When', alert.at]];
  const text = [`${head}: ${oneLine(alert.summary)}`, '', ...facts.map(([k, v]) => `${oneLine(k)}: ${oneLine(v)}`), '', '-- avawatch'].join('\n');
  const rows = facts
    .map(([k, v]) => `<tr><th style="text-align:left;padding:2px 12px 2px 0">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
    .join('\n');
  const html = `<!doctype html>
<html><body style="font-family:sans-serif">
<p><strong>${escapeHtml(head)}</strong>: ${escapeHtml(alert.summary)}</p>
<table>
${rows}
</table>
<p style="color:#888">avawatch · ${escapeHtml(alert.kind)}</p>
</body></html>`;
  return { subject, text, html };
}
