import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { activeValidator } from '../../src/sim/samples.js';
import { startSim } from '../../src/sim/server.js';
import { startLoggedApp } from '../helpers/app.js';
import { avawatch } from '../helpers/cli.js';
import { useFakeTime } from '../helpers/fake-time.js';
import { postText, startSlackReceiver, WEBHOOK_SECRET_PATH } from '../helpers/slack-receiver.js';
import { startSmtpSink } from '../helpers/smtp.js';

// The secrets scenario of security.test.ts and slack-error-body-leak.test.ts, which differ
// only in what Slack's error body says. Not a test file itself.

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const API_KEY = 'APIKEY-rel-7f3a9c-never-print';
const SMTP_PASS = 'SMTPPASS-rel-5e5e-never-print';

/**
 * The daemon (in this process, on fake time, from its config file and environment as
 * `avawatch run` starts it) with a key, a Slack webhook and an SMTP password, while the API refuses
 * the key (401, quoting it), Slack answers 500 with `slackBody(webhookUrl)` and the SMTP
 * server refuses the password (535). None of the three may show in the log, in
 * `outbox --json`, on /metrics, or in the rule-failing alert Slack gets once it is back.
 */
export async function secretsScenario(onTestFinished: (fn: () => Promise<void> | void) => void, slackBody: (webhookUrl: string) => string): Promise<void> {
    const t = useFakeTime();
    onTestFinished(() => t.restore());
    const sim = await startSim();
    const slack = await startSlackReceiver({ wait: (check, what, ms) => t.until(check, what, ms === undefined ? {} : { within: ms }) });
    const smtp = await startSmtpSink({ user: 'avawatch', pass: 'the-right-one' });
    const dir = mkdtempSync(join(tmpdir(), 'avawatch-security-'));
    onTestFinished(async () => {
      await sim.close();
      await slack.close();
      await smtp.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const now = sim.world.clock.now();
    sim.world.setValidators('mainnet', NODE, [activeValidator({ nodeId: NODE, txHash: 'p', startTimestamp: now - 86_400, endTimestamp: now + 200 * 86_400 })]);
    const config = join(dir, 'avawatch.yaml');
    writeFileSync(
      config,
      `api: {dataUrl: "${sim.url}", metricsUrl: "${sim.url}", apiKey: "\${AVAWATCH_API_KEY}", retries: 0, timeout: 2s}
state: {path: "${join(dir, 'state.db')}"}
server: {listen: "127.0.0.1:0"}
route: {receivers: [slack, mail]}
receivers:
  - {name: slack, type: slack, webhookUrl: "\${SLACK_WEBHOOK_URL}", minInterval: 10ms, timeout: 1s}
  - {name: mail, type: email, smtp: {host: 127.0.0.1, port: ${smtp.port}, auth: {user: avawatch, pass: "\${SMTP_PASS}"}}, from: avawatch@example.com, to: ops@example.com, timeout: 2s}
delivery: {backoff: 50ms, backoffMax: 200ms}
ruleFiles: [rules.yaml]
`,
    );
    writeFileSync(join(dir, 'rules.yaml'), `rules:\n  - {name: my-validators, kind: validator-status, every: 1s, severity: critical, network: mainnet, nodeIds: [${NODE}]}\n`);
    const env = { AVAWATCH_API_KEY: API_KEY, SLACK_WEBHOOK_URL: slack.webhookUrl, SMTP_PASS };
    // The webhook URL, and its secret part alone (the last path segment is the credential).
    const secrets = { apiKey: API_KEY, webhookUrl: slack.webhookUrl, webhookToken: WEBHOOK_SECRET_PATH.split('/').at(-1)!, smtpPass: SMTP_PASS };

    // Slack answers 500 and quotes the URL it was called on; SMTP refuses the password (535).
    slack.failAll(500, slackBody(slack.webhookUrl));
    const d = await startLoggedApp(t, config, env);
    onTestFinished(() => d.stop());
    const url = d.app.url;
    const polled = sim.requests.length;
    await t.until(() => sim.requests.length >= polled + 1, 'the baseline');
    // The API refuses the key and quotes it back: three polls fail and rule-failing fires.
    sim.world.faults.push(...Array.from({ length: 3 }, () => ({ status: 401, body: JSON.stringify({ message: `invalid api key ${API_KEY}`, error: 'Unauthorized', statusCode: 401 }) })));
    await t.until(() => /"reason":"http_500"/.test(d.log()) && /"reason":"smtp_535"/.test(d.log()), 'a failed post to Slack and a refused login', { within: 20_000 });
    expect(d.log()).toContain('HTTP 401: invalid api key <secret>');

    const metrics = await (await fetch(`${url}/metrics`)).text();
    const outbox = await avawatch(['-c', config, 'outbox', '--json'], { cwd: dir, env });
    expect(outbox.code, outbox.stderr).toBe(0);
    const rows = outbox.stdout.trim().split('\n').map((l) => JSON.parse(l) as { receiver: string; state: string; lastError: string | null; summary: string });
    expect(rows.filter((r) => r.receiver === 'mail' && r.state === 'dead').map((r) => r.lastError)).toContainEqual(expect.stringMatching(/^email receiver "mail": SMTP 535 /));
    expect(rows.filter((r) => r.receiver === 'slack').map((r) => r.lastError)).toContainEqual(expect.stringMatching(/^slack receiver "slack": HTTP 500/));

    // Slack comes back: the rule-failing alert it gets names the API's error, not the key.
    slack.failAll(undefined);
    const [blind] = await slack.waitForPosts(1, 15_000);
    // A refused key is the service's cause, not the rule's: avawatch's one alert of it (the
    // service's text, scrubbed, is in its details and the log above; none of it may hold a secret).
    expect(postText(blind!)).toContain('avawatch cannot see: the data service refuses the API key (401)');
    await d.stop();

    const places = { log: d.log(), outbox: outbox.stdout + outbox.stderr, metrics, slack: slack.posts.map(postText).join('\n') };
    for (const [where, text] of Object.entries(places)) {
      for (const [name, value] of Object.entries(secrets)) expect(text, `${name} in ${where}`).not.toContain(value);
    }
}
