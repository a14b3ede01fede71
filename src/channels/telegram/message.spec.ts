import { describe, expect, it } from 'vitest';
import { Secret } from '../../base/secret.js';
import type { AlertMessage } from '../types.js';
import { classify } from './index.js';
import { escapeTelegram, TELEGRAM_TEXT_LIMIT, telegramText } from './message.js';

const alert: AlertMessage = {
  alertId: 1,
  rule: 'my-validators',
  kind: 'validator-status',
  status: 'event',
  severity: 'critical',
  subject: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg',
  summary: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg validation active → completed',
  labels: {},
  details: { Node: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', Change: 'active → completed' },
  at: '2026-01-01T00:00:05.000Z',
};

const HOSTILE = '<b>bold</b> <a href="https://evil.example">x</a> & <!channel> @everyone line\r\nbreak';
const HOSTILE_SHOWN = '&lt;b&gt;bold&lt;/b&gt; &lt;a href="https://evil.example"&gt;x&lt;/a&gt; &amp; &lt;!channel&gt; @everyone line break';
const LONG = `HTTP 500: ${'the service said <nothing> & more '.repeat(300)}`;

/** The tags of a text: only avawatch's own <b> and <i>. */
function tags(text: string): string[] {
  return [...new Set(text.match(/<\/?[a-z]+>/g) ?? [])].sort();
}

describe('Telegram message', () => {
  it('says status, severity, summary, rule and the details, one a line', () => {
    expect(telegramText([alert])).toBe(
      [
        '🔴 <b>EVENT CRITICAL</b> · NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg validation active → completed',
        '<b>Rule:</b> my-validators',
        '<b>Node:</b> NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg',
        '<b>Change:</b> active → completed',
        '<i>avawatch · validator-status · 2026-01-01T00:00:05.000Z</i>',
      ].join('\n'),
    );
  });

  it('makes chain text inert: escaped, on one line, no tag of its own', () => {
    const text = telegramText([{ ...alert, summary: HOSTILE, details: { 'Reward token': HOSTILE } }]);
    expect(text.split('\n')[0]).toBe(`🔴 <b>EVENT CRITICAL</b> · ${HOSTILE_SHOWN}`);
    expect(text).toContain(`<b>Reward token:</b> ${HOSTILE_SHOWN}`);
    expect(tags(text)).toEqual(['</b>', '</i>', '<b>', '<i>']);
    expect(text).not.toMatch(/\r/);
    expect(text.split('\n')).toHaveLength(4);
  });

  it('stays within 4,096 characters with a 5,000-character error and fifty details, never cutting an entity', () => {
    const details = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`Detail ${i}`, LONG]));
    const text = telegramText([{ ...alert, summary: LONG, details }]);
    expect(text.length).toBeLessThanOrEqual(TELEGRAM_TEXT_LIMIT);
    expect(text).toMatch(/\n\+\d+ more details\n<i>avawatch · validator-status/);
    for (const l of text.split('\n')) expect(l).not.toMatch(/&[a-z]*…/);
    expect(text.split('\n')[0]!.endsWith('…')).toBe(true);
  });

  it('a group lists one line per alert and says how many more', () => {
    const alerts = Array.from({ length: 200 }, (_, i) => ({ ...alert, alertId: i, summary: `${HOSTILE} ${i} ${i === 0 ? LONG : ''}` }));
    const text = telegramText(alerts);
    expect(text.length).toBeLessThanOrEqual(TELEGRAM_TEXT_LIMIT);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^🔴 <b>CRITICAL<\/b>: &lt;b&gt;bold.*… \(\+199 more\)$/);
    expect(lines[1]).toBe('<b>200 alerts</b> · my-validators');
    expect(lines[3]).toBe(`• EVENT CRITICAL: ${HOSTILE_SHOWN} 1`);
    const shown = lines.filter((l) => l.startsWith('• ')).length;
    expect(lines.at(-2)).toBe(`+${200 - shown} more`);
    expect(tags(text)).toEqual(['</b>', '</i>', '<b>', '<i>']);
  });

  it('escapes &, < and >', () => {
    expect(escapeTelegram('a & <b> c')).toBe('a &amp; &lt;b&gt; c');
  });
});

