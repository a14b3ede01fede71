import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { activeValidator } from '../../src/sim/samples.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { startDaemon } from '../helpers/daemon.js';
import type { ProjectUrls } from '../helpers/harness.js';
import { startSlackReceiver, type SlackReceiver } from '../helpers/slack-receiver.js';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '../../dist/cli.js');
const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';

const files = ({ dataUrl, webhookUrl, statePath }: ProjectUrls): Record<string, string> => ({
  'avawatch.yaml': `api: {dataUrl: "${dataUrl}", metricsUrl: "${dataUrl}", retries: 0}
state: {path: "${statePath}"}
server: {listen: "127.0.0.1:0"}
route: {receivers: [ops]}
receivers:
  - {name: ops, type: slack, webhookUrl: "${webhookUrl}", minInterval: 10ms}
  - {name: broken, type: slack, webhookUrl: "${webhookUrl.replace('/services', '/gone')}"}
  - {name: off, type: slack, webhookUrl: ""}
ruleFiles: [rules.yaml]
`,
  'rules.yaml': `rules:\n  - {name: ending, kind: validation-end, every: 1s, severity: critical, network: mainnet, nodeIds: [${NODE}], labels: {team: ops}}\n`,
});

/** The validation ends in two days: validation-end fires. */
function ending(sim: SimServer): void {
  const now = sim.world.clock.now();
  sim.world.setValidators('mainnet', NODE, [activeValidator({ nodeId: NODE, txHash: 'p1', startTimestamp: now - 86_400, endTimestamp: now + 2 * 86_400 })]);
}

describe('firing alerts and the outbox are visible', () => {
  let sim: SimServer;
  let slack: SlackReceiver;
  let dir: string;
  let config: string;

  beforeEach(async () => {
    sim = await startSim();
    slack = await startSlackReceiver();
    dir = mkdtempSync(join(tmpdir(), 'avawatch-vis-'));
    ending(sim);
    config = join(dir, 'avawatch.yaml');
    for (const [name, text] of Object.entries(files({ dataUrl: sim.url, webhookUrl: slack.webhookUrl, statePath: join(dir, 'state.db') }))) writeFileSync(join(dir, name), text);
  });

  afterEach(async () => {
    await sim.close();
    await slack.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const cli = async (...args: string[]) => cliOn(config, ...args);
  const cliOn = async (configFile: string, ...args: string[]) => {
    try {
      const r = await run(process.execPath, [CLI, '-c', configFile, ...args], { env: { PATH: process.env['PATH'] ?? '' } });
      return { code: 0, ...r };
    } catch (err) {
      return err as { code: number; stdout: string; stderr: string };
    }
  };

  it('GET /api/v1/alerts, avawatch_alerts_firing and `avawatch alerts` show what is firing', async () => {
    // The daemon on the fixture's fake time (test/helpers/daemon.ts); the CLI reads its file after.
    const d = await startDaemon({ logLevel: 'error', project: files, before: ({ sim: world }) => ending(world) });
    try {
      const { app } = d;
      await d.slack.waitForPosts(1);
      const body = (await (await fetch(`${app.url}/api/v1/alerts`)).json()) as { alerts: Array<Record<string, unknown>> };
      expect(body.alerts).toEqual([
        expect.objectContaining({ rule: 'ending', subject: NODE, severity: 'critical', tier: '3d', labels: expect.objectContaining({ team: 'ops', rule: 'ending', severity: 'critical', threshold: '3d' }) }),
      ]);
      const metrics = await (await fetch(`${app.url}/metrics`)).text();
      expect(metrics).toContain('avawatch_alerts_firing{rule="ending",severity="critical"} 1');
      await d.stopApp();
      const listed = await cliOn(d.project.configFile, 'alerts');
      expect(listed.stdout).toMatch(new RegExp(`^\\S+Z CRITICAL ending ${NODE}: ${NODE} validation ends within 3d, at `));
      const outbox = await cliOn(d.project.configFile, 'outbox', '--state', 'sent');
      expect(outbox.stdout).toMatch(new RegExp(`^#1 sent    ops attempts=1 ${NODE} validation ends within 3d, at `));
    } finally {
      await d.stop();
    }
  });

  it('notify-test sends to a receiver now, and says why when it cannot', async () => {
    const ok = await cli('notify-test', 'ops');
    expect(ok.stdout).toBe('sent a test message to ops (slack)\n');
    expect(slack.posts.map((p) => p.body.text)).toEqual(['[EVENT INFO] notify-test: avawatch test message for receiver ops']);
    slack.failNext({ status: 404, body: 'no_service' });
    const broken = await cli('notify-test', 'broken');
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('slack receiver "broken": HTTP 404: webhook or channel not found (no_service) (permanent, reason http_404)');
    expect(broken.stderr).not.toContain('/gone/');
    expect((await cli('notify-test', 'off')).stderr).toContain('receiver "off" is disabled: webhookUrl is empty');
    expect((await cli('notify-test', 'nope')).stderr).toContain('no receiver named "nope"; receivers: ops, broken, off');
  });
});
