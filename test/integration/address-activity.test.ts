import { storedStates } from '../helpers/stored-states.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { composeApp } from '../../src/app/compose.js';
import { loadConfig } from '../../src/config/load.js';
import { applyChange, worldChange } from '../../src/sim/scenario.js';
import { startSim } from '../../src/sim/server.js';
import { expectEmailInert, expectSlackInert, HOSTILE } from '../helpers/hostile.js';
import { postFacts, startSlackReceiver } from '../helpers/slack-receiver.js';
import { startSmtpSink } from '../helpers/smtp.js';
import { useFakeTime } from '../helpers/fake-time.js';

// ERC-20 name and symbol are whatever a contract says: through the whole daemon (the
// simulator, the rule, routing, real Slack and SMTP servers on loopback) they arrive as text.

const WALLET = '0x7e2b5a0c4d1f93e8a6b0c2d47f1e9a3b5c8d0e6f';
const SENDER = '0x4f1a2b3c4d5e6f708192a3b4c5d6e7f809a1b2c3';
const RULE = 'token-watch';

describe('address-activity: hostile ERC-20 text', () => {
  it('a token named <!channel>, a link, HTML and CR/LF reaches Slack escaped and email inert', async ({ onTestFinished }) => {
    // The App on fake time (test/helpers/fake-time.ts); the simulator, Slack and SMTP real servers.
    const t = useFakeTime();
    const sim = await startSim();
    const slack = await startSlackReceiver({ wait: (check, what, ms) => t.until(check, what, ms === undefined ? {} : { within: ms }) });
    const smtp = await startSmtpSink();
    const dir = mkdtempSync(join(tmpdir(), 'avawatch-hostile-erc20-'));
    onTestFinished(async () => {
      t.restore();
      await sim.close();
      await slack.close();
      await smtp.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const change = (c: Record<string, unknown>) => applyChange(sim.world, worldChange.parse(c), sim.world.clock.nowMs());
    change({ evmTransactions: [{ txHash: '0x00', from: SENDER, to: WALLET, at: '-1h', erc20: [{ token: { address: `0x${'1'.repeat(40)}` }, from: SENDER, to: WALLET, value: 1 }] }] });
    writeFileSync(
      join(dir, 'avawatch.yaml'),
      `api: {dataUrl: "${sim.url}", retries: 0}
state: {path: "${join(dir, 'state.db')}"}
server: {listen: "127.0.0.1:0"}
route: {receivers: [slack, mail], groupBy: [tx_hash]}
receivers:
  - {name: slack, type: slack, webhookUrl: "${slack.webhookUrl}", minInterval: 10ms}
  - {name: mail, type: email, smtp: {host: 127.0.0.1, port: ${smtp.port}}, from: avawatch@example.com, to: ops@example.com}
ruleFiles: [rules.yaml]
`,
    );
    writeFileSync(join(dir, 'rules.yaml'), `rules:\n  - {name: ${RULE}, kind: address-activity, every: 1s, severity: info, chainId: 43114, addresses: ["${WALLET}"], lists: [erc20]}\n`);
    const app = composeApp(loadConfig(join(dir, 'avawatch.yaml'), {}), { logLevel: 'silent', readable: false, clock: t.clock }).app;
    onTestFinished(() => t.settle(app.stop(), 'the App to stop'));
    await app.start();
    await t.until(async () => (await storedStates(app.store, RULE))[`43114/${WALLET}/erc20`], 'the baseline');

    // One transaction per hostile token (grouped by tx_hash: one message each), name and symbol alike.
    const tokens = HOSTILE.map((text, i) => ({ address: `0x${String(i + 2).repeat(40)}`, name: text, symbol: text, decimals: 6 }));
    change({ evmTransactions: tokens.map((token, i) => ({ txHash: `0x0${i + 1}`, from: SENDER, to: WALLET, erc20: [{ token, from: SENDER, to: WALLET, value: '1.5' }] })) });
    await slack.waitForPosts(HOSTILE.length, 15_000);
    await t.settle(smtp.waitFor(HOSTILE.length, 15_000), 'the mails');
    expect(slack.posts).toHaveLength(HOSTILE.length);

    const slackText = expectSlackInert(slack.posts);
    const facts = slack.posts.map(postFacts);
    expect(facts.map((f) => f['Amount'])).toContainEqual('1.5 &lt;!channel&gt;');
    expect(facts.map((f) => f['Token'])).toContainEqual(`&lt;http://evil|x&gt; (&lt;http://evil|x&gt;) ${tokens[1]!.address}`);
    expect(slackText).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(slackText).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    // CR/LF is flattened in Slack too: the token cannot start a fake field.
    expect(facts.map((f) => f['Amount'])).toContainEqual('1.5 a Bcc: victim@example.com');
    expect(slack.posts.map((p) => p.body.text)).toContainEqual(`[EVENT INFO] ${RULE}: ${WALLET} received 1.5 &lt;!channel&gt; from ${SENDER}`);

    const html = expectEmailInert(smtp);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&lt;!channel&gt;');
    expect(html).toContain('&lt;http://evil|x&gt;');
    expect(smtp.messages.map((m) => m.subject)).toContainEqual(`[EVENT INFO] ${RULE}: ${WALLET} received 1.5 a Bcc: victim@example.com from ${SENDER}`);
    expect(smtp.messages.map((m) => m.text ?? '').join('\n')).toContain(`Token: a Bcc: victim@example.com (a Bcc: victim@example.com) ${tokens[4]!.address}\n`);
  }, 30_000);
});
