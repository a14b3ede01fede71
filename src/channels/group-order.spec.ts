import { describe, expect, it } from 'vitest';
import { discordPayload } from './discord/message.js';
import { emailMessage } from './email/message.js';
import { slackGroupMessage } from './slack/message.js';
import { telegramText } from './telegram/message.js';
import type { AlertMessage } from './types.js';

// A grouped notification's preview (Slack's push `text`, the mail's subject) and the part of
// its list a limit keeps lead with the most urgent alert, not the first that came: the
// critical "ended without a reward" is never the "+2 more" behind an info.

const base: AlertMessage = {
  alertId: 1,
  rule: 'my-validators',
  kind: 'validator-status',
  status: 'event',
  severity: 'info',
  subject: 'alpha',
  summary: 'alpha validation active → completed',
  labels: { validator: 'alpha' },
  details: {},
  at: '2026-01-01T00:00:05.000Z',
};
const group: AlertMessage[] = [
  base,
  { ...base, alertId: 2, status: 'resolved', severity: 'critical', summary: 'alpha uptime is back above 80%' },
  { ...base, alertId: 3, status: 'firing', severity: 'warning', summary: 'alpha uptime 84% is under 86%' },
  { ...base, alertId: 4, status: 'event', severity: 'critical', summary: 'alpha validation ended without a reward' },
];

describe('a grouped notification leads with its most urgent alert', () => {
  it('Slack: the push text and the list start with the critical event, firing before resolved', () => {
    const p = slackGroupMessage(group);
    expect(p.text).toBe('[alpha: 4 alerts] my-validators: alpha validation ended without a reward (+3 more)');
    const section = p.blocks[1] as { text: { text: string } };
    expect(section.text.text.split('\n')).toEqual([
      '• EVENT CRITICAL: alpha validation ended without a reward',
      '• FIRING WARNING: alpha uptime 84% is under 86%',
      '• EVENT INFO: alpha validation active → completed',
      '• RESOLVED CRITICAL: alpha uptime is back above 80%',
    ]);
  });

  it('email: the subject names the critical event', () => {
    expect(emailMessage(group).subject).toBe('[alpha: 4 alerts] my-validators: alpha validation ended without a reward (+3 more)');
  });

  it('Discord and Telegram: the first embed and the first line are the critical event', () => {
    expect(discordPayload(group).embeds[0]!.title).toContain('ended without a reward');
    expect(telegramText(group).split('\n')[1]).toBe('• EVENT CRITICAL: alpha validation ended without a reward');
  });

  it('a cut list keeps the critical alert that came last', () => {
    const storm = [...Array.from({ length: 30 }, (_, i) => ({ ...base, alertId: 10 + i, summary: `info ${i}` })), group[3]!];
    expect(discordPayload(storm).embeds.map((e) => e.title).filter((t) => t.includes('ended without a reward'))).toHaveLength(1);
    expect(slackGroupMessage(storm).blocks[1]).toMatchObject({ text: { text: expect.stringMatching(/^• EVENT CRITICAL: alpha validation ended without a reward\n/) } });
  });
});

describe('a group only of resolutions says "resolved", in the resolved colour', () => {
  const calm: AlertMessage[] = [
    { ...base, alertId: 5, status: 'resolved', severity: 'critical', summary: 'alpha uptime is back above 80%' },
    { ...base, alertId: 6, status: 'resolved', severity: 'warning', summary: 'alpha runs avalanchego 1.14.1 again' },
  ];

  it('in every channel: "alpha: 2 resolved", never "2 alerts" under a red icon', () => {
    const slack = slackGroupMessage(calm);
    expect(slack.blocks[0]).toMatchObject({ text: { text: '✅ alpha: 2 resolved · my-validators' } });
    expect(slack.text).toMatch(/^\[alpha: 2 resolved\] /);
    expect(emailMessage(calm).subject).toMatch(/^\[alpha: 2 resolved\] /);
    expect(discordPayload(calm).content).toMatch(/^✅ \*\*alpha: 2 resolved\*\*/);
    expect(telegramText(calm).split('\n')[0]).toMatch(/^✅ <b>alpha: 2 resolved<\/b>/);
  });

  it('a group with one alert still firing keeps its colour and "alerts"', () => {
    const mixed = [...calm, { ...base, alertId: 7, status: 'firing' as const, severity: 'warning' as const, summary: 'alpha uptime 84% is under 86%' }];
    expect(slackGroupMessage(mixed).blocks[0]).toMatchObject({ text: { text: '🟠 alpha: 3 alerts · my-validators' } });
  });
});
