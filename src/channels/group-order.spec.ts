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
    expect(p.text).toBe('🔴 CRITICAL: alpha validation ended without a reward (+3 more)');
    expect(p.blocks[0]).toMatchObject({ type: 'header', text: { text: '🔴 CRITICAL: alpha validation ended without a reward (+3 more)' } });
    const section = p.blocks[1] as { text: { text: string } };
    expect(section.text.text.split('\n')).toEqual([
      '• EVENT CRITICAL: alpha validation ended without a reward',
      '• FIRING WARNING: alpha uptime 84% is under 86%',
      '• EVENT INFO: alpha validation active → completed',
      '• RESOLVED CRITICAL: alpha uptime is back above 80%',
    ]);
  });

  it('email: the subject names the critical event', () => {
    expect(emailMessage(group).subject).toBe('[CRITICAL] alpha validation ended without a reward (+3 more)');
  });

  it('Discord and Telegram: the first line (the preview), the first embed and the first item are the critical event', () => {
    const discord = discordPayload(group);
    expect(discord.content).toBe('🔴 **CRITICAL**: alpha validation ended without a reward (+3 more) · **alpha\\: 4 alerts** · my\\-validators');
    expect(discord.embeds[0]!.title).toContain('ended without a reward');
    const telegram = telegramText(group).split('\n');
    expect(telegram[0]).toBe('🔴 <b>CRITICAL</b>: alpha validation ended without a reward (+3 more)');
    expect(telegram[2]).toBe('• EVENT CRITICAL: alpha validation ended without a reward');
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

  it('in every channel: "RESOLVED" with ✅ in the title and preview, "alpha: 2 resolved" below, never "2 alerts" under a red icon', () => {
    const slack = slackGroupMessage(calm);
    expect(slack.blocks[0]).toMatchObject({ text: { text: '✅ RESOLVED: alpha uptime is back above 80% (+1 more)' } });
    expect(slack.text).toBe('✅ RESOLVED: alpha uptime is back above 80% (+1 more)');
    expect(slack.blocks[2]).toMatchObject({ elements: [{ text: expect.stringMatching(/^avawatch · validator-status · alpha: 2 resolved · my-validators · /) }] });
    const mail = emailMessage(calm);
    expect(mail.subject).toBe('[RESOLVED] alpha uptime is back above 80% (+1 more)');
    expect(mail.html).toContain('border-left:4px solid #2eb67d');
    expect(mail.text.split('\n')[0]).toBe('alpha: 2 resolved (my-validators)');
    expect(discordPayload(calm).content).toBe('✅ **RESOLVED**: alpha uptime is back above 80% (+1 more) · **alpha\\: 2 resolved** · my\\-validators');
    expect(telegramText(calm).split('\n').slice(0, 2)).toEqual(['✅ <b>RESOLVED</b>: alpha uptime is back above 80% (+1 more)', '<b>alpha: 2 resolved</b> · my-validators']);
  });

  it('a group with one alert still firing keeps its colour and "alerts"', () => {
    const mixed = [...calm, { ...base, alertId: 7, status: 'firing' as const, severity: 'warning' as const, summary: 'alpha uptime 84% is under 86%' }];
    expect(slackGroupMessage(mixed).blocks[0]).toMatchObject({ text: { text: '🟠 WARNING: alpha uptime 84% is under 86% (+2 more)' } });
    expect(slackGroupMessage(mixed).blocks[2]).toMatchObject({ elements: [{ text: expect.stringMatching(/^avawatch · validator-status · alpha: 3 alerts · /) }] });
    expect(emailMessage(mixed).subject).toBe('[WARNING] alpha uptime 84% is under 86% (+2 more)');
  });
});

describe("each line of a grouped post carries its alert's key details (the reward, the uptime, the version)", () => {
  const news: AlertMessage[] = [
    { ...base, alertId: 8, kind: 'validator-status', summary: 'alpha validation ended and was rewarded', details: { Node: 'NodeID-A', 'Validation reward': '22.947945205 AVAX', 'Staking tx': 'tx1' } },
    { ...base, alertId: 9, kind: 'validator-health', status: 'firing', severity: 'warning', rule: 'health', summary: 'alpha uptime 84% is under 86%', details: { Node: 'NodeID-A', Uptime: '84% (the service view)', Margin: '+4 points' } },
    { ...base, alertId: 10, kind: 'validator-health', status: 'firing', severity: 'warning', rule: 'health', summary: 'alpha runs an old AvalancheGo', details: { Node: 'NodeID-A', Version: 'avalanche/1.13.2' } },
  ];
  const reward = 'EVENT INFO my-validators: alpha validation ended and was rewarded · Validation reward: 22.947945205 AVAX';
  const uptime = 'FIRING WARNING health: alpha uptime 84% is under 86% · Uptime: 84% (the service view)';
  const version = 'FIRING WARNING health: alpha runs an old AvalancheGo · Version: avalanche/1.13.2';

  it('Slack, Telegram and mail list each with its key details; Discord shows them first in its embed', () => {
    const slack = (slackGroupMessage(news).blocks[1] as { text: { text: string } }).text.text.split('\n');
    expect(slack).toEqual([`• ${uptime}`, `• ${version}`, `• ${reward}`]);
    expect(telegramText(news).split('\n').slice(2, 5)).toEqual([`• ${uptime}`, `• ${version}`, `• ${reward}`]);
    const mail = emailMessage(news);
    expect(mail.text.split('\n').slice(1, 4)).toEqual([`- ${uptime}`, `- ${version}`, `- ${reward}`]);
    expect(mail.html).toContain(`<li>${reward}</li>`);
    const rewarded = discordPayload(news).embeds.find((e) => e.title.includes('rewarded'));
    expect(rewarded?.fields[0]).toEqual({ name: 'Validation reward', value: '22\\.947945205 AVAX', inline: true });
  });
});
