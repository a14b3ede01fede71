import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { composeApp } from '../../src/app/compose.js';
import { loadConfig } from '../../src/config/load.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { PAGERDUTY_KEY, startDiscord, startPagerDuty, startTelegram, TELEGRAM_CHAT, TELEGRAM_TOKEN, telegramPlain } from '../helpers/chat-providers.js';
import { avawatch } from '../helpers/cli.js';
import { useFakeTime, type FakeTime } from '../helpers/fake-time.js';

// Telegram, Discord and PagerDuty through the whole daemon, against stand-ins that refuse
// (with the provider's 400) any message over a limit: a storm of twenty ICM messages with
// 2,000-character hostile chain text goes out as one message each (PagerDuty: an event
// each) after a 429 the daemon waits out, and a hostile token name arrives inert. The App
// runs on fake time (test/helpers/fake-time.ts): the 429s' waits and the backoffs cost none.

const STORM = '0xabc0000000000000000000000000000000000001';
const ONE = '0xabc0000000000000000000000000000000000002';
const HOSTILE = '<!channel> @everyone @here <b>bold</b> <@123> <@&456> **md** [x](https://evil.example) line\r\nbreak';
const STORM_SIZE = 20;

describe('Telegram, Discord and PagerDuty receivers through the daemon', () => {
  let sim: SimServer;
  let telegram: Awaited<ReturnType<typeof startTelegram>>;
  let discord: Awaited<ReturnType<typeof startDiscord>>;
  let pagerduty: Awaited<ReturnType<typeof startPagerDuty>>;
  let dir: string;
  let config: string;
  let app: App;
  let time: FakeTime;

  beforeAll(async () => {
    time = useFakeTime();
    sim = await startSim();
    telegram = await startTelegram();
    discord = await startDiscord();
    pagerduty = await startPagerDuty();
    // Each provider's first answer: its 429.
    telegram.failNext(telegram.tooMany(1));
    discord.failNext(discord.tooMany(0.8));
    pagerduty.failNext(pagerduty.tooMany());
    const now = sim.world.clock.now();
    const icm = (address: string, i: number, over: { destinationEvmChainId?: string; rewardName?: string; rewardSymbol?: string }) =>
      sim.world.addIcmMessage(
        'mainnet',
        {
          messageId: `0x${address.slice(-1)}${String(i + 1).padStart(63, '0')}`,
          from: address,
          to: address,
          sourceBlockchainId: 'src-chain',
          destinationBlockchainId: 'dst-chain',
          sourceEvmChainId: '43114',
          destinationEvmChainId: '1',
          sourceTimestamp: now - 3_600,
          ...over,
        },
        'pending',
      );
    // The destination chain is in the summary: 2,000 characters of it each, hostile.
    for (let i = 0; i < STORM_SIZE; i++) icm(STORM, i, { destinationEvmChainId: `${HOSTILE} ${'&<>*_@'.repeat(330)} ${i}`, rewardName: `${HOSTILE} ${'x'.repeat(3000)}` });
    icm(ONE, 0, { rewardName: HOSTILE, rewardSymbol: '<b>' });
    dir = mkdtempSync(join(tmpdir(), 'avawatch-receivers-'));
    config = join(dir, 'avawatch.yaml');
    writeFileSync(
      config,
      `api: {dataUrl: "${sim.url}", retries: 0}
state: {path: "${join(dir, 'state.db')}"}
server: {listen: "127.0.0.1:0"}
route:
  receivers: [tg, dc, pd]
  routes:
    - {match: {rule: icm-one}, groupBy: [message_id]}
receivers:
  - {name: tg, type: telegram, botToken: "\${TG_TOKEN}", chatId: "${TELEGRAM_CHAT}", apiUrl: "${telegram.apiUrl}", minInterval: 10ms}
  - {name: dc, type: discord, webhookUrl: "\${DISCORD_URL}", minInterval: 10ms}
  - {name: pd, type: pagerduty, routingKey: "\${PD_KEY}", apiUrl: "${pagerduty.apiUrl}"}
delivery: {backoff: 300ms, backoffMax: 600ms}
ruleFiles: [rules.yaml]
`,
    );
    writeFileSync(
      join(dir, 'rules.yaml'),
      `rules:
  - {name: icm-storm, kind: icm-pending, every: 1s, severity: warning, network: mainnet, addresses: ["${STORM}"], olderThan: 15m}
  - {name: icm-one, kind: icm-pending, every: 1s, severity: critical, network: mainnet, addresses: ["${ONE}"], olderThan: 15m}
`,
    );
    app = composeApp(loadConfig(config, env()), { logLevel: 'silent', readable: false, clock: time.clock }).app;
    await app.start();
    await time.until(() => telegram.accepted().length >= 2 && discord.accepted().length >= 2 && pagerduty.accepted().length >= STORM_SIZE + 1, 'both groups at every receiver', { within: 20_000 });
  }, 40_000);

  afterAll(async () => {
    await time.settle(app.stop(), 'the App to stop');
    time.restore();
    await sim.close();
    await telegram.close();
    await discord.close();
    await pagerduty.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function env(): Record<string, string> {
    return { TG_TOKEN: TELEGRAM_TOKEN, DISCORD_URL: discord.webhookUrl, PD_KEY: PAGERDUTY_KEY };
  }

  /** The first request after the 429 came at least `ms` after it. */
  function waited(received: Array<{ status: number; at: number }>, ms: number): void {
    expect(received[0]!.status).toBe(429);
    expect(received[1]!.at - received[0]!.at).toBeGreaterThanOrEqual(ms - 50);
  }

  it('Telegram: waits out retry_after, then one message per group, within 4,096 characters, "+N more"', () => {
    expect(telegram.invalid()).toEqual([]);
    waited(telegram.received, 1_000);
    const storm = telegram.accepted().find((r) => r.body.text.includes(`${STORM_SIZE} alerts`))!;
    const plain = telegramPlain(storm.body.text);
    expect('text' in plain && plain.text.length).toBeLessThanOrEqual(4096);
    expect(storm.body.text).toMatch(/\n\+\d+ more\n<i>avawatch · icm-pending/);
    expect(storm.body.parse_mode).toBe('HTML');
  });

  it('Telegram: the hostile token name is text, on one line', () => {
    const one = telegram.accepted().find((r) => r.body.text.includes('Reward token'))!;
    expect(one.body.text).toContain('<b>Reward token:</b> &lt;!channel&gt; @everyone @here &lt;b&gt;bold&lt;/b&gt; &lt;@123&gt; &lt;@&amp;456&gt; **md** [x](https://evil.example) line break (&lt;b&gt;)');
    const plain = telegramPlain(one.body.text);
    expect('text' in plain && plain.text).toContain('Reward token: <!channel> @everyone @here <b>bold</b> <@123>');
    expect(one.body.text).not.toMatch(/\r/);
  });

  it('Discord: honours retry_after, then ten embeds within 6,000 characters and "+N more"', () => {
    expect(discord.invalid()).toEqual([]);
    waited(discord.received, 800);
    const storm = discord.accepted().find((r) => r.body.embeds!.length > 1)!;
    expect(storm.body.embeds).toHaveLength(10);
    expect(storm.body.content).toMatch(new RegExp(`^🟠 \\*\\*WARNING\\*\\*: .* \\(\\+${STORM_SIZE - 1} more\\) · \\*\\*${STORM_SIZE} alerts\\*\\* · icm\\\\-storm\\n\\+${STORM_SIZE - 10} not shown below$`));
  });

  it('Discord: nothing can mention or link; the token name shows as typed', () => {
    const all = JSON.stringify(discord.accepted().map((r) => r.body));
    expect(all).not.toMatch(/@everyone|@here|<@!?&?\d+>|https:\/\/evil|\\r|\\n(?!\+)/);
    for (const r of discord.accepted()) expect(r.body.allowed_mentions).toEqual({ parse: [] });
    const one = discord.accepted().find((r) => r.body.embeds!.length === 1)!;
    const token = one.body.embeds![0]!.fields!.find((f) => f.name === 'Reward token')!.value!;
    // Each markdown character escaped, each @ followed by a zero-width space; read back, it is the name as typed, on one line.
    expect(token.replace(/\\[\\*_~`|>#\-[\]()<:.+]/g, '')).not.toMatch(/[*_~`|>#[\]()<:]/);
    expect(token.replace(/\\(.)/g, '$1').replaceAll('\u200b', '')).toBe(`${HOSTILE.replace('\r\n', ' ')} (<b>)`);
  });

  it('PagerDuty: after the 429, one event per alert, each its own incident, summary within 1,024 on one line', () => {
    expect(pagerduty.invalid()).toEqual([]);
    expect(pagerduty.received[0]!.status).toBe(429);
    const triggers = pagerduty.accepted().map((r) => r.body);
    expect(triggers).toHaveLength(STORM_SIZE + 1);
    expect(new Set(triggers.map((t) => t.dedup_key)).size).toBe(STORM_SIZE + 1);
    expect(pagerduty.opened).toBe(STORM_SIZE + 1);
    for (const t of triggers) {
      expect(t.payload!.summary!.length).toBeLessThanOrEqual(1024);
      expect(t.payload!.summary).not.toMatch(/[\r\n]/);
    }
  });

  it('PagerDuty: the ICM message delivered resolves its incident, and only it', async () => {
    sim.world.setIcmStatus(`0x2${String(1).padStart(63, '0')}`, 'delivered');
    await time.until(() => pagerduty.accepted().some((r) => r.body.event_action === 'resolve'), 'the resolve', { within: 15_000 });
    expect(pagerduty.open.size).toBe(STORM_SIZE);
    expect([...pagerduty.open.keys()].every((k) => k.startsWith('avawatch/icm-storm/icm-pending/'))).toBe(true);
  });

  it('notify-test reaches each, and says why not with the provider\'s reason', async () => {
    const cli = (name: string) => avawatch(['-c', config, 'notify-test', name], { cwd: dir, env: env() });
    for (const name of ['tg', 'dc', 'pd']) expect(await cli(name), name).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^sent a test message to ${name} \\((telegram|discord|pagerduty)\\)\n$`)) });
    expect(telegram.accepted().at(-1)!.body.text).toContain('avawatch test message for receiver tg');
    expect(pagerduty.accepted().at(-1)!.body).toMatchObject({ event_action: 'trigger', payload: { severity: 'info', summary: 'avawatch test message for receiver pd' } });

    telegram.failNext(telegram.error(403, 'Forbidden: bot was blocked by the user'));
    discord.failNext({ status: 404, body: { message: 'Unknown Webhook', code: 10015 } });
    pagerduty.failNext(pagerduty.invalidEvent('Invalid routing key'));
    expect(await cli('tg')).toMatchObject({ code: 1, stderr: 'telegram receiver "tg": HTTP 403: Forbidden: bot was blocked by the user (permanent, reason http_403)\n' });
    expect(await cli('dc')).toMatchObject({ code: 1, stderr: 'discord receiver "dc": HTTP 404: Unknown Webhook (code 10015) (permanent, reason http_404)\n' });
    expect(await cli('pd')).toMatchObject({ code: 1, stderr: 'pagerduty receiver "pd": HTTP 400: Event object is invalid: Invalid routing key (permanent, reason http_400)\n' });
    telegram.failNext(telegram.tooMany(5));
    expect(await cli('tg')).toMatchObject({ code: 1, stderr: 'telegram receiver "tg": HTTP 429: Too Many Requests: retry after 5 (temporary: would be retried, reason http_429)\n' });
  }, 30_000);
});
