import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { clockAt } from '../../src/base/clock.js';
import { AlertmanagerNotifier } from '../../src/channels/alertmanager/index.js';
import type { AlertMessage } from '../../src/channels/types.js';
import { SimClock } from '../../src/sim/clock.js';
import { activeValidator } from '../../src/sim/samples.js';
import { World } from '../../src/sim/world.js';
import { startAlertmanager, type RunningAlertmanager } from '../helpers/alertmanager.js';
import { startDaemon, type Daemon } from '../helpers/daemon.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';

/**
 * How far the daemon's clock stands behind Alertmanager's. Alertmanager judges endsAt on its own
 * wall clock, and keeps a firing alert's later endsAt over a resolution whose endsAt it reads as
 * still to come (then the alert only times out, as it would had the daemon sent nothing). While
 * the fixture pumps, fake time may run ahead of the wall by as much fake time as the test uses
 * (here under 40 s): a resolution, stamped with the daemon's now, is then still in Alertmanager's
 * past, ended on arrival. A firing alert lives three resend intervals (90 s) of the daemon's time:
 * 30 s of Alertmanager's, longer than either test may run.
 */
const BEHIND_MS = 60_000;
const RESEND = '30s';

// The daemon (the simulator, the App, real SQLite) on the fixture's fake time
// (test/helpers/daemon.ts), posting to a real Alertmanager, started before it on the real clock.
describe('alertmanager receiver against a real Alertmanager', () => {
  let am: RunningAlertmanager;
  let d: (Daemon & { stop(): Promise<void> }) | undefined;
  const fx = (): Daemon => {
    if (!d) throw new Error('the daemon fixture did not start');
    return d;
  };

  beforeEach(async () => {
    am = await startAlertmanager();
  });
  afterEach(async () => {
    await d?.stop();
    d = undefined;
    await am?.stop();
  });

  /** The daemon with one validation-end rule posting to the Alertmanager, the node's period ending in `days`. */
  async function daemon(days: number): Promise<App> {
    d = await startDaemon({
      logLevel: 'error',
      sim: { world: new World(new SimClock(Date.now() - BEHIND_MS, 1)) },
      project: ({ dataUrl, statePath }) => ({
        'avawatch.yaml': `api: {dataUrl: "${dataUrl}", metricsUrl: "${dataUrl}", retries: 0}\nstate: {path: "${statePath}"}\nserver: {listen: "127.0.0.1:0"}\nroute: {receivers: [am]}\nreceivers: [{name: am, type: alertmanager, url: "${am.url}", resendInterval: ${RESEND}}]\nruleFiles: [rules.yaml]\n`,
        'rules.yaml': `rules:\n  - {name: ending, kind: validation-end, every: 1s, severity: critical, network: mainnet, nodeIds: [${NODE}], labels: {team: validators}}\n`,
      }),
      before: ({ sim }) => period('p', days, sim.world),
    });
    return d.app;
  }

  /** The node's validation period, ending in `days` (a new txHash is a new period). */
  function period(txHash: string, days: number, world: World = fx().sim.world): void {
    const now = world.clock.now();
    world.setValidators('mainnet', NODE, [activeValidator({ nodeId: NODE, txHash, startTimestamp: now - 86_400, endTimestamp: now + days * 86_400 })]);
  }

  it('posts a firing alert with labels and annotations, keeps it alive, and resolves it with endsAt', async () => {
    await daemon(2);
    const [alert] = await fx().until(async () => {
      const list = await am.alerts();
      return list.length > 0 ? list : undefined;
    }, 'the alert in Alertmanager');
    expect(alert!.labels).toEqual({ alertname: 'ending', rule: 'ending', severity: 'critical', team: 'validators', node: NODE, network: 'mainnet', threshold: '3d', subject: NODE });
    expect(alert!.annotations['summary']).toMatch(new RegExp(`^${NODE} validation ends within 3d, at `));
    expect(alert!.annotations['period_ends']).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(alert!.status.state).toBe('active');
    const firstEnd = Date.parse(alert!.endsAt);
    // Re-sent before it would expire (a resend interval on): endsAt moves forward.
    await fx().until(async () => Date.parse((await am.alerts())[0]?.endsAt ?? '0') > firstEnd, 'a re-send that extends endsAt', { within: 40_000 });

    period('p30', 30); // a new period: the alert resolves
    // Gone at once: the firing alert itself would live on half a minute of Alertmanager's time at least.
    await fx().until(async () => (await am.alerts()).length === 0, 'the alert to be resolved in Alertmanager', { within: 5_000 });
  }, 40_000);

  it("resolves at once with this host's clock 20 s ahead of Alertmanager's: the resolution ends at Alertmanager's now, as its answers date it", async () => {
    // The channel alone, on a clock 20 s ahead that runs at the host's rate: the daemon's fake
    // time runs faster than Alertmanager's wall while pumped, which this is not about.
    const ahead = clockAt(() => Date.now() + 20_000);
    const notifier = new AlertmanagerNotifier({ name: 'am', type: 'alertmanager', url: am.url, resendInterval: 30_000, timeout: 5_000, minInterval: 0 });
    notifier.start({ clock: ahead, alertsUrl: undefined, untilNext: () => 30_000 });
    const alert = (status: AlertMessage['status']): AlertMessage => ({
      alertId: 0,
      rule: 'ending',
      kind: 'validation-end',
      status,
      severity: 'critical',
      subject: NODE,
      summary: `${NODE} validation ends within 3d`,
      labels: { node: NODE, threshold: '3d' },
      details: {},
      at: new Date(ahead.now()).toISOString(),
      conditionKey: NODE,
    });
    try {
      await notifier.send([alert('firing')], new AbortController().signal);
      expect((await am.alerts()).map((a) => a.status.state)).toEqual(['active']);
      // Without reading Alertmanager's clock, this endsAt (20 s in Alertmanager's future) would
      // lose to the firing alert's, and the alert would stay active 90 s more.
      await notifier.send([alert('resolved')], new AbortController().signal);
      expect(await am.alerts()).toEqual([]);
    } finally {
      notifier.stop();
    }
  });

  it('an escalation (threshold 14d → 3d) ends the old label set at once: Alertmanager never holds both', async () => {
    await daemon(5);
    const thresholds = async () => (await am.alerts()).map((a) => a.labels['threshold']);
    await fx().until(async () => (await thresholds()).includes('14d'), 'the 14d alert in Alertmanager');
    period('p', 2); // the same period, now ending in 2 days
    await fx().until(async () => (await thresholds()).includes('3d'), 'the 3d alert in Alertmanager');
    // Posted with endsAt now beside the new one, not left to time out (and be reported resolved later).
    expect(await thresholds()).toEqual(['3d']);
  }, 20_000);
});
