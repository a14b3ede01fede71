import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firingAlerts } from '../../src/alerts/view.js';
import { ruleKind } from '../../src/rules/registry.js';
import { applyChange, worldChange } from '../../src/sim/scenario.js';
import { launchChromium, type Browser } from '../helpers/browser.js';
import { startDaemon, type Daemon } from '../helpers/daemon.js';

const N = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const N2 = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const SUBNET = '2Hm6eGyCNtJ5h5rGcS1DFRxNp1Mrx8FTRQRr2s5L3aFcmJzRqg';
const ADDR = '0xAbC0000000000000000000000000000000000001';
// A token whose name is markup: it reaches the page through the ICM alert's details.
const HOSTILE = `<img src=x onerror="window.__pwned=1">Wrapped "AVAX" & <script>window.__pwned=2</script>`;
const USER = 'operator';
const PASSWORD = 'status-page-pw-5e81';
const ARTIFACTS = join(import.meta.dirname, '../../test-artifacts');
const HOUR = 3_600_000;

const RULES = `rules:
  - { name: validation-ending, kind: validation-end, every: 1s, severity: warning, network: mainnet, nodeIds: [${N}], warnBefore: [14d, 3d, 1d] }
  - { name: my-validators, kind: validator-status, every: 1s, severity: critical, network: mainnet, nodeIds: [${N}, ${N2}] }
  - { name: validator-health, kind: validator-health, every: 1s, severity: warning, network: mainnet, nodeIds: [${N}, ${N2}] }
  - { name: l1-balance, kind: l1-validator-balance, every: 1s, severity: critical, network: mainnet, subnetId: ${SUBNET}, minBalance: 0.5, minRunway: 3d }
  - { name: icm-stuck, kind: icm-pending, every: 1s, severity: warning, network: mainnet, addresses: ["${ADDR}"], olderThan: 15m }
  - { name: network-baseline, kind: network-baseline, every: 1s, severity: warning, network: mainnet, expectValidators: 2, minShareOfLast: 0 }
`;

