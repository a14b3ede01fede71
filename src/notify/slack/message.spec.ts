import { describe, expect, it } from 'vitest';
import type { AlertMessage } from '../types.js';
import { escapeSlack, slackMessage } from './message.js';

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

describe('Slack message', () => {
  it('says severity, rule, node, what changed and when', () => {
    expect(slackMessage(alert)).toEqual({
      text: '[EVENT CRITICAL] my-validators: NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg validation active → completed',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: ':red_circle: *EVENT CRITICAL* · NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg validation active → completed' } },
        {
          type: 'section',
          fields: [
            { type: 'mrkdwn', text: '*Rule*\nmy-validators' },
            { type: 'mrkdwn', text: '*Severity*\ncritical' },
            { type: 'mrkdwn', text: '*Node*\nNodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg' },
            { type: 'mrkdwn', text: '*Change*\nactive → completed' },
            { type: 'mrkdwn', text: '*Period ended*\n2024-11-13T22:13:20Z' },
          ],
        },
        { type: 'context', elements: [{ type: 'mrkdwn', text: 'avawatch · validator-status · <!date^1767225605^{date_short_pretty} {time_secs}|2026-01-01T00:00:05.000Z>' }] },
      ],
    });
  });

  it('makes hostile chain text inert: no mention, no link, no markup', () => {
    const hostile = '<!channel> <http://evil.example|click> & <script>';
    const msg = JSON.stringify(slackMessage({ ...alert, summary: hostile, details: { Status: hostile } }));
    expect(msg).not.toContain('<!channel>');
    expect(msg).not.toContain('<http://evil');
    expect(msg).not.toContain('<script>');
    expect(msg).toContain('&lt;!channel&gt; &lt;http://evil.example|click&gt; &amp; &lt;script&gt;');
  });

  it('escapes &, < and >', () => {
    expect(escapeSlack('a & <b> c')).toBe('a &amp; &lt;b&gt; c');
  });
});
