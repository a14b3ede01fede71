import { describe, expect, it } from 'vitest';
import { slackGroupMessage, slackMessage } from '../channels/slack/message.js';
import type { AlertMessage } from '../base/types.js';
import { alertsOf, messageLines } from './slack-printer.js';

const alert: AlertMessage = {
  alertId: 1,
  rule: 'demo-health',
  kind: 'validator-health',
  status: 'firing',
  severity: 'warning',
  subject: 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ',
  summary: 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ uptime 88.5% is under 90%',
  labels: {},
  details: { Node: 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ' },
  at: '2026-01-01T00:00:05.000Z',
};

/** A payload as the webhook receives it: JSON, read back. */
const sent = (payload: object) => JSON.parse(JSON.stringify(payload)) as Parameters<typeof alertsOf>[0];

describe('the demo Slack printer', () => {
  it('reads the kind and status of a single alert back from the message slack/message.ts builds', () => {
    expect(alertsOf(sent(slackMessage(alert)))).toEqual([{ kind: 'validator-health', status: 'firing' }]);
    expect(alertsOf(sent(slackMessage({ ...alert, status: 'resolved' })))).toEqual([{ kind: 'validator-health', status: 'resolved' }]);
    // Past the facts Slack can show, the context says so: the kind is still its second part.
    const details = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`Fact ${i}`, 'x']));
    expect(alertsOf(sent(slackMessage({ ...alert, status: 'event', details })))).toEqual([{ kind: 'validator-health', status: 'event' }]);
  });

  it('reads every listed alert of a group, and prints its lines', () => {
    const group = [
      { ...alert, kind: 'address-activity', rule: 'demo-treasury', status: 'event' as const, summary: 'received 25000 USDC' },
      { ...alert, kind: 'address-activity', rule: 'demo-treasury', status: 'event' as const, summary: 'received 1000000 <!channel>' },
    ];
    const body = sent(slackGroupMessage(group));
    expect(alertsOf(body)).toEqual([
      { kind: 'address-activity', status: 'event' },
      { kind: 'address-activity', status: 'event' },
    ]);
    expect(messageLines(body)).toEqual([
      'slack ← 🟠 WARNING: received 25000 USDC (+1 more)',
      '         • EVENT WARNING: received 25000 USDC',
      '         • EVENT WARNING: received 1000000 <!channel>',
      '         (< and > arrived escaped: Slack shows them as text; no mention, no link)',
    ]);
  });

  it('prints a single alert as its text and fields, and counts nothing in a message that is not an alert', () => {
    expect(messageLines(sent(slackMessage(alert)))).toEqual([
      'slack ← [FIRING WARNING] demo-health: NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ uptime 88.5% is under 90%',
      '         Rule: demo-health',
      '         Severity: warning',
      '         Node: NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ',
    ]);
    expect(alertsOf({ text: 'hello' })).toEqual([]);
  });
});
