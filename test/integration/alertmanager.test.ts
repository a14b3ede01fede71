import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { composeApp } from '../../src/app/compose.js';
import { loadConfig } from '../../src/config/load.js';
import { activeValidator } from '../../src/sim/samples.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { startAlertmanager, type RunningAlertmanager } from '../helpers/alertmanager.js';
import { waitUntil } from '../helpers/wait.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';

describe('alertmanager receiver against a real Alertmanager', () => {
  let am: RunningAlertmanager;
  let sim: SimServer;
  let dir: string;

  beforeEach(async () => {
    am = await startAlertmanager();
    sim = await startSim();
    dir = mkdtempSync(join(tmpdir(), 'avawatch-am-test-'));
  });
  afterEach(async () => {
    await am.stop();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The daemon with one validation-end rule posting to the Alertmanager. */
  async function daemon(): Promise<App> {
    const config = join(dir, 'avawatch.yaml');
    writeFileSync(
      config,
      `api: {dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0}\nstate: {path: "${join(dir, 'state.db')}"}\nserver: {listen: "127.0.0.1:0"}\nroute: {receivers: [am]}\nreceivers: [{name: am, type: alertmanager, url: "${am.url}", resendInterval: 2s}]\nruleFiles: [rules.yaml]\n`,
    );
    writeFileSync(join(dir, 'rules.yaml'), `rules:\n  - {name: ending, kind: validation-end, every: 1s, severity: critical, network: mainnet, nodeIds: [${NODE}], labels: {team: validators}}\n`);
    const app = composeApp(loadConfig(config, {}), { logLevel: 'error', readable: false }).app;
    await app.start();
    return app;
  }

  /** The node's validation period, ending in `days` (a new txHash is a new period). */
  function period(txHash: string, days: number): void {
    const now = sim.world.clock.now();
    sim.world.setValidators('mainnet', NODE, [activeValidator({ nodeId: NODE, txHash, startTimestamp: now - 86_400, endTimestamp: now + days * 86_400 })]);
  }

  it('posts a firing alert with labels and annotations, keeps it alive, and resolves it with endsAt', async () => {
    period('p2', 2);
    const app = await daemon();
    try {
      const [alert] = await waitUntil(async () => {
        const list = await am.alerts();
        return list.length > 0 ? list : undefined;
      }, 'the alert in Alertmanager');
      expect(alert!.labels).toEqual({ alertname: 'ending', rule: 'ending', severity: 'critical', team: 'validators', node: NODE, network: 'mainnet', threshold: '3d', subject: NODE });
      expect(alert!.annotations['summary']).toMatch(new RegExp(`^${NODE} validation ends within 3d, at `));
      expect(alert!.annotations['period_ends']).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      expect(alert!.status.state).toBe('active');
      const firstEnd = Date.parse(alert!.endsAt);
      // Re-sent before it would expire: endsAt moves forward.
      await waitUntil(async () => Date.parse((await am.alerts())[0]?.endsAt ?? '0') > firstEnd, 'a re-send that extends endsAt');

      period('p30', 30); // a new period: the alert resolves
      await waitUntil(async () => (await am.alerts()).length === 0, 'the alert to be resolved in Alertmanager');
    } finally {
      await app.stop();
    }
  }, 40_000);

  it('an escalation (threshold 14d → 3d) ends the old label set at once: Alertmanager never holds both', async () => {
    period('p', 5);
    const app = await daemon();
    try {
      const thresholds = async () => (await am.alerts()).map((a) => a.labels['threshold']);
      await waitUntil(async () => (await thresholds()).includes('14d'), 'the 14d alert in Alertmanager');
      period('p', 2); // the same period, now ending in 2 days
      await waitUntil(async () => (await thresholds()).includes('3d'), 'the 3d alert in Alertmanager');
      // Posted with endsAt now beside the new one, not left to time out (and be reported resolved later).
      expect(await thresholds()).toEqual(['3d']);
    } finally {
      await app.stop();
    }
  }, 20_000);
});
