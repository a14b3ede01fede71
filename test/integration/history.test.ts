import { clockAt } from '../../src/base/clock.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { composeApp } from '../../src/app/compose.js';
import { loadConfig } from '../../src/config/load.js';
import { activeValidator } from '../../src/sim/samples.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { SqliteStore } from '../../src/store/index.js';
import { avawatch } from '../helpers/cli.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const OTHER = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const MIN = 60_000;

let sim: SimServer;
let dir: string;

beforeEach(async () => {
  sim = await startSim();
  dir = mkdtempSync(join(tmpdir(), 'avawatch-history-'));
});
afterEach(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

function uptime(node: string, percent: number): void {
  const now = sim.world.clock.now();
  sim.world.setValidators('mainnet', node, [activeValidator({ nodeId: node, txHash: `tx-${node}`, startTimestamp: now - 30 * 86_400, endTimestamp: now + 150 * 86_400, uptimePerformance: percent })]);
}

describe('history: sampling after evaluations, and avawatch history', () => {
  it('keeps one uptime figure per node every sampleEvery from committed evaluations only, and prints the timeline and the figures', async () => {
    const config = join(dir, 'avawatch.yaml');
    writeFileSync(
      config,
      [
        `api: { dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0 }`,
        `state: { path: "${join(dir, 'state.db')}" }`,
        'history: { sampleEvery: 10m }',
        'ruleFiles: [rules.yaml]',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'rules.yaml'),
      `rules:\n  - { name: validator-health, kind: validator-health, every: 1m, severity: warning, network: mainnet, nodeIds: [${NODE}, ${OTHER}] }\n`,
    );
    uptime(NODE, 98.5);
    uptime(OTHER, 99.9);
    const t0 = Date.now() - 30 * MIN;
    let now = t0;
    const app = composeApp(loadConfig(config, {}), { logLevel: 'fatal', readable: false, clock: clockAt(() => now) }).app;
    try {
      expect((await app.once()).failures).toEqual([]);
      uptime(NODE, 84);
      now = t0 + 1 * MIN; // fires (under the 90% a validation started after Helicon needs), not due for a sample
      expect((await app.once()).alerts.map((a) => `${a.status} ${a.subject}`)).toEqual([`firing ${NODE}`]);
      now = t0 + 11 * MIN;
      await app.once();
      // The service fails: the evaluation keeps what held, and samples nothing.
      sim.world.faults.push(...Array.from({ length: 20 }, () => ({ status: 500 })));
      uptime(NODE, 50);
      now = t0 + 22 * MIN;
      await app.once();
    } finally {
      await app.stop();
    }
    const store = SqliteStore.open(join(dir, 'state.db'), { write: false });
    expect((await store.samples('uptime_percent', NODE, 0)).map((s) => [(s.at - t0) / MIN, s.value])).toEqual([[0, 98.5], [11, 84]]);
    await store.close();

    const text = await avawatch(['-c', config, 'history', '--validator', NODE, '--since', '1h']);
    const lines = text.stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^events and state changes about ${NODE} since \\S+Z, newest first:$`));
    expect(lines[1]).toMatch(new RegExp(`^${new Date(t0 + MIN).toISOString()} CRITICAL firing validator-health ${NODE}: ${NODE} uptime 84% is under 90%: 6 points UNDER the 90% this validation needs for its reward; it can be down 13d \\d+h more and still be paid$`));
    expect(lines[2]).toMatch(/^sampled figures since \S+Z:$/);
    expect(lines[3]).toBe(`  uptime_percent ${NODE}: latest 84 at ${new Date(t0 + 11 * MIN).toISOString()}, min 84, max 98.5, 2 samples`);
    expect(text.stdout).not.toContain(OTHER);

    const json = await avawatch(['-c', config, 'history', '--validator', NODE, '--since', new Date(t0).toISOString(), '--json']);
    const objects = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(objects).toEqual([
      expect.objectContaining({ type: 'entry', status: 'firing', severity: 'critical', subject: NODE, labels: expect.objectContaining({ node: NODE, rule: 'validator-health' }), details: expect.any(Object) }),
      { type: 'figure', series: 'uptime_percent', entity: NODE, latest: 84, latestAt: new Date(t0 + 11 * MIN).toISOString(), min: 84, max: 98.5, count: 2 },
    ]);

    const older = await avawatch(['-c', config, 'history', '--since', '10m']);
    expect(older.stdout).toMatch(/^no events or state changes since \S+Z\n$/);
    const bad = await avawatch(['-c', config, 'history', '--since', 'yesterday']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('avawatch: --since: "yesterday" is neither a duration such as 24h or 7d nor an ISO time such as 2026-01-31T12:00:00Z\n');
  });
});
