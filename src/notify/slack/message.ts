import type { AlertMessage } from '../types.js';

/** Slack's three control characters; with them escaped, chain text cannot link, mention or format a link. */
export function escapeSlack(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

const SEVERITY_ICON = { critical: ':red_circle:', warning: ':large_orange_circle:', info: ':large_blue_circle:' } as const;
const STATUS_WORD = { firing: 'FIRING', resolved: 'RESOLVED', event: 'EVENT' } as const;
const MAX_FIELDS = 10; // Slack's limit per section
const MAX_FIELD_CHARS = 1900;

interface MrkdwnText {
  type: 'mrkdwn';
  text: string;
}

export interface SlackPayload {
  text: string;
  blocks: Array<
    | { type: 'section'; text: MrkdwnText }
    | { type: 'section'; fields: MrkdwnText[] }
    | { type: 'context'; elements: MrkdwnText[] }
  >;
}

/** Block Kit for one alert: what happened first, then rule, severity and the details. */
export function slackMessage(alert: AlertMessage): SlackPayload {
  const icon = alert.status === 'resolved' ? ':white_check_mark:' : SEVERITY_ICON[alert.severity];
  const head = `${STATUS_WORD[alert.status]} ${alert.severity.toUpperCase()}`;
  const summary = escapeSlack(alert.summary);
  const facts: Array<[string, string]> = [
    ['Rule', alert.rule],
    ['Severity', alert.severity],
    ...Object.entries(alert.details),
  ];
  const fields = facts.slice(0, MAX_FIELDS).map(([name, value]) => mrkdwn(`*${escapeSlack(name)}*\n${clip(escapeSlack(value))}`));
  const overflow = facts.slice(MAX_FIELDS).map(([name, value]) => `*${escapeSlack(name)}*: ${escapeSlack(value)}`);
  const seconds = Math.floor(Date.parse(alert.at) / 1000);
  const blocks: SlackPayload['blocks'] = [
    { type: 'section', text: mrkdwn(`${icon} *${head}* · ${summary}`) },
    { type: 'section', fields },
  ];
  if (overflow.length > 0) blocks.push({ type: 'section', text: mrkdwn(clip(overflow.join('\n'))) });
  blocks.push({
    type: 'context',
    elements: [mrkdwn(`avawatch · ${escapeSlack(alert.kind)} · <!date^${seconds}^{date_short_pretty} {time_secs}|${alert.at}>`)],
  });
  return { text: `[${head}] ${escapeSlack(alert.rule)}: ${summary}`, blocks };
}

const GROUP_LISTED = 10;

/** One message for a group: how many, what kind, and the first few, each on a line. */
export function slackGroupMessage(alerts: readonly AlertMessage[]): SlackPayload {
  const first = alerts[0] as AlertMessage;
  const rules = [...new Set(alerts.map((a) => a.rule))];
  const worst = (['critical', 'warning', 'info'] as const).find((s) => alerts.some((a) => a.severity === s)) ?? 'info';
  const head = `${alerts.length} alerts`;
  const lines = alerts
    .slice(0, GROUP_LISTED)
    .map((a) => `• ${STATUS_WORD[a.status]} ${a.severity.toUpperCase()}${rules.length > 1 ? ` ${escapeSlack(a.rule)}` : ''}: ${escapeSlack(a.summary)}`);
  if (alerts.length > GROUP_LISTED) lines.push(`…and ${alerts.length - GROUP_LISTED} more`);
  const seconds = Math.floor(Date.parse(first.at) / 1000);
  return {
    text: `[${head}] ${escapeSlack(rules.join(', '))}: ${escapeSlack(first.summary)} (+${alerts.length - 1} more)`,
    blocks: [
      { type: 'section', text: mrkdwn(`${SEVERITY_ICON[worst]} *${head}* · ${escapeSlack(rules.join(', '))}`) },
      { type: 'section', text: mrkdwn(clip(lines.join('\n'))) },
      { type: 'context', elements: [mrkdwn(`avawatch · ${escapeSlack([...new Set(alerts.map((a) => a.kind))].join(', '))} · <!date^${seconds}^{date_short_pretty} {time_secs}|${first.at}>`)] },
    ],
  };
}

function mrkdwn(text: string): MrkdwnText {
  return { type: 'mrkdwn', text };
}

function clip(text: string): string {
  return text.length <= MAX_FIELD_CHARS ? text : `${text.slice(0, MAX_FIELD_CHARS)}…`;
}
