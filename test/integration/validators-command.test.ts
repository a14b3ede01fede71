import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { composeApp } from '../../src/app/compose.js';
import { validatorsCommand } from '../../src/commands/validators.js';
import { loadConfig } from '../../src/config/load.js';
import { SimClock } from '../../src/sim/clock.js';
import { scenarioSchema } from '../../src/sim/scenario.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { World } from '../../src/sim/world.js';
import { avawatch } from '../helpers/cli.js';

// `avawatch validators`: the standing of each inventory validator from the state file, on the
// shipped validator rules, against the simulator (its clock the daemon's).

const ALPHA = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const BETA = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const START = '2026-11-28T00:00:00Z';
const DAY = 86_400;
const ROOT = join(import.meta.dirname, '../..');

let sim: SimServer;
let dir: string;

beforeEach(async () => {
  const world = {
    validations: [
      // alpha: 100 days from 2026-10-01 (after Helicon: 90%), 87% so far, 58 days in.
      { nodeId: ALPHA, txHash: 'a1', start: '2026-10-01T00:00:00Z', end: '2027-01-09T00:00:00Z', status: 'active', uptimePerformance: 87, version: 'avalanche/1.14.2' },
      // beta renews every 14 days; its cycle ends in 3 days.
      { nodeId: BETA, txHash: 'b1', start: '-11d', end: '+3d', status: 'active', uptimePerformance: 99, version: 'avalanche/1.14.2', autoRenew: { nextPeriod: '14d' } },
    ],
    nodes: [{ nodeId: BETA }],
  };
  sim = await startSim({ world: new World(new SimClock(Date.parse(START), 0)), scenario: scenarioSchema.parse({ start: START, speed: 0, world }) });
  dir = mkdtempSync(join(tmpdir(), 'avawatch-validators-'));
});
afterEach(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('avawatch validators', () => {
  it('says how long each validator can still be down and be paid, its cycle, and whether a delegation still fits', async () => {
    const config = join(dir, 'avawatch.yaml');
    writeFileSync(
      config,
      [
        `api: { dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0 }`,
        `state: { path: "${join(dir, 'state.db')}" }`,
        'validators:',
        `  - { name: alpha, nodeId: ${ALPHA}, network: mainnet }`,
        `  - { name: beta, nodeId: ${BETA}, network: mainnet, api: "${sim.url}/node/${BETA}" }`,
        `ruleFiles: [${join(ROOT, 'rules/validators.yaml')}, ${join(ROOT, 'rules/validator-health.yaml')}]`,
      ].join('\n'),
    );
    const loaded = loadConfig(config, {});
    const app = composeApp(loaded, { logLevel: 'fatal', readable: false, clock: sim.world.clock.asClock() }).app;
    try {
      expect((await app.once()).failures).toEqual([]);
    } finally {
      await app.stop();
    }
    const now = sim.world.clock.nowMs();
    // alpha: 0.87 × 58 d up + 42 d left − 0.9 × 100 d needed = 2.46 d = 212,544 s.
    expect(await validatorsCommand(loaded, false, now)).toEqual([
      `alpha (${ALPHA}) mainnet: 1 firing; active, uptime 87%, ends 2027-01-09 00:00 UTC (in 42d), avalanche/1.14.2`,
      '  can be down 2d 11h more and still be paid (90% needed)',
      `beta (${BETA}) mainnet: OK; active, uptime 99%, ends 2026-12-01 00:00 UTC (in 3d), avalanche/1.14.2`,
      // 0.99 × 11 d + 3 d − 0.9 × 14 d = 1.29 d; the cycle ends in 3 days, under a delegation's 14.
      '  can be down 1d 6h more and still be paid (90% needed this cycle)',
      '  auto-renewed, cycle ends 2026-12-01 00:00 UTC (in 3d): renews for 14d',
      '  closed to new delegations: its cycle ends before the 14d a delegation must last',
    ]);
    // The real command, a process of its own, reading the state file beside nothing: the same figures.
    const json = await avawatch(['-c', config, 'validators', '--json']);
    const rows = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.map((r) => [r['name'], r['downtimeBudgetSeconds'], r['requirementPercent'], r['cycleEnd'], r['nextPeriodSeconds']])).toEqual([
      ['alpha', 212_544, 90, null, null],
      ['beta', Math.round(0.99 * 11 * DAY + 3 * DAY - 0.9 * 14 * DAY), 90, '2026-12-01T00:00:00.000Z', 14 * DAY],
    ]);
  });
});

describe("avawatch validators: the node's own version, and an unknown NodeID", () => {
  it("prints the version the node's API answers, and 'not listed', never 'OK', for a NodeID the service does not list", async () => {
    const ghost = 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu';
    sim.world.nodes.set({ nodeId: BETA, version: 'avalanchego/1.14.1' });
    const config = join(dir, 'avawatch.yaml');
    writeFileSync(
      config,
      [
        `api: { dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0 }`,
        `state: { path: "${join(dir, 'state.db')}" }`,
        'validators:',
        `  - { name: beta, nodeId: ${BETA}, network: mainnet, api: "${sim.url}/node/${BETA}" }`,
        `  - { name: ghost, nodeId: ${ghost}, network: mainnet }`,
        `ruleFiles: [${join(ROOT, 'rules/validators.yaml')}, ${join(ROOT, 'rules/node-health.yaml')}]`,
      ].join('\n'),
    );
    const loaded = loadConfig(config, {});
    const app = composeApp(loaded, { logLevel: 'fatal', readable: false, clock: sim.world.clock.asClock() }).app;
    try {
      await app.once();
    } finally {
      await app.stop();
    }
    const text = await validatorsCommand(loaded, false, sim.world.clock.nowMs());
    // The service says avalanche/1.14.2; the node itself answers 1.14.1: the node's answer is shown.
    expect(text.find((l) => l.startsWith('beta'))).toMatch(/, avalanchego\/1\.14\.1$/);
    expect(text.find((l) => l.startsWith('ghost'))).toBe(`ghost (${ghost}) mainnet: not listed; not listed`);
  });
});

describe('avawatch validators: hostile text', () => {
  it('prints a version the service reports with ESC, BEL and a bidi override as inert text', async () => {
    const hostile = 'avalanche/1.14.2 \u001b]0;pwned\u0007\u202e';
    sim.world.setValidators('mainnet', ALPHA, (sim.world.validators('mainnet', ALPHA) ?? []).map((v) => ({ ...(v as object), avalancheGoVersion: hostile })));
    const config = join(dir, 'avawatch.yaml');
    writeFileSync(
      config,
      `api: { dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0 }\nstate: { path: "${join(dir, 'state.db')}" }\nvalidators:\n  - { name: alpha, nodeId: ${ALPHA}, network: mainnet }\nruleFiles: [${join(ROOT, 'rules/validator-health.yaml')}]\n`,
    );
    const loaded = loadConfig(config, {});
    const app = composeApp(loaded, { logLevel: 'fatal', readable: false, clock: sim.world.clock.asClock() }).app;
    try {
      await app.once();
    } finally {
      await app.stop();
    }
    const now = sim.world.clock.nowMs();
    // eslint-disable-next-line no-control-regex -- control characters are what is looked for
    const raw = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
    const text = await validatorsCommand(loaded, false, now);
    expect(text[0]).toContain('avalanche/1.14.2 ?]0;pwned??');
    for (const line of [...text, ...(await validatorsCommand(loaded, true, now))]) expect(line).not.toMatch(raw);
  });
});
