import type { AlertMessage } from '../types.js';
import { keyDetails } from '../key-details.js';
import { clipEscaped, groupHead, groupTitle, groupWorst, mostUrgentFirst, oneLine, STATUS_WORD } from '../text.js';

/** Discord's documented limits on a message a webhook posts, in characters. */
export const DISCORD_LIMITS = {
  content: 2000,
  embeds: 10,
  /** title + description + field names and values + footer text (+ author name) across all embeds. */
  embedsTotal: 6000,
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
} as const;

const COLOR = { critical: 0xe01e5a, warning: 0xf2a900, info: 0x1d9bd1, resolved: 0x2eb67d } as const;
const SEVERITY_ICON = { critical: '🔴', warning: '🟠', info: '🔵' } as const;
const RESOLVED_ICON = '✅';
/** The content line is a notification's preview: short. */
const CONTENT_MAX = 500;

export interface DiscordEmbed {
  title: string;
  description?: string;
  color: number;
  fields: Array<{ name: string; value: string; inline: boolean }>;
  footer: { text: string };
  timestamp: string;
}

export interface DiscordPayload {
  content: string;
  embeds: DiscordEmbed[];
  /** Nothing in a message can ping anyone, whatever its text says. */
  allowed_mentions: { parse: [] };
}

/**
 * Markdown that Discord reads in content, titles, descriptions and fields, escaped with a
 * backslash (Discord shows any escaped punctuation as itself): bold, italics, strike,
 * spoilers, code, quotes, headings, lists, masked links and `<…>` mentions, channels and
 * timestamps; `:` so no URL auto-links and no `:emoji:` resolves. `@` gets a zero-width
 * space after it, so `@everyone`, `@here` and `<@123>` are never a mention, even where an
 * escape would not count.
 */
export function escapeDiscord(ch: string): string {
  if (ch === '@') return '@\u200b';
  return /^[\\*_~`|>#\-[\]()<:.+]$/.test(ch) ? `\\${ch}` : ch;
}

/** Chain text on one inert line, escaped, at most `max` characters as sent. */
export function discordLine(text: string, max: number): string {
  return clipEscaped(oneLine(text), max, escapeDiscord);
}

/** Characters an embed counts towards the 6,000 of a message. */
export function embedSize(e: DiscordEmbed): number {
  return e.title.length + (e.description?.length ?? 0) + e.footer.text.length + e.fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
}

/**
 * One message for a group of alerts (a group of one included): a content line to read in a
 * notification, and an embed per alert, the first ten; the rest are counted in the content
 * ("+N more"). Every text is within its limit, and the embeds share the 6,000.
 */
export function discordPayload(group: readonly AlertMessage[]): DiscordPayload {
  // The most urgent first: the ten embeds shown are never the calm ones of a larger group.
  const alerts = mostUrgentFirst(group);
  const shown = alerts.slice(0, DISCORD_LIMITS.embeds);
  const budget = Math.floor(DISCORD_LIMITS.embedsTotal / shown.length);
  const embeds = shown.map((a) => embed(a, budget, alerts.length > 1));
  const rest = alerts.length - shown.length;
  return { content: content(alerts, rest), embeds, allowed_mentions: { parse: [] } };
}

function content(alerts: readonly AlertMessage[], rest: number): string {
  const first = alerts[0] as AlertMessage;
  if (alerts.length === 1) {
    const icon = first.status === 'resolved' ? RESOLVED_ICON : SEVERITY_ICON[first.severity];
    return `${icon} **${STATUS_WORD[first.status]} ${first.severity.toUpperCase()}** · ${discordLine(first.rule, 100)}: ${discordLine(first.summary, CONTENT_MAX)}`;
  }
  const rules = [...new Set(alerts.map((a) => a.rule))].join(', ');
  const worst = groupWorst(alerts);
  const icon = worst ? SEVERITY_ICON[worst] : RESOLVED_ICON;
  // The notification's preview: the most urgent alert first, then how many and which rules.
  const title = groupTitle(alerts);
  const head = `${icon} **${title.word}**: ${discordLine(title.summary, CONTENT_MAX)}${title.more} · **${discordLine(groupHead(alerts), 200)}** · ${discordLine(rules, CONTENT_MAX)}`;
  return `${head}${rest > 0 ? `\n+${rest} not shown below` : ''}`;
}

/**
 * An embed within `budget` characters (and each text within its own limit): the footer and
 * title first, the full summary when the title cut it, then the facts in order while they
 * fit; facts left out are counted in the footer.
 */
function embed(a: AlertMessage, budget: number, grouped: boolean): DiscordEmbed {
  const L = DISCORD_LIMITS;
  const color = a.status === 'resolved' ? COLOR.resolved : COLOR[a.severity];
  const head = `${STATUS_WORD[a.status]} ${a.severity.toUpperCase()} · `;
  // In a group, the key details (the reward, the uptime) come first: a shared budget cuts the rest.
  const key = grouped ? keyDetails(a) : [];
  const rest = Object.entries(a.details).filter(([name]) => !key.some(([k]) => k === name));
  const all: Array<[string, string]> = [...key, ['Rule', a.rule], ['Severity', a.severity], ...rest];
  const facts = all.slice(0, L.fields);
  const skippedAlways = all.length - facts.length;
  // Room for the footer's "· N more details" however many are left out.
  const footerBase = `avawatch · ${oneLine(a.kind).slice(0, 100)}`;
  let left = budget - footerBase.length - ' · 9999 more details'.length;
  const title = head + discordLine(a.summary, Math.min(L.title, Math.max(head.length + 10, Math.floor(left / 2))) - head.length);
  left -= title.length;
  const full = discordLine(a.summary, Infinity);
  const out: DiscordEmbed = { title, color, fields: [], footer: { text: footerBase }, timestamp: a.at };
  if (head + full !== title) {
    out.description = discordLine(a.summary, Math.min(L.description, Math.max(20, Math.floor(left / 2))));
    left -= out.description.length;
  }
  let skipped = skippedAlways;
  for (const [i, [name, value]] of facts.entries()) {
    const fieldName = discordLine(name, L.fieldName) || '–';
    const room = left - fieldName.length;
    // A value cut to less than this is not worth showing: it and the facts after it are counted instead.
    if (room < Math.min(40, discordLine(value, L.fieldValue).length || 1)) {
      skipped += facts.length - i;
      break;
    }
    const fieldValue = discordLine(value, Math.min(L.fieldValue, room)) || '–';
    out.fields.push({ name: fieldName, value: fieldValue, inline: fieldValue.length <= 40 });
    left -= fieldName.length + fieldValue.length;
  }
  if (skipped > 0) out.footer.text = `${footerBase} · ${skipped} more details`;
  return out;
}