describe('Telegram message: icons, small groups and cuts', () => {
  it('a resolution is ✅, a warning 🟠, an info 🔵; an empty detail shows as a dash', () => {
    expect(telegramText([{ ...alert, status: 'resolved', details: {} }]).split('\n')[0]).toBe(`✅ <b>RESOLVED CRITICAL</b> · ${alert.summary}`);
    expect(telegramText([{ ...alert, severity: 'warning', details: {} }]).split('\n')[0]).toMatch(/^🟠 <b>EVENT WARNING<\/b> · /);
    expect(telegramText([{ ...alert, severity: 'info', details: { Code: '' } }]).split('\n').slice(0, 3)).toEqual([`🔵 <b>EVENT INFO</b> · ${alert.summary}`, '<b>Rule:</b> my-validators', '<b>Code:</b> –']);
  });

  it('a detail name is cut at 100, its value at 600, each with …', () => {
    const lines = telegramText([{ ...alert, details: { ['n'.repeat(150)]: 'v'.repeat(700) } }]).split('\n');
    expect(lines[2]).toBe(`<b>${'n'.repeat(99)}…:</b> ${'v'.repeat(599)}…`);
  });

  it('a small group: the head, one line per alert with its rule when there are several, the kinds and the time', () => {
    const text = telegramText([
      { ...alert, severity: 'info', summary: 'calm' },
      { ...alert, alertId: 2, rule: 'health', kind: 'validator-health', status: 'firing', severity: 'warning', summary: 'low', labels: { validator: 'alpha' } },
    ]);
    expect(text.split('\n')).toEqual([
      '🟠 <b>WARNING</b>: low (+1 more)',
      '<b>2 alerts</b> · health, my-validators',
      '• FIRING WARNING health: low',
      '• EVENT INFO my-validators: calm',
      '<i>avawatch · validator-health, validator-status · 2026-01-01T00:00:05.000Z</i>',
    ]);
    expect(telegramText([{ ...alert, status: 'resolved' }, { ...alert, alertId: 2, status: 'resolved' }]).split('\n')[0]).toMatch(/^✅ <b>RESOLVED<\/b>: /);
  });

  it('past 30 alerts the rest are counted, however short their lines', () => {
    const lines = telegramText(Array.from({ length: 33 }, (_, i) => ({ ...alert, alertId: i, summary: `s${i}` }))).split('\n');
    expect(lines.filter((l) => l.startsWith('• '))).toHaveLength(30);
    expect(lines.at(-2)).toBe('+3 more');
    expect(telegramText(Array.from({ length: 30 }, (_, i) => ({ ...alert, alertId: i, summary: `s${i}` })))).not.toContain('more\n');
  });
});

describe('Telegram errors', () => {
  const token = new Secret('123456789:AAHsecretTOKENvalue-never-print');
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers: new Headers(headers), text: typeof body === 'string' ? body : JSON.stringify(body) });

  it('waits parameters.retry_after on 429, retries 5xx, dead-letters 400/401/403 with the description', () => {
    expect(classify('p', answer(200, { ok: true, result: {} }), token)).toBeUndefined();
    expect(classify('p', answer(429, { ok: false, error_code: 429, description: 'Too Many Requests: retry after 7', parameters: { retry_after: 7 } }), token)).toMatchObject({
      retryable: true,
      retryAfterMs: 7000,
      reason: 'http_429',
      message: 'p: HTTP 429: Too Many Requests: retry after 7',
    });
    expect(classify('p', answer(502, 'Bad Gateway'), token)).toMatchObject({ retryable: true, reason: 'http_502', message: 'p: HTTP 502 (body not shown)' });
    expect(classify('p', answer(400, { ok: false, error_code: 400, description: 'Bad Request: chat not found' }), token)).toMatchObject({ retryable: false, message: 'p: HTTP 400: Bad Request: chat not found' });
    expect(classify('p', answer(403, { ok: false, error_code: 403, description: 'Forbidden: bot was kicked from the group chat' }), token)).toMatchObject({ retryable: false, reason: 'http_403' });
    expect(classify('p', answer(400, { ok: false, error_code: 400, description: 'Bad Request: group chat was upgraded to a supergroup chat', parameters: { migrate_to_chat_id: -1001234 } }), token)?.message).toBe(
      'p: HTTP 400: Bad Request: group chat was upgraded to a supergroup chat (the group is now a supergroup: set chatId to -1001234)',
    );
  });

  it('never shows the token, even when the answer quotes the path', () => {
    const e = classify('p', answer(404, { ok: false, error_code: 404, description: `Not Found: /bot${token.reveal()}/sendMessage and /bot${encodeURIComponent(token.reveal())}/x` }), token);
    expect(e?.message).toBe('p: HTTP 404: Not Found: /bot<secret>/sendMessage and /bot<secret>/x');
    expect(classify('p', answer(404, `<pre>Cannot POST /bot${token.reveal()}/sendMessage</pre>`), token)?.message).toBe('p: HTTP 404 (body not shown)');
  });
});
