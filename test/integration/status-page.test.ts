import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.js';
import { firingAlerts } from '../../src/alerts/view.js';
import { ruleKind } from '../../src/rules/registry.js';
import { applyChange, worldChange } from '../../src/sim/scenario.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { captureStderr, startApp } from '../helpers/app.js';
import { launchChromium, type Browser } from '../helpers/browser.js';
import { waitUntil } from '../helpers/wait.js';

const N = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const N2 = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const SUBNET = '2Hm6eGyCNtJ5h5rGcS1DFRxNp1Mrx8FTRQRr2s5L3aFcmJzRqg';
const ADDR = '0xAbC0000000000000000000000000000000000001';
// A token whose name is markup: it reaches the page through the ICM alert's details.
const HOSTILE = `<img src=x onerror="window.__pwned=1">Wrapped "AVAX" & <script>window.__pwned=2</script>`;
const USER = 'operator';
const PASSWORD = 'status-page-pw-5e81';
const ARTIFACTS = join(import.meta.dirname, '../../test-artifacts');

const RULES = `rules:
  - { name: validation-ending, kind: validation-end, every: 1s, severity: warning, network: mainnet, nodeIds: [${N}], warnBefore: [14d, 3d, 1d] }
  - { name: my-validators, kind: validator-status, every: 1s, severity: critical, network: mainnet, nodeIds: [${N}, ${N2}] }
  - { name: validator-health, kind: validator-health, every: 1s, severity: warning, network: mainnet, nodeIds: [${N}, ${N2}] }
  - { name: l1-balance, kind: l1-validator-balance, every: 1s, severity: critical, network: mainnet, subnetId: ${SUBNET}, minBalance: 0.5, minRunway: 3d }
  - { name: icm-stuck, kind: icm-pending, every: 1s, severity: warning, network: mainnet, addresses: ["${ADDR}"], olderThan: 15m }
`;

