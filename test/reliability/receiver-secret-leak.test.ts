import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { activeValidator, completedValidator } from '../../src/sim/samples.js';
import { startSim } from '../../src/sim/server.js';
import { DISCORD_PATH, PAGERDUTY_KEY, startDiscord, startPagerDuty, startTelegram, TELEGRAM_CHAT, TELEGRAM_TOKEN } from '../helpers/chat-providers.js';
import { startLoggedApp } from '../helpers/app.js';
import { avawatch } from '../helpers/cli.js';
import { useFakeTime } from '../helpers/fake-time.js';
import { stateFile } from '../helpers/state-file.js';

// The Telegram bot token is in every request's path, the Discord webhook token in its URL,
// the PagerDuty routing key in the body: providers (or a proxy in front of them) that echo
// them in their errors must not get them into the log, `outbox`, the state file, /metrics
// or `notify-test`.

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const SECRETS = [TELEGRAM_TOKEN, TELEGRAM_TOKEN.split(':')[1]!, DISCORD_PATH, DISCORD_PATH.split('/').at(-1)!, PAGERDUTY_KEY];

describe('Telegram, Discord and PagerDuty answers that quote the credential', () => {
  it('never show it in the log, `outbox`, the state file, /metrics or `notify-test`', async ({ onTestFinished }) => {
    // The daemon in this process on fake time, started from its file and environment as `avawatch run` does.
    const t = useFakeTime();
    onTestFinished(() => t.restore());
    const sim = await startSim();
    const telegram = await startTelegram();
    const discord = await startDiscord();
    const pagerduty = await startPagerDuty();
    const dir = mkdtempSync(join(tmpdir(), 'avawatch-receiver-leak-'));
    onTestFinished(async () => {
      await Promise.all([sim.close(), telegram.close(), discord.close(), pagerduty.close()]);
      rmSync(dir, { recursive: true, force: true });
    });
    // First a retryable error page (HTML, the path in it), then a permanent JSON error that quotes it.
    let permanent = false;
    const page = (path: string) => `<html><body><pre>Cannot POST ${path} key=${PAGERDUTY_KEY}</pre></body></html>`;
    telegram.failAll((path) => (permanent ? telegram.error(404, `Not Found: ${path}`) : { status: 503, body: page(path) }));
    discord.failAll((path) => (permanent ? { status: 401, body: { message: `401: Unauthorized ${path}`, code: 0 } } : { status: 503, body: page(path) }));
    pagerduty.failAll((path) => (permanent ? pagerduty.invalidEvent(`Invalid routing key ${PAGERDUTY_KEY}`) : { status: 503, body: page(path) }));
    const now = sim.world.clock.now();
    const period = { nodeId: NODE, txHash: 'p', startTimestamp: now - 86_400, endTimestamp: now + 200 * 86_400 };
    sim.world.setValidators('mainnet', NODE, [activeValidator(period)]);
    const config = join(dir, 'avawatch.yaml');
    writeFileSync(
      config,
      `api: {dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0, timeout: 2s}
state: {path: "${join(dir, 'state.db')}"}
server: {listen: "127.0.0.1:0"}
route: {receivers: [tg, dc, pd]}
receivers:
  - {name: tg, type: telegram, botTokenFile: tg-token, chatId: "${TELEGRAM_CHAT}", apiUrl: "${telegram.apiUrl}", minInterval: 10ms, timeout: 2s}
  - {name: dc, type: discord, webhookUrl: "\${DISCORD_WEBHOOK_URL}", minInterval: 10ms, timeout: 2s}
  - {name: pd, type: pagerduty, routingKey: "\${PD_ROUTING_KEY}", apiUrl: "${pagerduty.apiUrl}", timeout: 2s}
delivery: {backoff: 50ms, backoffMax: 100ms}
ruleFiles: [rules.yaml]
`,
    );
    writeFileSync(join(dir, 'tg-token'), `${TELEGRAM_TOKEN}\n`);
    writeFileSync(join(dir, 'rules.yaml'), `rules:\n  - {name: my-validators, kind: validator-status, every: 1s, severity: critical, network: mainnet, nodeIds: [${NODE}]}\n`);
    const env = { DISCORD_WEBHOOK_URL: discord.webhookUrl, PD_ROUTING_KEY: PAGERDUTY_KEY };

    const d = await startLoggedApp(t, config, env);
    onTestFinished(() => d.stop());
    const url = d.app.url;
    const state = stateFile(join(dir, 'state.db'));
    await t.until(() => state.entities() >= 1, 'the baseline committed');
    sim.world.setValidators('mainnet', NODE, [completedValidator(period)]);
    await t.until(() => ['tg', 'dc', 'pd'].every((r) => new RegExp(`"receiver":"${r}".*"reason":"http_503"`).test(d.log())), 'a 503 from each', { within: 15_000 });
    permanent = true;
    await t.until(() => (d.log().match(/dead-lettered/g)?.length ?? 0) >= 3, 'each row dead-lettered', { within: 15_000 });
    const metrics = await (await fetch(`${url}/metrics`)).text();
    await d.stop();

    const outbox = await avawatch(['-c', config, 'outbox'], { cwd: dir, env });
    const outboxJson = await avawatch(['-c', config, 'outbox', '--json'], { cwd: dir, env });
    const files = readdirSync(dir)
      .filter((f) => f.startsWith('state.db'))
      .map((f) => readFileSync(join(dir, f)).toString('latin1'))
      .join('\n');
    const tests = await Promise.all(['tg', 'dc', 'pd'].map((r) => avawatch(['-c', config, 'notify-test', r], { cwd: dir, env })));

    const places = {
      log: d.log(),
      metrics,
      outbox: outbox.stdout + outbox.stderr,
      'outbox --json': outboxJson.stdout + outboxJson.stderr,
      'state file': files,
      'notify-test': tests.map((t) => t.stdout + t.stderr).join('\n'),
    };
    const leaks = Object.entries(places).flatMap(([where, text]) => SECRETS.filter((s) => text.includes(s)).map((s) => `"${s}" in ${where}`));
    expect(leaks).toEqual([]);

    // What the operator does see: the status, and the provider's reason with <secret> in place of the credential.
    expect(d.log()).toContain('telegram receiver \\"tg\\": HTTP 503 (body not shown)');
    const rows = outboxJson.stdout.trim().split('\n').map((l) => JSON.parse(l) as { receiver: string; state: string; lastError: string | null });
    expect(rows.map((r) => [r.receiver, r.state, r.lastError]).sort()).toEqual([
      ['dc', 'dead', 'discord receiver "dc": HTTP 401: 401: Unauthorized <secret> (code 0)'],
      ['pd', 'dead', 'pagerduty receiver "pd": HTTP 400: Event object is invalid: Invalid routing key <secret>'],
      ['tg', 'dead', 'telegram receiver "tg": HTTP 404: Not Found: /bot<secret>/sendMessage'],
    ]);
    expect(tests.map((t) => t.stderr)).toEqual([
      'telegram receiver "tg": HTTP 404: Not Found: /bot<secret>/sendMessage (permanent, reason http_404)\n',
      'discord receiver "dc": HTTP 401: 401: Unauthorized <secret> (code 0) (permanent, reason http_401)\n',
      'pagerduty receiver "pd": HTTP 400: Event object is invalid: Invalid routing key <secret> (permanent, reason http_400)\n',
    ]);
  }, 60_000);
});
