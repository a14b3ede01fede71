import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { SimClock } from '../../src/sim/clock.js';
import { activeValidator } from '../../src/sim/samples.js';
import { World } from '../../src/sim/world.js';
import { startAlertmanager, type RunningAlertmanager } from '../helpers/alertmanager.js';
import { startDaemon, type Daemon } from '../helpers/daemon.js';
import { postText } from '../helpers/slack-receiver.js';

// Issue 37: a reload that edits the inventory, against a real Alertmanager and a Slack
// stand-in. Each team's alerts go to its own Alertmanager receiver (the same Alertmanager),
// and every alert to Slack. The daemon (the simulator, the App, the Slack receiver) runs on
// the fixture's fake time (test/helpers/daemon.ts); Alertmanager is a real process, started
// before it.

const ALPHA = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const BETA = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';

describe('a reload that edits the inventory, seen by Alertmanager and Slack', () => {
  let am: RunningAlertmanager;
  let d: (Daemon & { stop(): Promise<void> }) | undefined;
  const fx = (): Daemon => {
    if (!d) throw new Error('the daemon fixture did not start');
    return d;
  };

  beforeEach(async () => {
    // Started on the real clock, before the fake time: its readiness is its own.
    am = await startAlertmanager();
  });
  afterEach(async () => {
    await d?.stop();
    d = undefined;
    await am?.stop();
  });

  function inventory(alpha: { name: string; team: string } | undefined): void {
    const line = (name: string, node: string, team: string) => `  - {name: ${name}, nodeId: ${node}, labels: {team: ${team}}}\n`;
    writeFileSync(join(fx().project.dir, 'inventory.yaml'), `validators:\n${alpha ? line(alpha.name, ALPHA, alpha.team) : ''}${line('beta', BETA, 'infra')}`);
  }

  async function start(): Promise<App> {
    const am2 = (name: string) => `{name: ${name}, type: alertmanager, url: "${am.url}", resendInterval: 30s}`;
    d = await startDaemon({
      logLevel: 'error',
      start: false,
      // Alertmanager judges endsAt on its own wall clock, and keeps a firing alert's later endsAt
      // over a resolution whose endsAt it reads as still to come: a daemon clock a few ms ahead of
      // its own loses the resolution. The fixture's fake time runs ahead of the wall while it is
      // pumped, so the daemon's clock (the simulator's) stands 10 s behind Alertmanager's (a firing
      // alert's endsAt is 90 s on, 80 s of Alertmanager's: one left to expire still shows).
      sim: { world: new World(new SimClock(Date.now() - 10_000, 1)) },
      project: ({ dataUrl, webhookUrl, statePath }) => ({
        'avawatch.yaml': `api: {dataUrl: "${dataUrl}", metricsUrl: "${dataUrl}", retries: 0}
state: {path: "${statePath}"}
server: {listen: "127.0.0.1:0"}
route:
  receivers: [slack]
  routes:
    - {match: {team: core}, receivers: [am-core], continue: true}
    - {match: {team: infra}, receivers: [am-infra], continue: true}
    - {receivers: [slack]}
receivers: [${am2('am-core')}, ${am2('am-infra')}, {name: slack, type: slack, webhookUrl: "${webhookUrl}"}]
validatorsFile: inventory.yaml
ruleFiles: [rules.yaml]
`,
        'rules.yaml': 'rules:\n  - {name: ending, kind: validation-end, every: 1s, severity: critical, validators: all}\n',
      }),
      before: ({ sim }) => {
        const now = sim.world.clock.now();
        // alpha's validation ends in 5 days (validation-end fires), beta's in 200.
        for (const [node, days] of [[ALPHA, 5], [BETA, 200]] as const) {
          sim.world.setValidators('mainnet', node, [activeValidator({ nodeId: node, txHash: `tx-${node.slice(-4)}`, startTimestamp: now - 86_400, endTimestamp: now + days * 86_400 })]);
        }
      },
    });
    inventory({ name: 'alpha', team: 'core' });
    const app = await d.start();
    await d.until(async () => (await am.alerts()).some((a) => a.labels['team'] === 'core'), 'alpha firing for team core in Alertmanager');
    await d.slack.waitForPosts(1);
    return app;
  }

  const teams = async () => (await am.alerts()).map((a) => `${a.labels['validator']}/${a.labels['team']}`);

  it('a validator moved to another team: the old team label set ends in Alertmanager at once, the new one fires, Slack hears it moved', async () => {
    const daemon = await start();
    inventory({ name: 'alpha', team: 'infra' });
    expect(await daemon.reload('test')).toBe(true);
    await fx().until(async () => (await teams()).includes('alpha/infra'), 'alpha firing for team infra');
    // Never both: the old team's label set is not left to expire.
    expect(await teams()).toEqual(['alpha/infra']);
    const [, moved] = await fx().slack.waitForPosts(2);
    expect(postText(moved!)).toContain('alpha');
    expect(postText(moved!)).toContain('moved from team core');
  }, 30_000);

  it('a validator renamed: Alertmanager holds only the new name, Slack hears it under it', async () => {
    const daemon = await start();
    inventory({ name: 'gamma', team: 'core' });
    expect(await daemon.reload('test')).toBe(true);
    await fx().until(async () => (await teams()).includes('gamma/core'), 'the alert under its new name');
    expect(await teams()).toEqual(['gamma/core']);
    const [, renamed] = await fx().slack.waitForPosts(2);
    expect(postText(renamed!)).toContain(`gamma (${ALPHA})`);
    expect(postText(renamed!)).toContain('renamed from alpha');
  }, 30_000);

  it('a rule removed (here: renamed): its firing alert ends saying so, not left firing in Alertmanager', async () => {
    const daemon = await start();
    writeFileSync(join(fx().project.dir, 'rules.yaml'), 'rules:\n  - {name: ending-2, kind: validation-end, every: 1s, severity: critical, validators: all}\n');
    expect(await daemon.reload('test')).toBe(true);
    await fx().until(async () => (await am.alerts()).some((a) => a.labels['alertname'] === 'ending-2'), 'the new rule firing');
    expect((await am.alerts()).map((a) => a.labels['alertname'])).toEqual(['ending-2']);
    const posts = await fx().slack.waitForPosts(3);
    expect(posts.map(postText).join('\n')).toContain(`alpha (${ALPHA}) is no longer watched: rule ending removed`);
  }, 30_000);

  it('a validator removed from the inventory: ended in Alertmanager, and Slack hears it is no longer watched, not that its validation ends later', async () => {
    const daemon = await start();
    inventory(undefined);
    expect(await daemon.reload('test')).toBe(true);
    await fx().until(async () => (await am.alerts()).length === 0, 'the alert ended in Alertmanager');
    const [, ended] = await fx().slack.waitForPosts(2);
    expect(postText(ended!)).toContain(`alpha (${ALPHA}) is no longer watched: removed from the inventory`);
    // The rule goes on for beta, and says nothing more of alpha.
    await fx().until(async () => (await (await fetch(`${daemon.url}/metrics`)).text()).includes(`node_id="${BETA}"`), 'beta watched');
    expect(fx().slack.posts).toHaveLength(2);
  }, 30_000);
});
