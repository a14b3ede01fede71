import { describe, expect, it } from 'vitest';
import { startDaemon } from '../helpers/daemon.js';
import { expectEmailInert, expectSlackInert } from '../helpers/hostile.js';
import { postFacts } from '../helpers/slack-receiver.js';
import { startSmtpSink } from '../helpers/smtp.js';
import { secretsScenario } from './secrets-scenario.js';

// Secrets against the real process (its own logger on stderr, `outbox --json`, /metrics),
// and hostile chain text through a rule into Slack and email. test/integration/secrets.test.ts
// covers the in-process daemon with every channel failing; this adds the spawned CLI,
// error bodies that echo the secret back, the notifications avawatch itself sends about
// the failure, and chain text end to end.

describe.concurrent('secrets, with the API and every channel failing', () => {
  it('never reach the log, `outbox --json`, /metrics or the alerts sent about the failure, even when the API echoes the key', async ({ onTestFinished }) => {
    // Slack's error body is its usual short code here; one that quotes the webhook URL: slack-error-body-leak.test.ts.
    await secretsScenario(onTestFinished, () => 'internal_error');
  }, 45_000);
});

// On the daemon fixture's fake time (test/helpers/daemon.ts): real loopback sockets to the
// simulator, Slack and SMTP, no wait on the wall clock (it timed out once at 30 s under load).
describe('hostile chain text', () => {
  const hostile = ['<!channel>', '<http://evil|x>', '<script>alert(1)</script>', 'a\r\nBcc: victim@example.com'];
  const ADDRESS = '0xabc0000000000000000000000000000000000001';

  it('token names from ICM messages reach Slack escaped and email inert: no mention, no link, no markup, no extra header', async ({ onTestFinished }) => {
    const smtp = await startSmtpSink();
    onTestFinished(() => smtp.close());
    const d = await startDaemon({
      logLevel: 'error',
      project: ({ dataUrl, webhookUrl, statePath }) => ({
        'avawatch.yaml': `api: {dataUrl: "${dataUrl}", retries: 0}
state: {path: "${statePath}"}
server: {listen: "127.0.0.1:0"}
route: {receivers: [slack, mail], groupBy: [message_id]}
receivers:
  - {name: slack, type: slack, webhookUrl: "${webhookUrl}", minInterval: 10ms}
  - {name: mail, type: email, smtp: {host: 127.0.0.1, port: ${smtp.port}}, from: avawatch@example.com, to: ops@example.com}
ruleFiles: [rules.yaml]
`,
        'rules.yaml': `rules:\n  - {name: icm-stuck, kind: icm-pending, every: 1s, severity: warning, network: mainnet, addresses: ["${ADDRESS}"], olderThan: 15m}\n`,
      }),
      before: ({ sim }) => {
        const now = sim.world.clock.now();
        hostile.forEach((name, i) => {
          sim.world.addIcmMessage(
            'mainnet',
            {
              messageId: `0x${String(i + 1).padStart(64, '0')}`,
              from: ADDRESS,
              to: ADDRESS,
              sourceBlockchainId: 'src-chain',
              destinationBlockchainId: 'dst-chain',
              sourceEvmChainId: '43114',
              // The last one's destination chain id carries CR/LF too: it is in the summary, so in the mail subject.
              destinationEvmChainId: i === hostile.length - 1 ? `1\r\nBcc: victim@example.com` : '1',
              sourceTimestamp: now - 3_600,
              rewardName: name,
              rewardSymbol: name,
            },
            'pending',
          );
        });
      },
    });
    onTestFinished(() => d.stop());
    const slack = d.slack;
    // One message per ICM message (groupBy message_id), so each shows its own details.
    await d.until(() => slack.posts.length >= hostile.length && smtp.messages.length >= hostile.length, 'a Slack post and a mail per message', { within: 120_000 });

    // No raw mention, link or markup in any post; no header from CR/LF in any mail (test/helpers/hostile.ts).
    const slackText = expectSlackInert(slack.posts);
    expect(slack.posts.map((p) => postFacts(p)['Reward token'])).toContainEqual('&lt;!channel&gt; (&lt;!channel&gt;)');
    expect(slackText).toContain('&lt;http://evil|x&gt;');
    expect(slackText).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');

    const html = expectEmailInert(smtp);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;!channel&gt;');
    // The CR/LF of the destination chain id is flattened in the subject, which still says what happened.
    expect(smtp.messages.map((m) => m.subject)).toContainEqual(expect.stringMatching(/^\[FIRING WARNING\] icm-stuck: ICM message 0x0+4 from .* to chain 1 Bcc: victim@example\.com has been pending/));
    expect(smtp.messages.map((m) => m.text ?? '').join('\n')).toContain('Reward token: a Bcc: victim@example.com (a Bcc: victim@example.com)');
  });
});
