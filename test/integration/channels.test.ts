import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimClock } from '../../src/sim/clock.js';
import { activeValidator } from '../../src/sim/samples.js';
import { World } from '../../src/sim/world.js';
import { startAlertmanager, type RunningAlertmanager } from '../helpers/alertmanager.js';
import { PAGERDUTY_KEY, startDiscord, startPagerDuty, startTelegram, TELEGRAM_CHAT, TELEGRAM_TOKEN } from '../helpers/chat-providers.js';
import { startDaemon, type Daemon } from '../helpers/daemon.js';
import { postFacts } from '../helpers/slack-receiver.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
/**
 * How far the daemon's clock (the simulator's) stands behind Alertmanager's wall clock, on which it
 * reads endsAt: by more than the fake time the test pumps before the resolution (under 10 s), so
 * the resolution is in Alertmanager's past on arrival and ends the alert at once. A firing alert
 * lives three resend intervals (90 s) of the daemon's time, 70 s of Alertmanager's.
 */
const BEHIND_MS = 20_000;

// Every channel, through the whole daemon, against real servers: firing, a reminder, resolved.
// The daemon (the simulator, the App, the Slack receiver) runs on the fixture's fake time
// (test/helpers/daemon.ts); the other receivers are real servers, started before it.
describe('every channel receives firing, repeat and resolved notifications', () => {
  let d: Daemon & { stop(): Promise<void> };
  let smtp: SmtpSink;
  let am: RunningAlertmanager;
  let hook: Server;
  const hookBodies: Array<{ status: string; alerts: Array<{ status: string; details: Record<string, string> }> }> = [];
  const amSeen: string[] = [];
  let telegram: Awaited<ReturnType<typeof startTelegram>>;
  let discord: Awaited<ReturnType<typeof startDiscord>>;
  let pagerduty: Awaited<ReturnType<typeof startPagerDuty>>;
  const slack = () => d.slack;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    am = await startAlertmanager();
    telegram = await startTelegram();
    discord = await startDiscord();
    pagerduty = await startPagerDuty();
    hook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        hookBodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    let now = 0;
    d = await startDaemon({
      logLevel: 'error',
      sim: { world: new World(new SimClock(Date.now() - BEHIND_MS, 1)) },
      project: ({ dataUrl, webhookUrl, statePath }) => ({
        'avawatch.yaml': `api: {dataUrl: "${dataUrl}", metricsUrl: "${dataUrl}", retries: 0}
state: {path: "${statePath}"}
server: {listen: "127.0.0.1:0"}
route: {receivers: [slack, mail, hook, am, tg, dc, pd], repeatInterval: 3s}
receivers:
  - {name: slack, type: slack, webhookUrl: "${webhookUrl}", minInterval: 10ms}
  - {name: mail, type: email, smtp: {host: 127.0.0.1, port: ${smtp.port}}, from: avawatch@example.com, to: ops@example.com}
  - {name: hook, type: webhook, url: "http://127.0.0.1:${(hook.address() as AddressInfo).port}/h", secret: s3cret}
  - {name: am, type: alertmanager, url: "${am.url}", resendInterval: 30s}
  - {name: tg, type: telegram, botToken: "${TELEGRAM_TOKEN}", chatId: "${TELEGRAM_CHAT}", apiUrl: "${telegram.apiUrl}", minInterval: 10ms}
  - {name: dc, type: discord, webhookUrl: "${discord.webhookUrl}", minInterval: 10ms}
  - {name: pd, type: pagerduty, routingKey: "${PAGERDUTY_KEY}", apiUrl: "${pagerduty.apiUrl}"}
ruleFiles: [rules.yaml]
`,
        'rules.yaml': `rules:\n  - {name: ending, kind: validation-end, every: 1s, for: 2s, severity: critical, network: mainnet, nodeIds: [${NODE}]}\n`,
      }),
      before: ({ sim }) => {
        now = sim.world.clock.now();
        sim.world.setValidators('mainnet', NODE, [activeValidator({ nodeId: NODE, txHash: 'p1', startTimestamp: now - 86_400, endTimestamp: now + 2 * 86_400 })]);
      },
    });
    // firing (held for 2 s), then (3 s later) a reminder, then resolved by a new validation period.
    await d.slack.waitForPosts(2, 15_000);
    await d.until(async () => {
      const list = await am.alerts();
      if (list[0]) amSeen.push(list[0].status.state);
      return list.length > 0;
    }, 'Alertmanager to have the alert');
    d.sim.world.setValidators('mainnet', NODE, [activeValidator({ nodeId: NODE, txHash: 'p2', startTimestamp: now, endTimestamp: now + 200 * 86_400 })]);
    await d.slack.waitForPosts(3, 60_000);
    // Fake time's budget, not the product's: SMTP's and HTTP's exchanges take real turns while
    // each turn moves fake time 10 ms, so a loaded machine spends more of it (beside the whole
    // suite and two busy loops, 60 s of it ran out once); the hook's real 60 s still bounds it.
    await d.until(() => smtp.messages.length >= 3 && hookBodies.length >= 3, 'mail and webhook to catch up', { within: 240_000 });
    await d.until(() => telegram.accepted().length >= 3 && discord.accepted().length >= 3 && pagerduty.accepted().length >= 3, 'Telegram, Discord and PagerDuty to catch up', { within: 240_000 });
  }, 60_000);

  afterAll(async () => {
    await d?.stop();
    await am?.stop();
    await smtp?.close();
    await telegram?.close();
    await discord?.close();
    await pagerduty?.close();
    if (hook) {
      hook.closeAllConnections();
      await new Promise((r) => hook.close(r));
    }
  });

  it('Slack', () => {
    expect(slack().posts.map((p) => p.body.text.slice(0, 34))).toEqual(['[FIRING CRITICAL] ending: NodeID-7', '[FIRING CRITICAL] ending: NodeID-7', '[RESOLVED CRITICAL] ending: NodeID']);
    expect(postFacts(slack().posts[1]!)).toMatchObject({ Reminder: 'still firing' });
  });

  it('email', () => {
    expect(smtp.messages.slice(0, 3).map((m) => m.subject?.slice(0, 25))).toEqual(['[FIRING CRITICAL] ending:', '[FIRING CRITICAL] ending:', '[RESOLVED CRITICAL] endin']);
    expect(smtp.messages[1]!.text).toContain('Reminder: still firing');
  });

  it('email: the firing says how long it held in whole seconds; the resolved mail says when it fired and repeats no unchanged detail (issue 38)', () => {
    const [firing, , resolved] = smtp.messages.map((m) => m.text ?? '');
    const fact = (text: string, name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(text)?.[1];
    expect(fact(firing!, 'Held for')).toMatch(/^\d+s$/);
    // "Fired at" is the firing (the firing mail's time), "Failing since" the first poll that saw it: `for: 2s` less half the 1 s interval before.
    const firedAt = Date.parse(fact(resolved!, 'Fired at') ?? '');
    const since = Date.parse(fact(resolved!, 'Failing since') ?? '');
    expect(Math.abs(firedAt - Date.parse(fact(firing!, 'When') ?? ''))).toBeLessThan(1_000);
    expect(firedAt - since).toBeGreaterThanOrEqual(1_500);
    expect(fact(firing!, 'Failing since')).toBe(fact(resolved!, 'Failing since'));
    // A figure of then that the present reads again is one that changed; one unchanged (the node) is said once.
    const then = [...resolved!.matchAll(/^When it fired: ([^:]+): (.*)$/gm)];
    expect(then.map(([, name]) => name)).toContain('Staking tx');
    for (const [, name, value] of then) expect(fact(resolved!, name!), name).not.toBe(value);
    expect(resolved!.match(/^(When it fired: )?Node: /gm)).toEqual(['Node: ']);
  });

  it('webhook', () => {
    expect(hookBodies.slice(0, 3).map((b) => b.status)).toEqual(['firing', 'firing', 'resolved']);
    expect(hookBodies[1]!.alerts[0]!.details['Reminder']).toBe('still firing');
  });

  it('Alertmanager: active while firing, gone once resolved', async () => {
    expect(amSeen).toContain('active');
    // Ended on arrival (its endsAt in Alertmanager's past): the firing alert itself would live 70 s on.
    await d.until(async () => (await am.alerts()).length === 0, 'resolution in Alertmanager', { within: 5_000 });
  });

  it('Telegram', () => {
    const texts = telegram.accepted().map((r) => r.body.text);
    expect(texts.slice(0, 3).map((t) => t.slice(0, 29))).toEqual(['🔴 <b>FIRING CRITICAL</b> · N', '🔴 <b>FIRING CRITICAL</b> · N', '✅ <b>RESOLVED CRITICAL</b> · ']);
    expect(texts[1]).toContain('<b>Reminder:</b> still firing');
    expect(telegram.invalid()).toEqual([]);
  });

  it('Discord', () => {
    const embeds = discord.accepted().map((r) => r.body.embeds![0]!);
    expect(embeds.slice(0, 3).map((e) => e.title!.slice(0, 18))).toEqual(['FIRING CRITICAL · ', 'FIRING CRITICAL · ', 'RESOLVED CRITICAL ']);
    expect(embeds[1]!.fields).toContainEqual({ name: 'Reminder', value: 'still firing', inline: true });
    expect(discord.accepted().every((r) => r.body.allowed_mentions?.parse?.length === 0)).toBe(true);
    expect(discord.invalid()).toEqual([]);
  });

  it('PagerDuty: one incident, its reminder deduplicated into it, closed by the resolve', () => {
    const events = pagerduty.accepted().slice(0, 3).map((r) => r.body);
    expect(events.map((e) => e.event_action)).toEqual(['trigger', 'trigger', 'resolve']);
    expect(new Set(events.map((e) => e.dedup_key)).size).toBe(1);
    expect(events[0]!.dedup_key).toBe(`avawatch/ending/validation-end/${NODE}`);
    expect(pagerduty.opened).toBe(1);
    expect(pagerduty.open.size).toBe(0);
    expect(pagerduty.invalid().map((r) => [r.body, r.answer])).toEqual([]);
  });
});
