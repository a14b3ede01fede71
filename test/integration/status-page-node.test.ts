import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firingAlerts } from '../../src/alerts/view.js';
import { applyChange, worldChange } from '../../src/sim/scenario.js';
import { launchChromium, type Browser } from '../helpers/browser.js';
import { startDaemon, type Daemon } from '../helpers/daemon.js';

// Issue 38: the tile shows what the node itself answers, the node rules, a badge that agrees
// with its text, and the validator's last one-shot event; the first run says how to add one.

const N = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const N2 = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
/** A NodeID the service does not know. */
const UNKNOWN = 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu';
// A failing check's name and error are the node's text: hostile.
const ARTIFACTS = join(import.meta.dirname, '../../test-artifacts');
const CHECK = 'network<img src=x onerror="window.__pwned=1">';

const RULES = `rules:
  - { name: my-validators, kind: validator-status, every: 1s, severity: critical, validators: all }
  - { name: node-health, kind: node-health, every: 1s, severity: warning, validators: all, minPeers: 10, chains: [P, X, C] }
  - { name: node-disk-low, kind: node-metrics, every: 1s, severity: warning, validators: all, metric: avalanche_resource_tracker_disk_available_percentage, below: 20 }
`;

describe("the status page in a real browser: the node's own view on each tile", () => {
  // The simulator, the App (real SQLite, the page on real HTTP) and Chromium, the daemon on the
  // fixture's fake time (test/helpers/daemon.ts), as in status-page.test.ts: while the test reads
  // the page nothing pumps that time, and the page shows the daemon at one moment.
  let d: Daemon & { stop(): Promise<void> };
  let browser: Browser;
  const app = () => d.app;

  beforeAll(async () => {
    // Started before the fake time: its launch is the browser's own, on the real clock.
    browser = await launchChromium({ viewport: { width: 1200, height: 900 } });
    d = await startDaemon({
      project: ({ dataUrl, statePath }) => ({
        'avawatch.yaml': `api: {dataUrl: "${dataUrl}", metricsUrl: "${dataUrl}", retries: 0}
state: {path: "${statePath}"}
server: {listen: 127.0.0.1:0}
validators:
  - { name: alpha, nodeId: ${N}, network: mainnet, api: "${dataUrl}/node/${N}" }
  - { name: bravo, nodeId: ${N2}, network: mainnet }
  - { name: ghost, nodeId: ${UNKNOWN}, network: mainnet }
ruleFiles: [rules.yaml]
`,
        'rules.yaml': RULES,
      }),
      before: ({ sim }) => {
        const world = {
          validations: [
            // The service reports no AvalancheGo version for it: the node's own answer is the one shown.
            { nodeId: N, txHash: 'p1', start: '-300d', end: '+20d', status: 'active', uptimePerformance: 98.5 },
            { nodeId: N2, txHash: 'p2', start: '-10d', end: '+200d', status: 'active', uptimePerformance: 99.2, version: 'avalanche/1.14.1' },
          ],
          nodes: [{ nodeId: N, version: 'avalanchego/1.14.1', peers: 7, failing: { [CHECK]: 'not connected to enough stake' }, bootstrapped: { C: false } }],
        };
        applyChange(sim.world, worldChange.parse(world), sim.world.clock.nowMs());
      },
    });
    const { sim } = d;
    await d.until(async () => (await firingAlerts(app().store)).some((a) => a.labels['check'] === 'health'), "node-health firing on the node's failing check", { within: 15_000 });
    // bravo's validation ends without a reward: a one-shot event, kept in the history.
    applyChange(sim.world, worldChange.parse({ validator: { nodeId: N2, status: 'completed', reward: { validation: 0 } } }), sim.world.clock.nowMs());
    await d.until(async () => (await app().store.timeline({ since: 0 })).some((e) => e.status === 'event' && e.summary.includes('without a reward')), 'the validation-ended event committed', { within: 15_000 });
    await d.until(() => [...app().engine.samples('avawatch_validator_listed')].some((s) => s.labels['node_id'] === UNKNOWN), 'the unknown NodeID read', { within: 15_000 });
  }, 60_000);

  afterAll(async () => {
    await d?.stop();
    await browser?.close();
  });

  it('shows the version, peers, chains and failing checks the node answers, the node rules, a badge the colour of the worst alert, and the zero-reward end', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${app().url}/`);
    const alpha = page.locator('#validators .tile', { hasText: 'alpha' });
    const text = await alpha.innerText();
    expect(text).not.toContain('version not known');
    // The service lists no version for it; the node answers 1.14.1.
    expect(text).toMatch(/\nactive · uptime — · ends .* · avalanchego\/1\.14\.1 · mainnet\n/);
    expect(text).toMatch(/Node: API answers · runs avalanchego\/1\.14\.1 · 7 peers · not bootstrapped: C · the network: listed active, uptime 98\.5%/);
    // By name, as the node reports them (its C-chain not bootstrapped fails its own check too).
    expect(await alpha.locator('.node-failing').innerText()).toBe(`failing health checks: bootstrapped, ${CHECK}`);
    expect(text).toMatch(/Rules: my-validators, node-disk-low, node-health$/);
    // Only warnings fire about alpha (its check, its peers, its C-chain): the badge is the warning colour, not the critical one.
    expect(await alpha.locator('.verdict').first().innerText()).toMatch(/^\d+ firing$/);
    expect(await alpha.locator('.verdict').first().getAttribute('class')).toBe('verdict warning');
    expect(await page.evaluate('window.__pwned')).toBeUndefined();

    const bravo = page.locator('#validators .tile', { hasText: 'bravo' });
    expect(await bravo.locator('.last-event').innerText()).toMatch(new RegExp(`^CRITICAL bravo \\(${N2}\\) validation ended without a reward .*\\((now|\\d+s ago)\\)$`));

    // A NodeID the service does not list: the badge says so, as the status does; never "OK".
    const ghost = page.locator('#validators .tile', { hasText: 'ghost' });
    expect(await ghost.innerText()).toMatch(/^not listed ghost[\s\S]*\nnot listed · uptime/);
    expect(await ghost.innerText()).not.toMatch(/\bOK\b/);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'status-page-node.png'), fullPage: true });
    await page.close();
  });
});

describe('the first run in a real browser: no validators yet', () => {
  // The fixture's App on fake time; its simulator is not in the config: the APIs do not answer.
  let d: Daemon & { stop(): Promise<void> };
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
    // The shipped profile's validator rules with an empty inventory (not loaded), and a metric rule whose API does not answer.
    d = await startDaemon({
      project: ({ statePath }) => ({
        'avawatch.yaml': `api: {dataUrl: "http://127.0.0.1:9", metricsUrl: "http://127.0.0.1:9", retries: 0}\nstate: {path: "${statePath}"}\nserver: {listen: 127.0.0.1:0}\nvalidators: []\nruleFiles: [rules.yaml]\n`,
        'rules.yaml': `rules:
  - { name: my-validators, kind: validator-status, every: 1s, severity: critical, validators: all }
  - { name: c-chain-gas, kind: metric-threshold, every: 1m, severity: warning, chainId: 43114, metric: txCount, timeInterval: hour, below: 1000 }
`,
      }),
    });
    await d.until(() => d.app.failures.failing(1).length > 0, 'the metric rule failing', { within: 15_000 });
  }, 60_000);

  afterAll(async () => {
    await d?.stop();
    await browser?.close();
  });

  it('says there are no validators yet and how to add one, and shows it is blind instead of a green "Nothing is firing"', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${d.app.url}/`);
    const validators = await page.locator('#validators').innerText();
    expect(validators).toContain('No validators yet');
    expect(validators).toContain('nodeId: NodeID-…');
    expect(validators).toContain('avawatch init --node NodeID-…');
    const alerts = page.locator('#alerts');
    expect(await alerts.innerText()).toContain('Nothing is firing, but avawatch is blind: it cannot read Metrics API');
    expect(await alerts.locator('p.good').count()).toBe(0);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'status-page-first-run.png'), fullPage: true });
    await page.close();
  });
});
