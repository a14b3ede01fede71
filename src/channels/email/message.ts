import type { AlertMessage } from '../types.js';
import { groupHead, mostUrgentFirst } from '../text.js';

const STATUS_WORD = { firing: 'FIRING', resolved: 'RESOLVED', event: 'EVENT' } as const;

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

/** One mail for a group of alerts, the most urgent first (its subject leads with it); a group of one reads as that alert alone. */
export function emailMessage(group: readonly AlertMessage[]): EmailContent {
  if (group.length === 1) return oneAlert(group[0] as AlertMessage);
  const alerts = mostUrgentFirst(group);
  const rules = [...new Set(alerts.map((a) => a.rule))].join(', ');
  const first = alerts[0] as AlertMessage;
  const subject = oneLine(`[${groupHead(alerts)}] ${rules}: ${first.summary} (+${alerts.length - 1} more)`).slice(0, 250);
  const parts = alerts.slice(0, GROUP_LISTED).map(oneAlert);
  const more = alerts.length > GROUP_LISTED ? `…and ${alerts.length - GROUP_LISTED} more` : '';
  return {
    subject,
    text: [`${groupHead(alerts)} (${rules})`, '', ...parts.map((p) => p.text.replace(/\n-- avawatch$/, '')), more].join('\n\n'),
    html: `<!doctype html>\n<html><body style="font-family:sans-serif">\n<p><strong>${escapeHtml(groupHead(alerts))}</strong> (${escapeHtml(rules)})</p>\n${parts
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
