import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { applyChange, worldChange } from '../../src/sim/scenario.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { startApp } from '../helpers/app.js';
import { useFakeTime, type FakeTime } from '../helpers/fake-time.js';

// The view from inside: the shipped rules/node-health.yaml over two inventory validators
// whose APIs the simulator serves, read by the built CLI's `once --json` as an operator would,
// and the heartbeat of a daemon against a monitor on loopback.

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '../../dist/cli.js');
const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const B = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const STRANGER = 'NodeID-4B4rc5vdD1758JSBYL1xyvE5NHGzz6xzH';

type Line = Record<string, unknown>;

describe('node-health: once --json against the simulated nodes and the service', () => {
  let sim: SimServer;
  let dir: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'avawatch-node-'));
    sim = await startSim();
    change({
      validations: [A, B].map((nodeId) => ({ nodeId, txHash: `tx-${nodeId.slice(-8)}`, start: '-30d', end: '+200d', uptimePerformance: 99.5 })),
      nodes: [{ nodeId: A }, { nodeId: B }],
    });
    // The shipped rule as it is, but firing at the first poll that sees a problem: `once` runs on the wall clock.
    const shipped = readFileSync('rules/node-health.yaml', 'utf8');
    writeFileSync(join(dir, 'node-health.yaml'), shipped.replace(/^(\s*for:\s*)\S+/m, '$10s'));
    const api = (id: string) => `${sim.url}/node/${id}`;
    writeFileSync(
      join(dir, 'avawatch.yaml'),
      `api: {dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0}\nnodeApi: {timeout: 2s}\nstate: {path: "${join(dir, 'state.db')}"}\nruleFiles: [node-health.yaml]\n` +
        `validators:\n  - { name: alpha, nodeId: ${A}, api: "${api(A)}" }\n  - { name: beta, nodeId: ${B}, api: "${api(B)}" }\n`,
    );
  });
  afterEach(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function change(c: Record<string, unknown>): void {
    applyChange(sim.world, worldChange.parse(c), sim.world.clock.nowMs());
  }
  async function once(): Promise<{ alerts: Line[]; results: Line[] }> {
    const r = await run(process.execPath, [CLI, '-c', join(dir, 'avawatch.yaml'), 'once', '--json'], { env: { PATH: process.env['PATH'] ?? '' } });
    const lines = r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line);
    return { alerts: lines.filter((l) => l['type'] === 'alert'), results: lines.filter((l) => l['type'] === 'result') };
  }
  const said = (alerts: Line[]) => alerts.map((a) => `${a['status'] as string} ${a['severity'] as string}: ${a['summary'] as string}`).sort();

  it('a failing check, another NodeID and low rewarding stake fire and resolve; the API down is a warning naming both views, critical once the network loses the node too', async () => {
    const baseline = await once();
    expect(baseline.alerts).toEqual([]);
    expect(baseline.results.map((r) => `${r['validator'] as string} ${r['ok'] as string}`).sort()).toEqual(['alpha true', 'beta true']);
    expect(baseline.results.find((r) => r['validator'] === 'alpha')).toMatchObject({ kind: 'node-health', state: { nodeId: A, rewardingStake: 100, bootstrapped: { P: true, X: true, C: true } } });

    change({ node: { nodeId: A, diskAvailablePercent: 7, rewardingStake: 70 } });
    change({ node: { nodeId: B, reportsNodeId: STRANGER } });
    expect(said((await once()).alerts)).toEqual([
      `firing critical: beta (${B})'s API at 127.0.0.1:${new URL(sim.url).port} answers as ${STRANGER}: a node started with another staking key validates nothing`,
      `firing critical: only 70% of stake thinks alpha (${A}) meets the uptime requirement, under 80%: its reward is at risk`,
      expect.stringMatching(/^firing warning: alpha \(NodeID-\S+\)'s health check diskspace fails: remaining available disk space percentage \(7%\) is below warning threshold available space percentage \(10%\)/),
    ]);

    change({ node: { nodeId: A, diskAvailablePercent: 60, rewardingStake: 99 } });
    change({ node: { nodeId: B, reportsNodeId: null } });
    expect(said((await once()).alerts)).toEqual([
      `resolved critical: 99% of stake thinks alpha (${A}) meets the uptime requirement (above 90%)`,
      `resolved critical: beta (${B})'s API answers with its own NodeID again`,
      `resolved warning: alpha (${A})'s health check diskspace passes again`,
    ]);

    change({ node: { nodeId: A, down: true } });
    const down = await once();
    expect(said(down.alerts)).toEqual([
      expect.stringMatching(/^firing warning: avawatch cannot reach alpha \(NodeID-\S+\)'s API at 127\.0\.0\.1:\d+ \(.+\) for 0s; the network still sees it \(listed active, uptime 99\.5%, reachability 100%\)$/),
    ]);
    expect(down.alerts[0]).toMatchObject({ labels: expect.objectContaining({ check: 'api', view: 'seen', validator: 'alpha' }) });

    change({ validator: { nodeId: A, health: { reachability: 20 } } });
    expect(said((await once()).alerts)).toEqual([expect.stringMatching(/^firing critical: alpha \(NodeID-\S+\) is down: its API at 127\.0\.0\.1:\d+ does not answer \(.+\) and its reachability is 20%, under 80%$/)]);
  }, 60_000);

  it('check counts the node calls as free and the outside view as the validator rules\' list', async () => {
    const r = await run(process.execPath, [CLI, '-c', join(dir, 'avawatch.yaml'), 'check'], { env: { PATH: process.env['PATH'] ?? '' } });
    // Per node and minute: health (its peer count too), getNodeID, getNodeVersion, uptime, upgrades, isBootstrapped × 3; never info.peers.
    expect(r.stdout).toContain('node APIs  23,040 calls a day to your own nodes, no compute units');
    expect(r.stdout).toMatch(/node-health {2}node-health {2}every 1m .*mainnet, 2 nodes' own APIs/);
  });
});

describe('heartbeat: a dead man\'s switch on loopback', () => {
  let sim: SimServer;
  let monitor: Server;
  let pings: string[];
  let dir: string;
  let app: App | undefined;
  let time: FakeTime | undefined;
  beforeEach(async () => {
    sim = await startSim();
    applyChange(sim.world, worldChange.parse({ validations: [{ nodeId: A, txHash: 'tx-a', start: '-30d', end: '+200d' }] }), sim.world.clock.nowMs());
    pings = [];
    monitor = createServer((req, res) => {
      pings.push(req.url ?? '');
      req.resume().on('end', () => res.end('OK'));
    });
    await new Promise<void>((r) => monitor.listen(0, '127.0.0.1', r));
    dir = mkdtempSync(join(tmpdir(), 'avawatch-heartbeat-'));
  });
  afterEach(async () => {
    if (app) await time?.settle(app.stop(), 'the App to stop');
    time?.restore();
    time = undefined;
    await sim.close();
    await new Promise((r) => monitor.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('pings the URL after each cycle in which every source answered, and the failure URL while the data service is blind; neither URL is ever logged', async () => {
    const url = `http://127.0.0.1:${(monitor.address() as AddressInfo).port}/ping/0c1d-uuid`;
    const config = join(dir, 'avawatch.yaml');
    writeFileSync(
      config,
      `api: {dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0, dedupeWindow: 0s}\nstate: {path: "${join(dir, 'state.db')}"}\nserver: {listen: "127.0.0.1:0"}\nheartbeat: {url: "${url}", every: 1h}\n` +
        `ruleFiles: [rules.yaml]\n`,
    );
    writeFileSync(join(dir, 'rules.yaml'), `rules:\n  - { name: v, kind: validator-status, every: 1h, severity: warning, network: mainnet, nodeIds: [${A}] }\n`);
    const t = (time = useFakeTime());
    app = await startApp(config, 'silent', t.clock);
    await t.until(() => app?.readiness().ready, 'the first evaluation');
    expect(await app.heartbeat()).toEqual({ outcome: 'ok', why: [] });
    expect(await app.heartbeat()).toMatchObject({ outcome: 'ok' });

    sim.world.settings.errorRate = 1; // every answer a 5xx
    await app.once();
    const blind = await app.heartbeat();
    expect(blind).toMatchObject({ outcome: 'fail', why: [expect.stringMatching(/^the data service answers 50[03] since \d\d:\d\d UTC: 1 rule failing \(v\): data API GET \/v1\/networks\/mainnet\/validators: HTTP 50[03]/)] });
    sim.world.settings.errorRate = 0;
    await app.once();
    expect(await app.heartbeat()).toMatchObject({ outcome: 'ok' });
    expect(pings).toEqual(['/ping/0c1d-uuid', '/ping/0c1d-uuid', '/ping/0c1d-uuid/fail', '/ping/0c1d-uuid']);

    // A rotated URL takes effect at a reload (a secret's change is a change).
    writeFileSync(config, readFileSync(config, 'utf8').replace('/ping/0c1d-uuid', '/ping/new-uuid'));
    expect(await app.reload('test')).toBe(true);
    expect(await app.heartbeat()).toMatchObject({ outcome: 'ok' });
    expect(pings.at(-1)).toBe('/ping/new-uuid');
    const exposition = await app.metrics.render();
    expect(exposition).toMatch(/avawatch_heartbeat_pings_total\{outcome="fail"\} 1/);
    expect(exposition).not.toContain('0c1d-uuid');
  });
});
