import { describe, expect, it } from 'vitest';
import type { AlertMessage } from '../types.js';
import { escapeSlack, slackGroupMessage, slackMessage, type SlackPayload } from './message.js';

const alert: AlertMessage = {
  alertId: 1,
  rule: 'my-validators',
  kind: 'validator-status',
  status: 'event',
  severity: 'critical',
  subject: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg',
  summary: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg validation active → completed',
  labels: {},
  details: { Node: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', Change: 'active → completed', 'Period ended': '2024-11-13T22:13:20Z' },
  at: '2026-01-01T00:00:05.000Z',
};

const name = (text: string) => ({ type: 'mrkdwn', text: `*${text}*`, verbatim: true });
const value = (text: string) => ({ type: 'plain_text', text, emoji: false });

/** Every text object in a payload, with where it sits. */
function textObjects(payload: SlackPayload): Array<{ where: string; type: string; text: string; emoji?: boolean; verbatim?: boolean }> {
  const out: Array<{ where: string; type: string; text: string; emoji?: boolean; verbatim?: boolean }> = [];
  payload.blocks.forEach((block, i) => {
    const objects = 'fields' in block ? block.fields : 'elements' in block ? block.elements : [block.text];
    objects.forEach((o, j) => out.push({ where: `${block.type} ${i}${'fields' in block ? ` field ${j}` : ''}`, ...o }));
  });
  return out;
}

// Chain text (a token name, a service's error) that would format a Slack message if it were markup.
const HOSTILE = '*bold* _x_ `code` :rotating_light: <!channel> @channel #general https://evil.example line\nbreak';
const HOSTILE_SHOWN = '*bold* _x_ `code` :rotating_light: &lt;!channel&gt; @channel #general https://evil.example line break';
const MARKUP = ['*bold*', '_x_', '`code`', ':rotating_light:', '<!channel>', '@channel', '#general', 'https://evil.example'];
const LONG_ERROR = `data API GET /v1/networks/mainnet/validators: HTTP 500: ${'the service said <nothing> & more '.repeat(200)}`.slice(0, 5_000);

describe('Slack message', () => {
  it('says severity, rule, node, what changed and when', () => {
    expect(slackMessage(alert)).toEqual({
      text: '[EVENT CRITICAL] my-validators: NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg validation active → completed',
      unfurl_links: false,
      unfurl_media: false,
      blocks: [
        { type: 'header', text: value('🔴 EVENT CRITICAL · NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg validation active → completed') },
        {
          type: 'section',
          fields: [
            name('Rule'),
            value('my-validators'),
            name('Severity'),
            value('critical'),
            name('Node'),
            value('NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg'),
            name('Change'),
            value('active → completed'),
            name('Period ended'),
            value('2024-11-13T22:13:20Z'),
          ],
        },
        { type: 'context', elements: [{ type: 'mrkdwn', verbatim: true, text: 'avawatch · validator-status · <!date^1767225605^{date_short_pretty} {time_secs}|2026-01-01T00:00:05.000Z>' }] },
      ],
    });
  });

  it('makes hostile chain text inert: plain text, escaped, on one line; no mention, link, markup or :emoji:', () => {
    const payload = slackMessage({ ...alert, summary: HOSTILE, details: { 'Reward token': HOSTILE, Code: '' } });
    const objects = textObjects(payload);
    // Markup only where avawatch wrote all of it, and even there no auto-linking.
    for (const o of objects.filter((t) => t.type === 'mrkdwn')) {
      expect(MARKUP.filter((m) => o.text.includes(m)), o.where).toEqual([]);
      expect(o.verbatim, o.where).toBe(true);
    }
    for (const o of objects.filter((t) => t.type === 'plain_text')) expect(o.emoji, o.where).toBe(false);
    // The chain text is shown, as text, in the header, as the token's value and in the notification text.
    expect(payload.blocks[0]).toEqual({ type: 'header', text: value(`🔴 EVENT CRITICAL · ${HOSTILE_SHOWN}`) });
    expect(objects).toContainEqual({ where: 'section 1 field 5', ...value(HOSTILE_SHOWN) });
    expect(payload.text).toBe(`[EVENT CRITICAL] my-validators: ${HOSTILE_SHOWN}`);
    // No line break anywhere but between a group's lines: a token name cannot add a fake field.
    expect(objects.filter((o) => o.text.includes('\n')).map((o) => o.where)).toEqual([]);
    expect(JSON.stringify(payload)).not.toContain('<!channel>');
    // Slack refuses an empty text object: an empty value shows as a dash.
    expect(objects).toContainEqual({ where: 'section 1 field 7', ...value('–') });
    expect(payload).toMatchObject({ unfurl_links: false, unfurl_media: false });
  });

  it('keeps every text within Slack\'s limits, with a visible ellipsis, when the service sends a 5,000-character error', () => {
    const summary = `rule "my-validators" is blind: its last 3 evaluations failed (${LONG_ERROR})`;
    const payload = slackMessage({ ...alert, summary, details: { Error: LONG_ERROR, 'Failing since': '2026-01-01T00:00:00.000Z' } });
    for (const o of textObjects(payload)) expect(o.text.length, o.where).toBeLessThanOrEqual(o.where.startsWith('header') ? 150 : o.where.includes('field') ? 2000 : 3000);
    const [header, full, facts] = payload.blocks;
    expect(header).toMatchObject({ type: 'header', text: { type: 'plain_text' } });
    const headerText = (header as { text: { text: string } }).text.text;
    expect(headerText.length).toBeLessThanOrEqual(150);
    expect(headerText).toMatch(/^🔴 EVENT CRITICAL · rule "my-validators" is blind: .*…$/);
    // The header cannot hold the summary: it follows in full, as far as a section allows.
    const fullText = (full as { text: { type: string; text: string } }).text;
    expect(fullText.type).toBe('plain_text');
    expect(fullText.text.length).toBe(3000);
    expect(fullText.text).toMatch(/^rule "my-validators" is blind: its last 3 evaluations failed \(data API GET .*the service said &lt;nothing&gt; &amp; more .*…$/);
    expect(fullText.text).not.toMatch(/&[a-z]*…$/); // never half an entity
    const error = (facts as { fields: Array<{ text: string }> }).fields[5]!.text;
    expect(error.length).toBeLessThanOrEqual(2000);
    expect(error).toMatch(/^data API GET .*…$/);
    expect(payload.text.length).toBeLessThanOrEqual(3000);
    expect(payload.text.endsWith('…')).toBe(true);
  });

  it('a group lists each alert on one inert line, within the limits', () => {
    const alerts = Array.from({ length: 12 }, (_, i) => ({ ...alert, alertId: i, summary: i === 0 ? `${HOSTILE} ${LONG_ERROR}` : `${HOSTILE} ${i}` }));
    const payload = slackGroupMessage(alerts);
    const objects = textObjects(payload);
    for (const o of objects.filter((t) => t.type === 'mrkdwn')) {
      expect(MARKUP.filter((m) => o.text.includes(m)), o.where).toEqual([]);
      expect(o.verbatim, o.where).toBe(true);
    }
    // The header and the push text lead with the most urgent alert, cut to fit, the count kept.
    const header = (payload.blocks[0] as { text: { text: string } }).text.text;
    expect(header).toMatch(/^🔴 CRITICAL: \*bold\* .*… \(\+11 more\)$/);
    expect(header.length).toBeLessThanOrEqual(150);
    expect(payload.text).toMatch(/^🔴 CRITICAL: \*bold\* .*… \(\+11 more\)$/);
    expect(payload.blocks[2]).toMatchObject({ elements: [{ text: expect.stringMatching(/^avawatch · [a-z-]+ · 12 alerts · my-validators · /) }] });
    const list = objects.find((o) => o.where === 'section 1')!;
    expect(list).toMatchObject({ type: 'plain_text', emoji: false });
    const lines = list.text.split('\n');
    expect(lines).toHaveLength(11);
    expect(lines[0]).toMatch(/^• EVENT CRITICAL: \*bold\* _x_ `code` :rotating_light: &lt;!channel&gt; @channel #general https:\/\/evil\.example line break data API .*…$/);
    expect(lines[1]).toBe(`• EVENT CRITICAL: ${HOSTILE_SHOWN} 1`);
    expect(lines[10]).toBe('…and 2 more');
    expect(list.text.length).toBeLessThanOrEqual(3000);
    expect(payload.text).not.toContain('\n');
    expect(payload.text.length).toBeLessThanOrEqual(3000);
  });

  it('escapes &, < and >', () => {
    expect(escapeSlack('a & <b> c')).toBe('a &amp; &lt;b&gt; c');
  });

  it('a resolution is ✅, a warning 🟠, an info 🔵; the time is floored to the second', () => {
    const header = (a: AlertMessage) => (slackMessage(a).blocks[0] as { text: { text: string } }).text.text;
    expect(header({ ...alert, status: 'resolved', summary: 'back' })).toBe('✅ RESOLVED CRITICAL · back');
    expect(header({ ...alert, status: 'firing', severity: 'warning', summary: 'low' })).toBe('🟠 FIRING WARNING · low');
    expect(header({ ...alert, severity: 'info', summary: 'news' })).toBe('🔵 EVENT INFO · news');
    const context = slackMessage({ ...alert, at: '2026-01-01T00:00:05.999Z' }).blocks.at(-1) as { elements: Array<{ text: string }> };
    expect(context.elements[0]!.text).toBe('avawatch · validator-status · <!date^1767225605^{date_short_pretty} {time_secs}|2026-01-01T00:00:05.999Z>');
  });

  it('five facts a section; past eight sections the rest are counted in the context', () => {
    const facts = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`F${i}`, `v${i}`]));
    const sections = (p: SlackPayload) => p.blocks.filter((b) => 'fields' in b) as Array<{ fields: unknown[] }>;
    // Rule and Severity, then 3 details: one section; one more: two.
    expect(sections(slackMessage({ ...alert, details: facts(3) })).map((b) => b.fields.length)).toEqual([10]);
    expect(sections(slackMessage({ ...alert, details: facts(4) })).map((b) => b.fields.length)).toEqual([10, 2]);
    const full = slackMessage({ ...alert, details: facts(38) });
    expect(sections(full)).toHaveLength(8);
    expect((full.blocks.at(-1) as { elements: Array<{ text: string }> }).elements[0]!.text).toMatch(/^avawatch · validator-status · </);
    const over = slackMessage({ ...alert, details: facts(41) });
    expect(sections(over)).toHaveLength(8);
    expect((over.blocks.at(-1) as { elements: Array<{ text: string }> }).elements[0]!.text).toMatch(/^avawatch · validator-status · 3 more details not shown · </);
  });

  it('a summary that fits the header is not repeated below it', () => {
    const summary = 'x'.repeat(150 - '🔴 EVENT CRITICAL · '.length);
    expect(slackMessage({ ...alert, summary }).blocks[1]).toMatchObject({ type: 'section', fields: expect.any(Array) });
    expect(slackMessage({ ...alert, summary: `${summary}y` }).blocks[1]).toEqual({ type: 'section', text: value(`${summary}y`) });
  });

  it('C1 controls and Unicode line separators are spaces too; a long name is cut inside its bold', () => {
    const payload = slackMessage({ ...alert, summary: 'a\u0085b\u2028c\u2029d\u009fe', details: { ['n'.repeat(2100)]: 'v' } });
    expect(payload.text).toBe('[EVENT CRITICAL] my-validators: a b c d e');
    const fields = (payload.blocks[1] as { fields: Array<{ text: string }> }).fields;
    expect(fields[4]!.text).toBe(`*${'n'.repeat(1997)}…*`);
  });

  it('a group of exactly ten lists all ten, without "…and"; a resolution-only group is ✅', () => {
    const ten = Array.from({ length: 10 }, (_, i) => ({ ...alert, alertId: i, summary: `s${i}` }));
    const lines = ((slackGroupMessage(ten).blocks[1] as { text: { text: string } }).text.text).split('\n');
    expect(lines).toHaveLength(10);
    expect(lines[9]).toBe('• EVENT CRITICAL: s9');
    const calm = slackGroupMessage([{ ...alert, status: 'resolved', summary: 'a' }, { ...alert, status: 'resolved', summary: 'b', kind: 'validator-health', rule: 'health' }]);
    expect(calm.text).toBe('✅ RESOLVED: a (+1 more)');
    expect(calm.blocks[2]).toMatchObject({ elements: [{ text: expect.stringMatching(/^avawatch · validator-status, validator-health · 2 resolved · my-validators, health · <!date\^1767225605\^/) }] });
    expect((calm.blocks[1] as { text: { text: string } }).text.text).toBe('• RESOLVED CRITICAL my-validators: a\n• RESOLVED CRITICAL health: b');
  });
});