describe('the status page in a real browser (headless Chromium), against the simulator', () => {
  let sim: SimServer;
  let dir: string;
  let app: App;
  let browser: Browser;

  beforeAll(async () => {
    sim = await startSim();
    const world = {
      validations: [
        // Ends in two days: validation-ending fires (3d threshold).
        { nodeId: N, txHash: 'p1', start: '-300d', end: '+2d', status: 'active', uptimePerformance: 98.5, version: 'avalanche/1.14.1' },
        { nodeId: N2, txHash: 'p2', start: '-10d', end: '+200d', status: 'active', uptimePerformance: 99.2, version: 'avalanche/1.14.1' },
      ],
      l1Validators: [
        { validationId: 'v-healthy', nodeId: N, subnetId: SUBNET, balance: '1.5', feePerSecond: 512 },
        { validationId: 'v-low', nodeId: N2, subnetId: SUBNET, balance: '0.2', feePerSecond: 512 },
      ],
      icmMessages: [{ messageId: '0xm1', from: ADDR, to: ADDR, sent: '-20m', status: 'pending', rewardName: HOSTILE, rewardSymbol: '<b>WAVAX</b>' }],
    };
    applyChange(sim.world, worldChange.parse(world), sim.world.clock.nowMs());
    dir = mkdtempSync(join(tmpdir(), 'avawatch-status-'));
    mkdirSync(join(dir, 'rules'));
    writeFileSync(join(dir, 'rules', 'all.yaml'), RULES);
    writeFileSync(
      join(dir, 'avawatch.yaml'),
      `api: {dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0}\nstate: {path: "${join(dir, 'state.db')}"}\nserver:\n  listen: 127.0.0.1:0\n  auth: {username: ${USER}, password: ${PASSWORD}}\nruleFiles: [rules/*.yaml]\n`,
    );
    captureStderr();
    app = await startApp(join(dir, 'avawatch.yaml'));
    // Three rules fire; the runway needs two reads of the balance.
    await waitUntil(() => new Set(firingAlerts(app.store).map((a) => a.rule)).size === 3, 'validation-ending, l1-balance and icm-stuck firing', 15_000);
    await waitUntil(() => [...app.engine.samples('avawatch_l1_validator_runway_seconds')].length === 2, 'both runways', 15_000);
    browser = await launchChromium({ httpCredentials: { username: USER, password: PASSWORD }, viewport: { width: 1200, height: 900 } });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    await sim?.close();
    vi.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it('asks for the credentials, then shows the firing alerts, the rules, the validators, the outbox and the budget as text a user reads', async () => {
    expect((await fetch(`${app.url}/`)).status).toBe(401);
    const page = await browser.context.newPage();
    const console: string[] = [];
    page.on('console', (m) => console.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => console.push(`pageerror: ${e.message}`));

    const res = await page.goto(`${app.url}/`);
    expect(res?.status()).toBe(200);
    expect(await page.title()).toBe('avawatch: 3 firing');
    expect(await page.locator('#alerts h2').innerText()).toBe('Firing alerts (3)');

    const ending = firingAlerts(app.store).find((a) => a.rule === 'validation-ending');
    const row = page.locator('#alerts tbody tr', { hasText: 'validation-ending' });
    expect((await row.locator('td').allInnerTexts()).slice(0, 4)).toEqual(['WARNING', 'validation-ending', N, expect.stringContaining(ending?.summary ?? '?')]);
    expect(ending?.summary).toMatch(/ends in/);
    expect(await page.locator('#alerts tbody tr', { hasText: 'l1-balance' }).locator('.sev').innerText()).toBe('CRITICAL');

    const rules = page.locator('#rules tbody tr');
    expect(await rules.count()).toBe(5);
    const ruleCells = await rules.filter({ hasText: 'validation-ending' }).locator('td').allInnerTexts();
    expect(ruleCells.slice(0, 3)).toEqual(['validation-ending', 'validation-end', 'every 1s']);
    expect(ruleCells[3]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \((now|\d+s ago)\)$/);
    // Estimated from the kind's calls: every 1s is 86,400 evaluations a day.
    const rule = app.rules.find((r) => r.name === 'validation-ending');
    const cu = ruleKind('validation-end').cost(rule?.spec as never).calls.reduce((sum, c) => sum + c.cu, 0);
    expect(cu).toBeGreaterThan(0);
    expect(ruleCells[4]).toBe('0');
    expect(ruleCells[5]?.split('\n')[0]).toBe(String(cu));
    expect(ruleCells[6]).toBe((cu * 86_400).toLocaleString('en-US'));

    const nodeRow = await page.locator('#validators tbody tr', { hasText: N }).locator('td').allInnerTexts();
    expect(nodeRow[0]).toBe(N);
    expect(nodeRow[2]).toBe('active');
    expect(nodeRow[3]).toMatch(/UTC \(in 1d23h\d+m\)$/);
    expect(nodeRow[4]).toBe('98.5%');
    expect(nodeRow[5]).toBe('my-validators, validation-ending, validator-health');
    const low = await page.locator('#l1 tbody tr', { hasText: 'v-low' }).locator('td').allInnerTexts();
    expect(low[3]).toMatch(/^0\.199\d* AVAX$/);
    expect(low[4]).toMatch(/^4d\d+h\d+m$/); // 0.2 AVAX at 512 nAVAX/s

    expect(await page.locator('#delivery p').first().innerText()).toBe('0 pending · 0 dead');
    const data = await page.locator('#delivery tbody tr', { hasText: 'data' }).locator('td').allInnerTexts();
    expect(data[1]).toMatch(/^[\d,]+ of 6,000$/);
    expect(data[3]).toMatch(/^[\d,]+ of 1,200,000$/);

    // In the page (strings: this project's TypeScript has no DOM types).
    // The inline style ran under the CSP (a violation would leave the text as written, and log).
    expect(await page.evaluate("getComputedStyle(document.querySelector('#alerts .sev')).textTransform")).toBe('uppercase');
    expect(console.filter((c) => /Content.Security.Policy|Refused/i.test(c))).toEqual([]);
    expect(console.filter((c) => c.startsWith('pageerror') || c.startsWith('error'))).toEqual([]);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'status-page.png'), fullPage: true });
    await page.close();
  });

  it('shows a hostile token name as text, runs none of it, and reads on a phone', async () => {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${app.url}/`);
    const icm = page.locator('#alerts tbody tr', { hasText: 'icm-stuck' });
    await icm.locator('summary').click(); // open "details"
    const token = icm.locator('dd', { hasText: 'Wrapped' });
    expect(await token.innerText()).toBe(`${HOSTILE} (<b>WAVAX</b>)`);
    expect(await token.isVisible()).toBe(true);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.locator('script, img, b').count()).toBe(0);

    // On a narrow screen each row is a card with labelled cells: no header row, no sideways scroll.
    expect(await page.locator('#alerts thead').isVisible()).toBe(false);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(ARTIFACTS, 'status-page-phone.png') });
    await page.close();
  });
});
