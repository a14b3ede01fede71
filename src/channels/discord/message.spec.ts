import { describe, expect, it } from 'vitest';
import { Secret } from '../../base/secret.js';
import type { AlertMessage } from '../types.js';
import { classify } from './index.js';
import { DISCORD_LIMITS as L, discordPayload, embedSize, type DiscordPayload } from './message.js';

const alert: AlertMessage = {
  alertId: 1,
  rule: 'my-validators',
  kind: 'validator-status',
  status: 'firing',
  severity: 'critical',
  subject: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg',
  summary: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg validation active → completed',
  labels: {},
  details: { Node: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', Change: 'active → completed' },
  at: '2026-01-01T00:00:05.000Z',
};

const HOSTILE = '**bold** __u__ ~~s~~ ||spoiler|| `code` > quote # head - list [x](https://evil.example) <@123> <@&456> <#789> @everyone @here :skull: line\r\nbreak';
const LONG = `HTTP 500: ${'the service said <nothing> & *more* '.repeat(300)}`;

/** Every text Discord renders as markdown, with where it sits. */
function texts(p: DiscordPayload): Array<[string, string]> {
  return [
    ['content', p.content],
    ...p.embeds.flatMap((e, i): Array<[string, string]> => [
      [`embed ${i} title`, e.title],
      ...(e.description === undefined ? [] : ([[`embed ${i} description`, e.description]] as Array<[string, string]>)),
      ...e.fields.flatMap((f, j): Array<[string, string]> => [
        [`embed ${i} field ${j} name`, f.name],
        [`embed ${i} field ${j} value`, f.value],
      ]),
    ]),
  ];
}

/** Checks every limit Discord enforces on a webhook message. */
function withinLimits(p: DiscordPayload): void {
  expect(p.content.length).toBeLessThanOrEqual(L.content);
  expect(p.embeds.length).toBeLessThanOrEqual(L.embeds);
  expect(p.embeds.reduce((n, e) => n + embedSize(e), 0)).toBeLessThanOrEqual(L.embedsTotal);
  for (const e of p.embeds) {
    expect(e.title.length).toBeLessThanOrEqual(L.title);
    expect(e.description?.length ?? 0).toBeLessThanOrEqual(L.description);
    expect(e.footer.text.length).toBeLessThanOrEqual(L.footer);
    expect(e.fields.length).toBeLessThanOrEqual(L.fields);
    for (const f of e.fields) {
      expect(f.name.length).toBeGreaterThan(0);
      expect(f.value.length).toBeGreaterThan(0);
      expect(f.name.length).toBeLessThanOrEqual(L.fieldName);
      expect(f.value.length).toBeLessThanOrEqual(L.fieldValue);
    }
  }
}

describe('Discord message', () => {
  it('a content line, and an embed with the facts, colour and time; nothing can mention', () => {
    expect(discordPayload([alert])).toEqual({
      content: '🔴 **FIRING CRITICAL** · my\\-validators: NodeID\\-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg validation active → completed',
      allowed_mentions: { parse: [] },
      embeds: [
        {
          title: 'FIRING CRITICAL · NodeID\\-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg validation active → completed',
          color: 0xe01e5a,
          fields: [
            { name: 'Rule', value: 'my\\-validators', inline: true },
            { name: 'Severity', value: 'critical', inline: true },
            { name: 'Node', value: 'NodeID\\-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', inline: false },
            { name: 'Change', value: 'active → completed', inline: true },
          ],
          footer: { text: 'avawatch · validator-status' },
          timestamp: '2026-01-01T00:00:05.000Z',
        },
      ],
    });
  });

  it('makes hostile chain text inert: every markdown character escaped, no mention, no link, one line', () => {
    const p = discordPayload([{ ...alert, summary: HOSTILE, details: { 'Reward token': HOSTILE } }]);
    for (const [where, text] of texts(p)) {
      // Outside avawatch's own ** in the content, each markdown character is escaped.
      const own = where === 'content' ? text.replace(/^🔴 \*\*FIRING CRITICAL\*\* · my\\-validators: /, '') : text;
      expect(own.replace(/\\[\\*_~`|>#\-[\]()<:.+]/g, ''), where).not.toMatch(/[*_~`|>#[\]()<:]/);
      expect(text, where).not.toMatch(/@(everyone|here)|<@[!&]?\d+>|<#\d+>|\r|\n/);
    }
    expect(JSON.stringify(p)).not.toMatch(/@everyone|@here|<@[!&]?\d+>|https:\/\//);
    expect(p.embeds[0]!.fields.find((f) => f.name === 'Reward token')!.value).toContain('\\<@\u200b123\\> \\<@\u200b&456\\> \\<\\#789\\> @\u200beveryone @\u200bhere \\:skull\\: line break');
  });

  it('stays within every limit with a 10,000-character error and forty details', () => {
    const details = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`Detail ${i}`, LONG]));
    const p = discordPayload([{ ...alert, summary: LONG, details }]);
    withinLimits(p);
    expect(p.embeds[0]!.title.endsWith('…')).toBe(true);
    expect(p.embeds[0]!.description!.endsWith('…')).toBe(true);
    expect(p.embeds[0]!.footer.text).toMatch(/^avawatch · validator-status · \d+ more details$/);
  });

  it('a storm: ten embeds within 6,000 characters, the rest counted in the content', () => {
    const alerts = Array.from({ length: 200 }, (_, i) => ({ ...alert, alertId: i, summary: `${HOSTILE} ${i} ${LONG}`, details: { Error: LONG } }));
    const p = discordPayload(alerts);
    withinLimits(p);
    expect(p.embeds).toHaveLength(10);
    const [first, ...rest] = p.content.split('\n');
    expect(first).toMatch(/^🔴 \*\*CRITICAL\*\*: .*… \(\+199 more\) · \*\*200 alerts\*\* · my\\-validators$/);
    expect(rest).toEqual(['+190 not shown below']);
  });
});

describe('Discord message: colours, counts and cuts', () => {
  it('the colour and icon: red critical, amber warning, blue info, green resolved', () => {
    const one = (a: Partial<AlertMessage>) => discordPayload([{ ...alert, ...a }]);
    expect(one({ severity: 'warning' }).embeds[0]!.color).toBe(0xf2a900);
    expect(one({ severity: 'info' }).embeds[0]!.color).toBe(0x1d9bd1);
    expect(one({ status: 'resolved' }).embeds[0]!.color).toBe(0x2eb67d);
    expect(one({ status: 'resolved' }).content).toMatch(/^✅ \*\*RESOLVED CRITICAL\*\* · /);
    expect(one({ severity: 'warning' }).content).toMatch(/^🟠 \*\*FIRING WARNING\*\* · /);
    expect(discordPayload([{ ...alert, severity: 'info' }, { ...alert, severity: 'info', alertId: 2 }]).content).toMatch(/^🔵 \*\*INFO\*\*: /);
    expect(discordPayload([{ ...alert, status: 'resolved' }, { ...alert, status: 'resolved', alertId: 2 }]).content).toMatch(/^✅ \*\*RESOLVED\*\*: /);
  });

  it('a value of 40 characters is inline, 41 is not; an empty one shows as a dash', () => {
    const fields = discordPayload([{ ...alert, details: { A: 'a'.repeat(40), B: 'b'.repeat(41), C: '' } }]).embeds[0]!.fields;
    expect(fields.slice(2)).toEqual([
      { name: 'A', value: 'a'.repeat(40), inline: true },
      { name: 'B', value: 'b'.repeat(41), inline: false },
      { name: 'C', value: '–', inline: true },
    ]);
  });

  it('25 fields at most; those past it are counted in the footer', () => {
    const details = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`D${i}`, `v${i}`]));
    const e = discordPayload([{ ...alert, details }]).embeds[0]!;
    expect(e.fields).toHaveLength(25);
    expect(e.fields.at(-1)).toEqual({ name: 'D22', value: 'v22', inline: true });
    expect(e.footer.text).toBe('avawatch · validator-status · 7 more details');
    const exactly = discordPayload([{ ...alert, details: Object.fromEntries(Array.from({ length: 23 }, (_, i) => [`D${i}`, `v${i}`])) }]).embeds[0]!;
    expect(exactly.fields).toHaveLength(25);
    expect(exactly.footer.text).toBe('avawatch · validator-status');
  });

  it('a group of ten shows ten embeds and no "not shown" line; in a group the key details come first', () => {
    const ten = Array.from({ length: 10 }, (_, i) => ({ ...alert, alertId: i, kind: 'validator-health', details: { Node: 'N', Uptime: `8${i}%` } }));
    const p = discordPayload(ten);
    expect(p.embeds).toHaveLength(10);
    expect(p.content).not.toContain('\n');
    expect(p.embeds[0]!.fields.map((f) => f.name)).toEqual(['Uptime', 'Rule', 'Severity', 'Node']);
    expect(discordPayload([ten[0]!]).embeds[0]!.fields.map((f) => f.name)).toEqual(['Rule', 'Severity', 'Node', 'Uptime']);
  });

  it('escapes exactly the markdown characters', () => {
    const p = discordPayload([{ ...alert, summary: 'a\\b*c_d~e`f|g>h#i-j[k]l(m)n<o:p.q+r@s!t,u/v=w' }]);
    expect(p.embeds[0]!.title).toBe('FIRING CRITICAL · a\\\\b\\*c\\_d\\~e\\`f\\|g\\>h\\#i\\-j\\[k\\]l\\(m\\)n\\<o\\:p\\.q\\+r@\u200bs!t,u/v=w');
  });
});

