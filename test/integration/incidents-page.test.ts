import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { composeApp } from '../../src/app/compose.js';
import { GROUPING } from '../../src/commands/init.js';
import { loadConfig } from '../../src/config/load.js';
import { periodMs } from '../../src/base/schedule.js';
import { SimClock } from '../../src/sim/clock.js';
import { applyChange, worldChange } from '../../src/sim/scenario.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { World } from '../../src/sim/world.js';
import { renderStatusPage } from '../../src/status/page.js';
import type { StatusSnapshot } from '../../src/status/snapshot.js';
import { testNodeId } from '../helpers/node-ids.js';
import { startSlackReceiver, type SlackReceiver } from '../helpers/slack-receiver.js';

// Issue 40 on the status page, end to end: a network of 1,000 validators, the operator's eight
// (five on host h1), the shipped validator-health and network-baseline rules, on the simulator's
// clock. Host h1 dies: the page shows the network's baseline, the one incident, and each of its
// validators' alerts still firing, held by it; and each validator's chart the network's band.

const START = Date.parse('2026-03-01T00:00:00Z');
const MINUTE = 60_000;
const FLEET = Array.from({ length: 8 }, (_, i) => ({ name: `v${i + 1}`, nodeId: testNodeId(`incident-page-${i}`), host: i < 5 ? 'h1' : `h${i - 3}` }));
const H1 = FLEET.slice(0, 5);

describe('the status page during an incident (issue 40)', () => {
  let world: World;
  let sim: SimServer;
  let receiver: SlackReceiver;
  let dir: string;
  let app: App;
  let snapshot: StatusSnapshot;
  let page: string;

  beforeAll(async () => {
    world = new World(new SimClock(START, 0));
    const change = (c: unknown) => applyChange(world, worldChange.parse(c), START);
    change({
      bulkNetwork: { network: 'mainnet', validators: 1000 },
      validations: FLEET.map((v) => ({ nodeId: v.nodeId, txHash: `tx-${v.name}`, start: '-100d', end: '+200d', status: 'active', uptimePerformance: 99.5, version: 'avalanche/1.14.1' })),
    });
    sim = await startSim({ world, budget: { data: { perMinute: 1e9, perDay: 1e12 }, metrics: { perMinute: 1e9, perDay: 1e12 } } });
    receiver = await startSlackReceiver();
    dir = mkdtempSync(join(tmpdir(), 'avawatch-incidents-page-'));
    const rules = ['validator-health.yaml', 'network-baseline.yaml'].map((f) => JSON.stringify(resolve('rules', f)));
    writeFileSync(
      join(dir, 'avawatch.yaml'),
      [
        'validators:',
        ...FLEET.map((v) => `  - { name: ${v.name}, nodeId: ${v.nodeId}, network: mainnet, labels: { host: ${v.host} } }`),
        `api: { dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0, timeout: 5s, budget: { perMinute: 1000000000, perDay: 1000000000000 } }`,
        `state: { path: ${JSON.stringify(join(dir, 'state.db'))} }`,
        'history: { sampleEvery: 1m }',
        'receivers:',
        `  - { name: slack, type: slack, webhookUrl: "${receiver.webhookUrl}", minInterval: 0s }`,
        'route:',
        '  receivers: [slack]',
        ...GROUPING,
        `ruleFiles: [${rules.join(', ')}]`,
        '',
      ].join('\n'),
    );
    const loaded = loadConfig(join(dir, 'avawatch.yaml'), {});
    app = composeApp(loaded, { logLevel: 'silent', readable: false, clock: world.clock.asClock() }).app;
    const minutes = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const m = Math.round((world.clock.nowMs() - START) / MINUTE);
        const due = loaded.rules.filter((r) => m % Math.round((periodMs(r.schedule) ?? MINUTE) / MINUTE) === 0).map((r) => r.name);
        const { failures } = await app.once(due);
        expect(failures.map((f) => `${f.rule}: ${String(f.error)}`)).toEqual([]);
        await app.delivery.drain(0);
        world.clock.advance(MINUTE);
      }
    };
    await minutes(12);
    for (const v of H1) change({ validator: { nodeId: v.nodeId, health: { reachability: 0 } } });
    await minutes(13);
    snapshot = await app.statusSnapshot();
    page = renderStatusPage(snapshot);
  }, 60_000);

  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("shows the network's baseline and the one incident of host h1: its scope, your share of stake, its validators", () => {
    expect(snapshot.networks).toHaveLength(1);
    const [mainnet] = snapshot.networks ?? [];
    expect(mainnet).toMatchObject({ network: 'mainnet', stale: undefined });
    expect(mainnet?.count).toBeGreaterThanOrEqual(1000);
    expect(mainnet?.versions[0]?.count).toBeGreaterThan(0);
    expect(mainnet?.incidents.map((i) => [i.scope, i.group, i.ownShare, i.validators])).toEqual([['group', 'host=h1', '63 %', H1.map((v) => v.name)]]);
    const block = page.slice(page.indexOf('<section id="network">'), page.indexOf('</section>', page.indexOf('<section id="network">')));
    expect(block).toMatch(/[\d,]+<\/strong> active validators · swept/);
    expect(block).toContain('your group <code>host=h1</code>');
    expect(block).toContain('5: v1, v2, v3, v4, v5');
  });

  it('lists each of its validators\' alerts as firing, held by the incident; the others are not held', () => {
    const children = snapshot.alerts.filter((a) => a.rule === 'validator-health');
    expect(children.length).toBeGreaterThanOrEqual(5);
    for (const a of children) expect(a.held).toMatch(/^held by incident incident:group:mainnet:host=h1: host h1 on mainnet: 5 validators/);
    expect(snapshot.alerts.find((a) => a.rule === 'avawatch')?.held).toBeUndefined();
    expect(page.match(/<div class="note warning held">held by incident incident:group:mainnet:host=h1/g)?.length).toBe(children.length);
  });

  it("draws the network's band behind each validator's uptime line, from the history the sampler kept", () => {
    const tile = (name: string) => page.slice(page.indexOf(`<strong class="name">${name}</strong>`), page.indexOf('</li>', page.indexOf(`<strong class="name">${name}</strong>`)));
    for (const v of FLEET) {
      expect(tile(v.name)).toContain('<polygon class="band"');
      expect(tile(v.name)).toMatch(/network median [\d.]+%/);
    }
  });
});
