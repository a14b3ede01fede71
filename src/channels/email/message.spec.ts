import { describe, expect, it } from 'vitest';
import type { AlertMessage } from '../types.js';
import { emailMessage, escapeHtml } from './message.js';

const alert: AlertMessage = {
  alertId: 1,
  rule: 'my-validators',
  kind: 'validator-status',
  status: 'firing',
  severity: 'warning',
  subject: 'alpha',
  summary: 'alpha uptime 84% is under 86%',
  labels: { validator: 'alpha' },
  details: { Node: 'NodeID-A', Uptime: '84%' },
  at: '2026-01-01T00:00:05.000Z',
};

const HOSTILE = `<script>alert("x")</script> & 'quoted' line\r\nBcc: victim@example.com`;

describe('email message: one alert', () => {
  it('the subject says status, severity, rule and summary; the text part lists the facts, signed', () => {
    const mail = emailMessage([alert]);
    expect(mail.subject).toBe('[FIRING WARNING] my-validators: alpha uptime 84% is under 86%');
    expect(mail.text).toBe(
      [
        'FIRING WARNING: alpha uptime 84% is under 86%',
        '',
        'Rule: my-validators',
        'Severity: warning',
        'Node: NodeID-A',
        'Uptime: 84%',
        'When: 2026-01-01T00:00:05.000Z',
        '',
        '-- avawatch',
      ].join('\n'),
    );
  });

  it('the HTML part has the same facts, one table row each, and the kind below', () => {
    const { html } = emailMessage([{ ...alert, status: 'resolved', severity: 'critical', summary: 'alpha uptime is back above 80%' }]);
    expect(html).toBe(
      [
        '<!doctype html>',
        '<html><body style="font-family:sans-serif">',
        '<p><strong>RESOLVED CRITICAL</strong>: alpha uptime is back above 80%</p>',
        '<table>',
        '<tr><th style="text-align:left;padding:2px 12px 2px 0">Rule</th><td>my-validators</td></tr>',
        '<tr><th style="text-align:left;padding:2px 12px 2px 0">Severity</th><td>critical</td></tr>',
        '<tr><th style="text-align:left;padding:2px 12px 2px 0">Node</th><td>NodeID-A</td></tr>',
        '<tr><th style="text-align:left;padding:2px 12px 2px 0">Uptime</th><td>84%</td></tr>',
        '<tr><th style="text-align:left;padding:2px 12px 2px 0">When</th><td>2026-01-01T00:00:05.000Z</td></tr>',
        '</table>',
        '<p style="color:#888">avawatch · validator-status</p>',
        '</body></html>',
      ].join('\n'),
    );
  });

  it('chain text is inert: escaped in HTML, on one line in the subject and the text (no header of its own)', () => {
    expect(escapeHtml(HOSTILE)).toBe('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39; line\r\nBcc: victim@example.com');
    const mail = emailMessage([{ ...alert, summary: HOSTILE, details: { [`Token\n${HOSTILE}`]: HOSTILE } }]);
    expect(mail.subject).toBe(`[FIRING WARNING] my-validators: <script>alert("x")</script> & 'quoted' line Bcc: victim@example.com`);
    expect(mail.text.split('\n')[0]).toBe(`FIRING WARNING: <script>alert("x")</script> & 'quoted' line Bcc: victim@example.com`);
    expect(mail.text).toContain(`\nToken <script>alert("x")</script> & 'quoted' line Bcc: victim@example.com: <script>`);
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('<strong>FIRING WARNING</strong>: &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39;');
  });

  it('a subject is cut at 250 characters', () => {
    const mail = emailMessage([{ ...alert, summary: 'x'.repeat(400) }]);
    expect(mail.subject).toBe(`[FIRING WARNING] my-validators: ${'x'.repeat(250 - 32)}`);
  });
});

describe('email message: a group', () => {
  const group: AlertMessage[] = [
    { ...alert, alertId: 2, severity: 'info', status: 'event', summary: 'alpha validation active → completed', details: {} },
    { ...alert, alertId: 3, rule: 'health', severity: 'critical', summary: 'alpha is down', details: { Node: 'NodeID-A' } },
  ];

  it('the text lists every alert, then each in full without its signature', () => {
    const mail = emailMessage(group);
    expect(mail.subject).toBe('[CRITICAL] alpha is down (+1 more)');
    expect(mail.text).toBe(
      [
        'alpha: 2 alerts (health, my-validators)',
        '- FIRING CRITICAL health: alpha is down',
        '- EVENT INFO my-validators: alpha validation active → completed',
        '',
        'FIRING CRITICAL: alpha is down',
        '',
        'Rule: health',
        'Severity: critical',
        'Node: NodeID-A',
        'When: 2026-01-01T00:00:05.000Z',
        '',
        '',
        'EVENT INFO: alpha validation active → completed',
        '',
        'Rule: my-validators',
        'Severity: info',
        'When: 2026-01-01T00:00:05.000Z',
        '',
        '',
        '',
      ].join('\n'),
    );
  });

  it('the HTML has the list under a bar of the worst colour, then each alert without its own page frame', () => {
    const { html } = emailMessage(group);
    expect(html.startsWith('<!doctype html>\n<html><body style="font-family:sans-serif">\n<p style="border-left:4px solid #e01e5a;padding-left:8px"><strong>alpha: 2 alerts</strong> (health, my-validators)</p>\n<ul>\n<li>FIRING CRITICAL health: alpha is down</li>\n<li>EVENT INFO my-validators: alpha validation active → completed</li>\n</ul><hr>\n\n<p><strong>FIRING CRITICAL</strong>: alpha is down</p>')).toBe(true);
    expect(html.match(/<html>/g)).toHaveLength(1);
    expect(html.match(/<\/body><\/html>/g)).toHaveLength(1);
    expect(html).toContain('avawatch · validator-status</p>\n<hr>\n\n<p><strong>EVENT INFO</strong>');
    expect(html.endsWith('<p style="color:#888">avawatch · validator-status</p>\n\n</body></html>')).toBe(true);
    const warning = emailMessage([group[0]!, { ...group[1]!, severity: 'warning' }]).html;
    expect(warning).toContain('border-left:4px solid #f2a900');
    const info = emailMessage([group[0]!, { ...group[0]!, alertId: 9 }]).html;
    expect(info).toContain('border-left:4px solid #1d9bd1');
  });

  it('past 50 alerts the rest are counted, in the text and the HTML; one rule is not repeated on each line', () => {
    const storm = Array.from({ length: 53 }, (_, i) => ({ ...alert, alertId: 10 + i, summary: `alpha event ${i}`, details: {} }));
    const mail = emailMessage(storm);
    expect(mail.text.split('\n')[1]).toBe('- FIRING WARNING: alpha event 0');
    expect(mail.text.endsWith('\n\n…and 3 more')).toBe(true);
    expect(mail.text).toContain('alpha event 49');
    expect(mail.text).not.toContain('alpha event 50');
    expect(mail.html).toContain('<p>…and 3 more</p>\n</body></html>');
    expect(emailMessage(storm.slice(0, 50)).html).not.toContain('more');
  });

  it('a long subject keeps its "(+N more)" and stays within 250 characters', () => {
    const subject = emailMessage([{ ...group[1]!, summary: 'y'.repeat(400) }, group[0]!]).subject;
    expect(subject).toBe(`[CRITICAL] ${'y'.repeat(250 - 11 - 10)} (+1 more)`);
    expect(subject).toHaveLength(250);
  });
});
