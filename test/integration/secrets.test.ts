import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { composeApp } from '../../src/app/compose.js';
import { loadConfig } from '../../src/config/load.js';
import { activeValidator } from '../../src/sim/samples.js';
import { startSim } from '../../src/sim/server.js';
import { DISCORD_PATH, PAGERDUTY_KEY, startDiscord, startPagerDuty, startTelegram, TELEGRAM_CHAT, TELEGRAM_TOKEN } from '../helpers/chat-providers.js';
import { startSlackReceiver } from '../helpers/slack-receiver.js';
import { startSmtpSink } from '../helpers/smtp.js';
import { useFakeTime } from '../helpers/fake-time.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const SECRETS = {
  apiKey: 'APIKEY-7f3a9c-never-print',
  hookToken: 'HOOKTOKEN-b41d-never-print',
  hookSecret: 'HMACSECRET-99-never-print',
  smtpPass: 'SMTPPASS-5e5e-never-print',
  telegramToken: TELEGRAM_TOKEN,
  telegramTokenSecretPart: TELEGRAM_TOKEN.split(':')[1]!,
  discordToken: DISCORD_PATH.split('/').at(-1)!,
  pagerdutyKey: PAGERDUTY_KEY,
};

describe('secrets never reach logs, errors or /metrics, whatever fails', () => {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('with every channel and the API failing', async () => {
    // The App on fake time (test/helpers/fake-time.ts): its retries cost no real wait.
    const t = useFakeTime();
    cleanups.push(() => t.restore());
    const sim = await startSim();
    cleanups.push(() => sim.close());
    const slack = await startSlackReceiver();
    cleanups.push(() => slack.close());
    slack.failAll(500);
    const smtp = await startSmtpSink({ user: 'avawatch', pass: 'the-right-one' });
    cleanups.push(() => smtp.close());
    const hook: Server = createServer((_req, res) => res.writeHead(503).end());
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => hook.close(r)));
    // Telegram, Discord and PagerDuty fail too, each quoting the credential it was sent in its error.
    const telegram = await startTelegram();
    cleanups.push(() => telegram.close());
    telegram.failAll((path) => telegram.error(502, `Bad Gateway: ${path} (${encodeURIComponent(TELEGRAM_TOKEN)})`));
    const discord = await startDiscord();
    cleanups.push(() => discord.close());
    discord.failAll((path) => ({ status: 400, body: { message: `Invalid Webhook Token ${path}`, code: 50027 } }));
    const pagerduty = await startPagerDuty();
    cleanups.push(() => pagerduty.close());
    pagerduty.failAll(() => pagerduty.invalidEvent(`Invalid routing key ${PAGERDUTY_KEY}`));
    const dir = mkdtempSync(join(tmpdir(), 'avawatch-secrets-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const now = sim.world.clock.now();
    sim.world.setValidators('mainnet', NODE, [activeValidator({ nodeId: NODE, txHash: 'p', startTimestamp: now - 86_400, endTimestamp: now + 86_400 })]);
    const config = join(dir, 'avawatch.yaml');
    writeFileSync(
      config,
      `api: {dataUrl: "${sim.url}", metricsUrl: "${sim.url}", apiKey: "\${KEY}", retries: 0}
state: {path: "${join(dir, 'state.db')}"}
server: {listen: "127.0.0.1:0"}
route: {receivers: [slack, hook, mail, tg, dc, pd]}
receivers:
  - {name: slack, type: slack, webhookUrl: "\${SLACK}", minInterval: 10ms}
  - {name: hook, type: webhook, url: "http://127.0.0.1:${(hook.address() as AddressInfo).port}/in/${SECRETS.hookToken}", secret: "\${HMAC}"}
  - {name: mail, type: email, smtp: {host: 127.0.0.1, port: ${smtp.port}, auth: {user: avawatch, pass: "\${PASS}"}}, from: a@example.com, to: b@example.com}
  - {name: tg, type: telegram, botToken: "\${TG}", chatId: "${TELEGRAM_CHAT}", apiUrl: "${telegram.apiUrl}", minInterval: 10ms}
  - {name: dc, type: discord, webhookUrl: "\${DISCORD}", minInterval: 10ms}
  - {name: pd, type: pagerduty, routingKey: "\${PD}", apiUrl: "${pagerduty.apiUrl}"}
delivery: {backoff: 50ms, backoffMax: 200ms}
ruleFiles: [rules.yaml]
`,
    );
    writeFileSync(join(dir, 'rules.yaml'), `rules:\n  - {name: ending, kind: validation-end, every: 1s, severity: critical, network: mainnet, nodeIds: [${NODE}]}\n`);
    const logged: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => {
      logged.push(String(c));
      return true;
    });
    const loaded = loadConfig(config, { KEY: SECRETS.apiKey, SLACK: `${slack.webhookUrl}`, HMAC: SECRETS.hookSecret, PASS: SECRETS.smtpPass, TG: TELEGRAM_TOKEN, DISCORD: discord.webhookUrl, PD: PAGERDUTY_KEY });
    const { app, sink } = composeApp(loaded, { logLevel: 'debug', readable: false, clock: t.clock });
    cleanups.push(() => t.settle(app.stop(), 'the App to stop'));
    await app.start();
    // Every receiver fails: Slack 500, webhook 503, SMTP 535 (wrong password).
    await t.until(() => ['http_500', 'http_503', 'smtp_535', 'http_502', 'http_400'].every((r) => logged.join('').includes(`"reason":"${r}"`)), 'a failure from every channel', { within: 15_000 });
    await t.until(async () => {
      const rows = await app.store.outbox();
      return ['tg', 'dc', 'pd'].every((r) => rows.some((row) => row.receiver === r && row.lastError !== null));
    }, 'Telegram, Discord and PagerDuty errors in the outbox');
    // The API fails too: its error is logged.
    sim.world.faults.push(...Array.from({ length: 3 }, () => ({ status: 500, body: `{"message":"echo ${SECRETS.apiKey}","statusCode":500}` })));
    await t.until(() => logged.join('').includes('rule evaluation failed'), 'a failed evaluation');
    // Even a careless log of the whole config.
    sink.log.error({ config: loaded.config }, 'config dump');

    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    const errors = (await app.store.outbox()).map((r) => r.lastError ?? '').join('\n');
    const everything = [logged.join(''), metrics, errors].join('\n');
    for (const [name, value] of Object.entries(SECRETS)) expect(everything, name).not.toContain(value);
    expect(everything).not.toContain('XXXXsecretXXXXtokenXXXX'); // the Slack webhook's secret path
    expect(logged.join('')).toContain('<secret>');
    // The providers' own descriptions are kept, the credentials in them scrubbed.
    expect(errors).toContain('telegram receiver "tg": HTTP 502: Bad Gateway: /bot<secret>/sendMessage (<secret>)');
    expect(errors).toContain('discord receiver "dc": HTTP 400: Invalid Webhook Token <secret> (code 50027)');
    expect(errors).toContain('pagerduty receiver "pd": HTTP 400: Event object is invalid: Invalid routing key <secret>');
  }, 30_000);
});