describe('the status page in a real browser (headless Chromium), against the simulator', () => {
  // The simulator, the App (real SQLite, the page on real HTTP) and a real browser, the daemon on the
  // fixture's fake time (test/helpers/daemon.ts). While a test reads the page nothing pumps that time:
  // the daemon stands still at one moment, which the page shows, and the browser's work (the page's
  // load, Playwright's first try of each read or click) needs no timer of this process.
  let d: Daemon & { stop(): Promise<void> };
  let browser: Browser;
  const app = () => d.app;

  beforeAll(async () => {
    // Started before the fake time: its launch is the browser's own, on the real clock.
    browser = await launchChromium({ httpCredentials: { username: USER, password: PASSWORD }, viewport: { width: 1200, height: 900 } });
    d = await startDaemon({
      project: ({ dataUrl, statePath }) => ({
        'avawatch.yaml': `api: {dataUrl: "${dataUrl}", metricsUrl: "${dataUrl}", retries: 0}\nstate: {path: "${statePath}"}\nserver:\n  listen: 127.0.0.1:0\n  auth: {username: ${USER}, password: ${PASSWORD}}\nruleFiles: [rules.yaml]\n`,
        'rules.yaml': RULES,
      }),
      before: ({ sim }) => {
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
      },
    });
    const { sim } = d;
    // Three rules fire; the runway needs two reads of the balance.
    await d.until(async () => new Set((await firingAlerts(app().store)).map((a) => a.rule)).size === 3, 'validation-ending, l1-balance and icm-stuck firing', { within: 15_000 });
    await d.until(() => [...app().engine.samples('avawatch_l1_validator_runway_seconds')].length === 2, 'both runways', { within: 15_000 });
    // N2's validation ends without a reward (a one-shot event); then an hour passes, for the service and the daemon (its clock is the simulator's).
    applyChange(sim.world, worldChange.parse({ validator: { nodeId: N2, status: 'completed', reward: { validation: 0 } } }), sim.world.clock.nowMs());
    const ended = async () => (await app().store.timeline({ since: 0 })).some((e) => e.status === 'event' && e.summary.includes('without a reward'));
    await d.until(ended, 'the validation-ended event committed', { within: 15_000 });
    sim.world.clock.advance(HOUR);
    // Summaries state times, not "in 1d22h" (issue 38): every rule's last success says it ran an
    // hour on (network-baseline's sweep too, or the page calls the band stale).
    const hourOn = async () => {
      const done = (await app().metrics.ruleLastSuccess.get()).values.filter((v) => v.value * 1000 >= sim.world.clock.nowMs() - 60_000);
      return new Set(done.map((v) => v.labels.rule)).size === 6;
    };
    await d.until(hourOn, 'an evaluation of every rule an hour on', { within: 15_000 });
    // The charts' figures, as the history sampler writes them (uptime every 10 minutes for 6 h; N dips once).
    const now = sim.world.clock.nowMs();
    const uptime = (node: string, base: number) => Array.from({ length: 37 }, (_, i) => ({ series: 'uptime_percent', entity: node, at: now - (36 - i) * 600_000, value: i === 20 ? base - 9 : base }));
    await app().store.addSamples([...uptime(N, 98.5), ...uptime(N2, 99.2)]);
    // The network's band (issue 40): p10–p90 of the network's uptime, and its median, over the same hours.
    const band = (p: string, value: number) => Array.from({ length: 37 }, (_, i) => ({ series: `network_uptime_${p}`, entity: 'mainnet', at: now - (36 - i) * 600_000, value }));
    await app().store.addSamples([...band('p10', 96), ...band('p50', 99.1), ...band('p90', 99.9)]);
    await app().store.addSamples(Array.from({ length: 12 }, (_, i) => ({ series: 'l1_balance_avax', entity: 'v-low', at: now - (11 - i) * HOUR, value: 0.2 + (11 - i) * 0.05 })));
  }, 60_000);

  afterAll(async () => {
    await d?.stop();
    await browser?.close();
  });

  it('asks for the credentials, then shows the firing alerts, the rules, the validators, the outbox and the budget as text a user reads', async () => {
    expect((await fetch(`${app().url}/`)).status).toBe(401);
    const page = await browser.context.newPage();
    const console: string[] = [];
    page.on('console', (m) => console.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => console.push(`pageerror: ${e.message}`));

    const res = await page.goto(`${app().url}/`);
    expect(res?.status()).toBe(200);
    expect(await page.title()).toBe('avawatch: 3 firing');
    expect(await page.locator('#alerts h2').innerText()).toBe('Firing alerts (3)');

    const ending = (await firingAlerts(app().store)).find((a) => a.rule === 'validation-ending');
    const row = page.locator('#alerts tbody tr', { hasText: 'validation-ending' });
    expect((await row.locator('td').allInnerTexts()).slice(0, 4)).toEqual(['WARNING', 'validation-ending', N, expect.stringContaining(ending?.summary ?? '?')]);
    expect(ending?.summary).toMatch(/ends within \d+d, at \d{4}-/);
    expect(await page.locator('#alerts tbody tr', { hasText: 'l1-balance' }).locator('.sev').innerText()).toBe('CRITICAL');

    const rules = page.locator('#rules tbody tr');
    expect(await rules.count()).toBe(6);
    const ruleCells = await rules.filter({ hasText: 'validation-ending' }).locator('td').allInnerTexts();
    expect(ruleCells.slice(0, 3)).toEqual(['validation-ending', 'validation-end', 'every 1s']);
    expect(ruleCells[3]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \((now|\d+s ago)\)$/);
    // Estimated from the kind's calls: every 1s is 86,400 evaluations a day.
    const rule = app().rules.find((r) => r.name === 'validation-ending');
    const cu = ruleKind('validation-end').cost(rule?.spec as never).calls.reduce((sum, c) => sum + c.cu, 0);
    expect(cu).toBeGreaterThan(0);
    expect(ruleCells[4]).toBe('0');
    expect(ruleCells[5]?.split('\n')[0]).toBe(String(cu));
    expect(ruleCells[6]).toBe((cu * 86_400).toLocaleString('en-US'));

    // The validators come first: a tile each, its verdict, figures and explorer link in words.
    const tile = page.locator('#validators .tile', { hasText: N });
    const text = await tile.innerText();
    expect(text).toMatch(/^1 firing /);
    expect(text).toMatch(/active · uptime 98\.5% · ends \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(in 1d22h\d+m\) · avalanche\/1\.14\.1/);
    expect(await tile.locator('a', { hasText: N }).getAttribute('href')).toBe(`https://subnets.avax.network/validators/${N}`);
    expect(await page.locator('#validators .tile', { hasText: N2 }).innerText()).toMatch(/^not validating [\s\S]*completed · uptime/);
    // Its chart: a line through every sample, the reward and warning levels dashed and labelled, the figures in words.
    const chart = tile.locator('svg');
    // The 36 samples the test wrote, and those the daemon's own sampler took since.
    expect((await chart.locator('path.line').getAttribute('d'))?.split('L').length).toBeGreaterThanOrEqual(37);
    expect(await chart.locator('line.thr').count()).toBe(1);
    expect(await chart.locator('text.thr-label').allTextContents()).toEqual(['reward 80%']);
    expect(await chart.getAttribute('aria-label')).toMatch(/^Uptime from .* UTC: latest 98\.5%, lowest 89\.5%; lines: reward 80%; network median 99\.1%, p10–p90 96%–99\.9%$/);
    // Behind its line, the network's p10–p90 shaded and its median dashed (the page's own CSS draws them).
    expect(await chart.locator('polygon.band').count()).toBe(1);
    expect(await page.evaluate("getComputedStyle(document.querySelector('#validators .chart path.median')).strokeDasharray")).not.toBe('none');
    // The Network block: the baseline swept from the simulator's whole list, and no incident.
    expect(await page.locator('#network h3').innerText()).toBe('mainnet');
    expect(await page.locator('#network .network').innerText()).toMatch(/^mainnet\n+\d active validators? · swept \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(\d+s old\) · median uptime [\d.]+%[\s\S]*Versions: 1\.14\.1 \d[\s\S]*No open incident\.$/);
    // How long it can still be down, as the formula gives it at its last read (the gauge's, shown in words):
    // uptime × elapsed + remaining − requirement × length, with 80% needed (it started before Helicon).
    const st = app().engine.view('validator-health')?.states.get(N) as { at: number; period: { startTimestamp: number; endTimestamp: number } };
    const budget = 0.985 * (st.at - st.period.startTimestamp) + (st.period.endTimestamp - st.at) - 0.8 * (st.period.endTimestamp - st.period.startTimestamp);
    const gauge = [...app().engine.samples('avawatch_validator_downtime_budget_seconds')].find((g) => g.labels['node_id'] === N);
    expect(gauge?.value).toBe(Math.round(budget));
    const days = Math.floor(budget / 86_400);
    expect(text).toContain(`can be down ${days}d ${Math.floor((budget - days * 86_400) / 3_600)}h more and still be paid (80% needed)`);
    expect(await tile.locator('figcaption').innerText()).toMatch(/latest 98\.5%, lowest 89\.5%; network median 99\.1%$/);
    const box = await chart.boundingBox();
    expect(box?.height).toBeGreaterThan(40);
    const l1 = page.locator('#l1 .tile', { hasText: 'v-low' });
    expect(await l1.innerText()).toMatch(/^1 firing v-low[\s\S]*balance 0\.19\d* AVAX · runway 4d\d+h\d+m/); // 0.2 AVAX an hour ago, at 512 nAVAX/s
    expect((await l1.locator('path.line').getAttribute('d'))?.split('L').length).toBeGreaterThanOrEqual(12); // and the sampler's own
    expect(await l1.locator('text.thr-label').textContent()).toBe('minimum 0.5 AVAX');

    // The one-shot event of an hour ago, in the timeline, with the validator linked.
    const event = page.locator('#timeline tbody tr', { hasText: 'without a reward' });
    const cells = await event.locator('td').allInnerTexts();
    expect(cells[0]).toMatch(/UTC \(1h(\d+s)? ago\)$/);
    expect(cells[1]).toBe('CRITICAL event');
    expect(cells[2]).toMatch(new RegExp(`^${N2} validation ended without a reward \\(active → completed\\)`));
    expect(await event.locator('td[data-label="Validator"] a').getAttribute('href')).toBe(`https://subnets.avax.network/validators/${N2}`);

    expect(await page.locator('#receivers p').first().innerText()).toBe('Outbox: 0 pending · 0 dead');
    expect(await page.locator('#sources tbody tr', { hasText: 'Data API' }).locator('td').allInnerTexts()).toEqual(['Data API', 'ok', expect.stringMatching(/^6 rules reading it; [\d,]+ CU left today$/)]);
    const data = await page.locator('#sources table').nth(1).locator('tbody tr', { hasText: 'data' }).locator('td').allInnerTexts();
    expect(data[1]).toMatch(/^[\d,]+ of 6,000$/);
    expect(data[3]).toMatch(/^[\d,]+ of 1,200,000$/);

    // Sections in the order a person asks: validators, then what fires, what happened, and the machinery last.
    const order = await page.evaluate("[...document.querySelectorAll('main > section')].map((s) => s.id).join(' ')");
    expect(order).toBe('validators network l1 alerts timeline silences receivers sources rules');

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
    await page.goto(`${app().url}/`);
    // The validators are on the first screen of a phone, charts and all.
    const tiles = page.locator('#validators .tile');
    expect(await tiles.count()).toBe(2);
    for (const box of await Promise.all((await tiles.all()).map((t) => t.boundingBox()))) {
      expect(box).not.toBeNull();
      expect((box?.y ?? Infinity) + (box?.height ?? 0)).toBeLessThanOrEqual(844);
    }
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'status-page-phone.png') });
    const icm = page.locator('#alerts tbody tr', { hasText: 'icm-stuck' });
    await icm.locator('summary').click(); // open "details"
    const token = icm.locator('dd', { hasText: 'Wrapped' });
    expect(await token.innerText()).toBe(`${HOSTILE} (<b>WAVAX</b>)`);
    expect(await token.isVisible()).toBe(true);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.locator('script, img, b').count()).toBe(0);
    expect(await page.locator('svg').count()).toBe(4); // v-healthy too: the sampler took its first uptime

    // On a narrow screen each row is a card with labelled cells: no header row, no sideways scroll.
    expect(await page.locator('#alerts thead').isVisible()).toBe(false);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.close();
  });
});