describe('Discord errors', () => {
  const url = new Secret('https://discord.com/api/webhooks/123456789012345678/SeCrEtWebhookToken_abcdefXYZ123');
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers: new Headers(headers), text: typeof body === 'string' ? body : JSON.stringify(body) });

  it('429 waits retry_after (seconds, a float) from the body, else X-RateLimit-Reset-After', () => {
    expect(classify('p', answer(204, ''), url)).toBeUndefined();
    expect(classify('p', answer(429, { message: 'You are being rate limited.', retry_after: 1.234, global: false }, { 'retry-after': '2' }), url)).toMatchObject({
      retryable: true,
      retryAfterMs: 1234,
      message: 'p: HTTP 429: You are being rate limited.',
    });
    expect(classify('p', answer(429, '', { 'x-ratelimit-reset-after': '0.5', 'retry-after': '1' }), url)).toMatchObject({ retryAfterMs: 500 });
  });

  it('400, 401, 403 and 404 are permanent, with Discord\'s message and the first invalid field', () => {
    expect(classify('p', answer(404, { message: 'Unknown Webhook', code: 10015 }), url)).toMatchObject({ retryable: false, reason: 'http_404', message: 'p: HTTP 404: Unknown Webhook (code 10015)' });
    const invalid = { code: 50035, errors: { embeds: { '0': { description: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 4096 or fewer in length.' }] } } } }, message: 'Invalid Form Body' };
    expect(classify('p', answer(400, invalid), url)?.message).toBe('p: HTTP 400: Invalid Form Body (code 50035): embeds.0.description: Must be 4096 or fewer in length.');
    expect(classify('p', answer(401, { message: '401: Unauthorized', code: 0 }), url)).toMatchObject({ retryable: false });
    expect(classify('p', answer(503, 'upstream connect error'), url)).toMatchObject({ retryable: true, message: 'p: HTTP 503 (body not shown)' });
  });

  it('never shows the webhook token, even when the answer quotes it', () => {
    const e = classify('p', answer(404, { message: 'Unknown Webhook /api/webhooks/123456789012345678/SeCrEtWebhookToken_abcdefXYZ123', code: 10015 }), url);
    expect(e?.message).not.toContain('SeCrEtWebhookToken_abcdefXYZ123');
    expect(e?.message).toContain('<secret>');
    // Quoted where the 120-character cut falls: no part of the token is left either.
    const padded = classify('p', answer(401, { message: `${'x'.repeat(70)} /api/webhooks/123456789012345678/SeCrEtWebhookToken_abcdefXYZ123`, code: 0 }), url);
    expect(padded?.message).not.toMatch(/SeCrEt|123456789012345678/);
  });
});
