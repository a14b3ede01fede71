import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { activeValidator } from '../../src/sim/samples.js';
import { applyChange, worldChange } from '../../src/sim/scenario.js';
import { startSim, type SimServer } from '../../src/sim/server.js';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '../../dist/cli.js');

interface Case {
  ruleFile: string;
  world: Record<string, unknown>;
  change: (sim: SimServer) => void;
  expected: Array<Record<string, unknown>>;
  /** Time to let pass before the second run (a check's `for`). */
  waitMs?: number;
  /** Alerts that may also come, depending on timing. */
  mayAlso?: Array<Record<string, unknown>>;
}

const N = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const SUBNET = '2Hm6eGyCNtJ5h5rGcS1DFRxNp1Mrx8FTRQRr2s5L3aFcmJzRqg';
const ADDR = '0xAbC0000000000000000000000000000000000001';
/** The treasury of rules/address-activity.yaml (a placeholder) and someone paying it. */
const TREASURY = '0x7E2b5a0C4d1F93e8A6b0c2D47f1E9a3B5c8D0e6F';
const PAYER = '0x4f1A2b3C4d5E6f708192a3B4c5D6e7F809a1B2c3';

// Each shipped example rule against the simulator: a healthy world, then the change it exists for.
const cases: Record<string, Case> = {
  'validation-end': {
    ruleFile: 'rules/validation-end.yaml',
    world: { validations: [{ nodeId: N, txHash: 'p1', start: '-300d', end: '+20d', status: 'active' }] },
    // The operator's node was re-registered with a period ending in two days.
    change: (sim) => sim.world.setValidators('mainnet', N, [activeValidator({ nodeId: N, txHash: 'p2', startTimestamp: sim.world.clock.now() - 86_400, endTimestamp: sim.world.clock.now() + 2 * 86_400 })]),
    expected: [{ rule: 'validation-ending', kind: 'validation-end', status: 'firing', subject: N, labels: expect.objectContaining({ threshold: '3d' }) }],
  },
  'validator-health': {
    ruleFile: 'rules/validator-health.yaml',
    world: { validations: [{ nodeId: N, txHash: 'p1', start: '-30d', end: '+150d', status: 'active', uptimePerformance: 98, version: 'avalanche/1.14.1' }] },
    // Its uptime falls under 90% and it is downgraded to an AvalancheGo older than required.
    change: (sim) => change(sim, { validator: { nodeId: N, uptimePerformance: 88.5, version: 'avalanche/1.13.2' } }),
    expected: [
      { rule: 'validator-health', kind: 'validator-health', status: 'firing', severity: 'warning', subject: N, summary: `${N} uptime 88.5% is under 90%: 8.5 points above the 80% this validation needs for its reward` },
      { rule: 'validator-health', kind: 'validator-health', status: 'firing', subject: N, labels: expect.objectContaining({ check: 'version' }) },
    ],
  },
  'validator-health (benched)': {
    ruleFile: 'test/fixtures/kinds/validator-health-benched.yaml',
    // Benched from the first read on: one sample is never enough, so the baseline says nothing.
    world: { validations: [{ nodeId: N, txHash: 'p1', start: '-30d', end: '+150d', status: 'active', health: { benchedC: 60 } }] },
    change: () => undefined, // still benched a second later: past its `for`
    waitMs: 1_100,
    expected: [{ rule: 'benched', kind: 'validator-health', status: 'firing', subject: N, labels: expect.objectContaining({ check: 'benched', chains: 'C' }) }],
  },
  'validator-status': {
    ruleFile: 'rules/validators.yaml',
    world: {
      validations: [
        { nodeId: N, txHash: 'p1', start: '-180d', end: '-1m', status: 'active' },
        { nodeId: 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ', txHash: 'p2', start: '-10d', end: '+20d', status: 'active' },
      ],
    },
    // The validation ends and pays nothing.
    change: (sim) => change(sim, { validator: { nodeId: N, status: 'completed', reward: { validation: 0, delegation: 0 } } }),
    expected: [{ rule: 'my-validators', kind: 'validator-status', status: 'event', severity: 'critical', subject: N, summary: expect.stringMatching(/validation ended without a reward \(active → completed\)/) }],
  },
  'delegation-end': {
    ruleFile: 'rules/delegation-end.yaml',
    // Past its end time but still listed active: the reward transaction is not issued yet.
    world: { delegations: [{ txHash: 'd1', nodeId: N, rewardAddresses: ['avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw'], amount: 25, start: '-14d', end: '-1m' }] },
    // The service lists it completed, with its reward: only now has it ended.
    change: (sim) => sim.world.setDelegationStatus('d1', 'completed'),
    expected: [{ rule: 'delegations', kind: 'delegation-end', status: 'event', subject: 'd1', summary: expect.stringMatching(/ ended, reward [\d.]+ AVAX gross, [\d.]+ AVAX net$/) }],
  },
  'icm-pending': {
    ruleFile: 'rules/icm-pending.yaml',
    world: { icmMessages: [{ messageId: '0xm1', from: ADDR, to: ADDR, sent: '-5m', status: 'pending' }] },
    change: (sim) => change(sim, { icmMessages: [{ messageId: '0xm2', from: ADDR, to: ADDR, sent: '-20m', status: 'pending' }] }),
    expected: [{ rule: 'icm-stuck', kind: 'icm-pending', status: 'firing', subject: '0xm2' }],
  },
  'metric-threshold': {
    ruleFile: 'rules/metric-threshold.yaml',
    world: { metrics: [{ chainId: 43114, metric: 'txCount', timeInterval: 'hour', value: 12000 }] },
    change: (sim) => sim.world.setMetric('43114', 'txCount', 'hour', 50, sim.world.clock.now() - 5 * 3600),
    expected: [{ rule: 'c-chain-tx-drop', kind: 'metric-threshold', status: 'firing', subject: '43114/txCount/hour' }],
  },
  'l1-validator-balance': {
    ruleFile: 'rules/l1-validator-balance.yaml',
    world: { l1Validators: [{ validationId: 'v1', nodeId: N, subnetId: SUBNET, balance: 2, feePerSecond: 0 }] },
    change: (sim) => sim.world.updateL1Validator('v1', { balance: 100_000_000 }),
    expected: [{ rule: 'l1-balance', kind: 'l1-validator-balance', status: 'firing', subject: 'v1', labels: expect.objectContaining({ check: 'balance' }) }],
    // Read a second apart, a 1.9 AVAX drop is a burn that empties it in seconds: runway fires too.
    mayAlso: [{ rule: 'l1-balance', status: 'firing', subject: 'v1', labels: expect.objectContaining({ check: 'runway' }) }],
  },
  export: {
    ruleFile: 'rules/export.yaml',
    world: { exports: { completeAfterPolls: 1, outcome: 'COMPLETED' } },
    change: () => undefined, // the first run started it; the next poll finds it done
    expected: [{ rule: 'daily-export', kind: 'export', status: 'event', subject: expect.stringMatching(/^op-0001-/) }],
  },
  'address-activity': {
    ruleFile: 'rules/address-activity.yaml',
    // An hour-old deposit is history: the baseline remembers its block.
    world: { evmTransactions: [{ txHash: '0x0a11', from: PAYER, to: TREASURY, value: '2500', at: '-1h' }] },
    change: (sim) => change(sim, { evmTransactions: [{ txHash: '0x0b22', from: PAYER, to: TREASURY, value: '150.25' }] }),
    expected: [
      {
        rule: 'treasury-activity',
        kind: 'address-activity',
        status: 'event',
        subject: '0x0b22',
        summary: `${TREASURY.toLowerCase()} received 150.25 AVAX from ${PAYER.toLowerCase()}`,
        labels: expect.objectContaining({ direction: 'in', list: 'native', token: 'native' }),
      },
    ],
  },
};

function change(sim: SimServer, c: Record<string, unknown>): void {
  applyChange(sim.world, worldChange.parse(c), sim.world.clock.nowMs());
}

describe('avawatch once --json for every rule kind, against the simulator', () => {
  let sim: SimServer;
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'avawatch-kind-'));
  });
  afterEach(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [kind, c] of Object.entries(cases)) {
    it(`${kind}: nothing on a healthy baseline, the expected alert after the change`, async () => {
      sim = await startSim();
      change(sim, c.world);
      const config = join(dir, 'avawatch.yaml');
      writeFileSync(config, `api: {dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0}\nstate: {path: "${join(dir, 'state.db')}"}\nruleFiles: ["${resolve(c.ruleFile)}"]\n`);
      const once = async () => (await run(process.execPath, [CLI, '-c', config, 'once', '--json'], { env: { PATH: process.env['PATH'] ?? '' } })).stdout;
      expect(await once()).toBe('');
      c.change(sim);
      if (c.waitMs) await new Promise((r) => setTimeout(r, c.waitMs));
      const lines = (await once()).trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
      const optional = lines.filter((l) => (c.mayAlso ?? []).some((m) => expect.objectContaining(m).asymmetricMatch(l)));
      expect(lines.filter((l) => !optional.includes(l))).toEqual(c.expected.map((e) => expect.objectContaining(e)));
      for (const l of lines) expect(Object.keys(l)).toEqual(expect.arrayContaining(['rule', 'kind', 'status', 'severity', 'subject', 'summary', 'labels']));
    });
  }
});
