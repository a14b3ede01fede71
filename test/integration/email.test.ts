import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { composeApp } from '../../src/app/compose.js';
import { loadConfig } from '../../src/config/load.js';
import { Secret } from '../../src/base/secret.js';
import { activeValidator, completedValidator } from '../../src/sim/samples.js';
import { startSim } from '../../src/sim/server.js';
import { writeProject } from '../helpers/harness.js';
import { useFakeTime } from '../helpers/fake-time.js';
import { emailChannel, type EmailReceiver } from '../../src/channels/email/index.js';
import { DeliveryError, type AlertMessage } from '../../src/channels/types.js';
import { startBlackHole, startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import { storedStates } from '../helpers/stored-states.js';

const alert: AlertMessage = {
  alertId: 7,
  rule: 'my-validators',
  kind: 'validator-status',
  status: 'event',
  severity: 'critical',
  subject: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg',
  summary: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg validation active → completed',
  labels: {},
  details: { Node: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', Change: 'active → completed' },
  at: '2026-01-01T00:00:05.000Z',
};

function receiver(port: number, over: Partial<EmailReceiver> = {}): EmailReceiver {
  return {
    name: 'ops-mail',
    type: 'email',
    smtp: { host: '127.0.0.1', port, secure: false },
    from: 'avawatch@example.com',
    to: ['ops@example.com', 'oncall@example.com'],
    timeout: 2_000,
    minInterval: 0,
    ...over,
  };
}

const signal = new AbortController().signal;

describe('email receiver against a real SMTP server on loopback', () => {
  let sink: SmtpSink | undefined;
  afterEach(async () => {
    await sink?.close();
    sink = undefined;
  });

  it('sends a mail with subject, plain-text and HTML parts to every recipient', async () => {
    sink = await startSmtpSink();
    await emailChannel.create(receiver(sink.port)).send([alert], signal);
    const [mail] = await sink.waitFor(1);
    expect(mail!.subject).toBe('[EVENT CRITICAL] my-validators: NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg validation active → completed');
    expect(mail!.from?.text).toBe('avawatch@example.com');
    expect(mail!.to && !Array.isArray(mail!.to) ? mail!.to.text : '').toBe('ops@example.com, oncall@example.com');
    expect(mail!.text).toContain('Change: active → completed');
    expect(mail!.text).toContain('When: 2026-01-01T00:00:05.000Z');
    expect(mail!.html).toContain('<th style="text-align:left;padding:2px 12px 2px 0">Node</th><td>NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg</td>');
  });

  it('a grouped mail leads its subject with the critical alert, and lists each with its key detail (issue 38)', async () => {
    sink = await startSmtpSink();
    const group: AlertMessage[] = [
      { ...alert, alertId: 1, severity: 'info', summary: 'alpha validation active → completed', details: { Node: 'N', 'Validation reward': '22.947945205 AVAX' } },
      { ...alert, alertId: 2, kind: 'validator-health', status: 'firing', severity: 'warning', summary: 'alpha uptime 84% is under 86%', details: { Node: 'N', Uptime: '84% (the service view)' } },
      { ...alert, alertId: 3, severity: 'critical', summary: 'alpha validation ended without a reward', details: { Node: 'N', 'Validation reward': '0 AVAX' } },
    ];
    await emailChannel.create(receiver(sink.port)).send(group, signal);
    const [mail] = await sink.waitFor(1);
    expect(mail!.subject).toBe('[CRITICAL] alpha validation ended without a reward (+2 more)');
    expect(mail!.text?.split('\n').slice(0, 4)).toEqual([
      '3 alerts (my-validators)',
      '- EVENT CRITICAL: alpha validation ended without a reward · Validation reward: 0 AVAX',
      '- FIRING WARNING: alpha uptime 84% is under 86% · Uptime: 84% (the service view)',
      '- EVENT INFO: alpha validation active → completed · Validation reward: 22.947945205 AVAX',
    ]);
    expect(mail!.html).toContain('<li>EVENT INFO: alpha validation active → completed · Validation reward: 22.947945205 AVAX</li>');
  });

  it('keeps hostile chain text inert: escaped in HTML, no header injection through CRLF', async () => {
    sink = await startSmtpSink();
    const hostile = 'token <script>alert(1)</script> & <a href="http://evil">x</a>\r\nBcc: victim@example.com';
    await emailChannel.create(receiver(sink.port)).send([{ ...alert, summary: hostile, details: { Token: hostile } }], signal);
    const [mail] = await sink.waitFor(1);
    expect(mail!.html).not.toContain('<script>');
    expect(mail!.html).not.toContain('<a href');
    expect(mail!.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;a href=&quot;http://evil&quot;&gt;x&lt;/a&gt;');
    expect(mail!.bcc).toBeUndefined();
    const headers = sink.raw[0]!.split('\r\n\r\n')[0]!;
    expect(headers).not.toMatch(/^Bcc:/im);
    expect(mail!.text).toContain('Token: token <script>alert(1)</script> & <a href="http://evil">x</a> Bcc: victim@example.com\n');
    expect(mail!.subject).toBe('[EVENT CRITICAL] my-validators: token <script>alert(1)</script> & <a href="http://evil">x</a> Bcc: victim@example.com');
  });

  it('logs in with user and password', async () => {
    sink = await startSmtpSink({ user: 'avawatch', pass: 's3cret-pass' });
    const auth = { user: 'avawatch', pass: new Secret('s3cret-pass') };
    await emailChannel.create(receiver(sink.port, { smtp: { host: '127.0.0.1', port: sink.port, secure: false, auth } })).send([alert], signal);
    expect(await sink.waitFor(1)).toHaveLength(1);
  });

  it('treats a wrong password as permanent without echoing it', async () => {
    sink = await startSmtpSink({ user: 'avawatch', pass: 'right' });
    const auth = { user: 'avawatch', pass: new Secret('wrong-pass-123') };
    const err = await emailChannel
      .create(receiver(sink.port, { smtp: { host: '127.0.0.1', port: sink.port, secure: false, auth } }))
      .send([alert], signal)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeliveryError);
    expect(err).toMatchObject({ retryable: false, reason: 'smtp_535' });
    expect((err as Error).message).not.toContain('wrong-pass-123');
  });

  it('retries SMTP 4xx (451) and gives up on 5xx (550)', async () => {
    sink = await startSmtpSink();
    sink.failNext({ code: 451, message: 'Try again later' }, { code: 550, message: 'Mailbox unavailable' });
    const notifier = emailChannel.create(receiver(sink.port, { to: ['ops@example.com'] }));
    await expect(notifier.send([alert], signal)).rejects.toMatchObject({ retryable: true, reason: 'smtp_451' });
    await expect(notifier.send([alert], signal)).rejects.toMatchObject({ retryable: false, reason: 'smtp_550' });
    await notifier.send([alert], signal);
    expect(await sink.waitFor(1)).toHaveLength(1);
  });

  it('a refused connection is retryable', async () => {
    const hole = await startBlackHole();
    const port = hole.port;
    await hole.close(); // nothing listens there now
    await expect(emailChannel.create(receiver(port)).send([alert], signal)).rejects.toMatchObject({ retryable: true, reason: 'network' });
  });

  it('a black-holed server times out in the configured seconds, not minutes, and is retryable', async () => {
    const hole = await startBlackHole();
    try {
      const started = Date.now();
      await expect(emailChannel.create(receiver(hole.port, { timeout: 500 })).send([alert], signal)).rejects.toMatchObject({ retryable: true });
      expect(Date.now() - started).toBeLessThan(60_000); // nodemailer's default greeting wait alone is 30 s
    } finally {
      await hole.close();
    }
  });
});

describe('daemon with an email receiver', () => {
  it('mails a status change end to end and never logs the SMTP password', async () => {
    const node = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
    const period = { nodeId: node, txHash: 'tx1', startTimestamp: 1_716_000_000, endTimestamp: 1_747_536_000 };
    const sim = await startSim();
    const smtp = await startSmtpSink({ user: 'avawatch', pass: 'SmtpPassw0rd-secret' });
    sim.world.setValidators('mainnet', node, [activeValidator(period)]);
    const project = writeProject({ dataUrl: sim.url, nodeIds: [node] });
    const config = readFileSync(project.configFile, 'utf8')
      .replace('route:\n  receivers: [ops-slack]', 'route:\n  receivers: [ops-mail]')
      .replace(
        'receivers:\n  - name: ops-slack',
        `receivers:\n  - name: ops-mail\n    type: email\n    smtp: { host: 127.0.0.1, port: ${smtp.port}, auth: { user: avawatch, pass: "\${SMTP_PASS}" } }\n    from: avawatch@example.com\n    to: ops@example.com\n  - name: ops-slack`,
      );
    writeFileSync(project.configFile, config);
    const logged: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => {
      logged.push(String(c));
      return true;
    });
    const loaded = loadConfig(project.configFile, { SMTP_PASS: 'SmtpPassw0rd-secret' });
    // The App on fake time (test/helpers/fake-time.ts): the 451's retry costs no real wait.
    const t = useFakeTime();
    const { app, sink: log } = composeApp(loaded, { logLevel: 'debug', readable: false, clock: t.clock });
    try {
      await app.start();
      await t.until(async () => (await storedStates(app.store, 'my-validators'))[node], 'the baseline');
      smtp.failNext({ code: 451, message: 'greylisted, try again' });
      sim.world.setValidators('mainnet', node, [completedValidator(period)]);
      const [mail] = await t.settle(smtp.waitFor(1, 15_000), 'the mail');
      expect(mail!.subject).toBe(`[EVENT INFO] my-validators: ${node} validation active → completed`);
      log.log.info({ receivers: loaded.config.receivers }, 'config dump for the test');
      const text = logged.join('');
      expect(text).toContain('"reason":"smtp_451"');
      expect(text).toContain('config dump for the test');
      expect(text).not.toContain('SmtpPassw0rd-secret');
    } finally {
      vi.restoreAllMocks();
      await t.settle(app.stop(), 'the App to stop');
      t.restore();
      await sim.close();
      await smtp.close();
      project.cleanup();
    }
  });
});
