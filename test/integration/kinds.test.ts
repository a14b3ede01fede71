import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { COMMON_LABELS } from '../../src/alerts/labels.js';
import { onceCommand } from '../../src/commands/once.js';
import { loadConfig } from '../../src/config/load.js';
import { ruleKind } from '../../src/rules/registry.js';
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
  /** Time to let pass (on the simulator's clock, the daemon's too) before the second run (a check's `for`). */
  waitMs?: number;
  /** Alerts that may also come, depending on timing. */
  mayAlso?: Array<Record<string, unknown>>;
  /** Runs after the change that must send nothing before the one expected to alert (a run of failures). */
  quietRuns?: number;
}

const N = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const SUBNET = '2Hm6eGyCNtJ5h5rGcS1DFRxNp1Mrx8FTRQRr2s5L3aFcmJzRqg';
const ADDR = '0xAbC0000000000000000000000000000000000001';
const N2 = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const TX = '2sJ6UoPSrqkpdcNWvNFnudjRJdvxVLdXgDaGGD4mfhJm5aULHF';
const TX2 = '2Xz6kLZ5n2Y8mL5M6d6nqR2HtV2o2p5yWkfaQ7ChzZkwSwbVhN';
/** The C-chain silentFor of rules/block-production.yaml, less the time the baseline may take to run. */
const C_SILENT_S = 3 * 3600;
const BASELINE_MARGIN_S = 8;
const STAKER = 'avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw';
/** The treasury of rules/address-activity.yaml (a placeholder) and someone paying it. */
const TREASURY = '0x7E2b5a0C4d1F93e8A6b0c2D47f1E9a3B5c8D0e6F';
const PAYER = '0x4f1A2b3C4d5E6f708192a3B4c5D6e7F809a1B2c3';

// Each shipped example rule against the simulator: a healthy world, then the change it exists for.
const cases: Record<string, Case> = {
  'validation-end': {
    ruleFile: 'rules/validation-end.yaml',
    world: { validations: [{ nodeId: N, txHash: 'p1', start: '-300d', end: '+20d', status: 'active' }] },
    // The operator's node was re-registered with a 30-day period ending in two days: inside 10% of it (3d).
    change: (sim) => sim.world.setValidators('mainnet', N, [activeValidator({ nodeId: N, txHash: 'p2', startTimestamp: sim.world.clock.now() - 28 * 86_400, endTimestamp: sim.world.clock.now() + 2 * 86_400 })]),
    expected: [{ rule: 'validation-ending', kind: 'validation-end', status: 'firing', subject: N, labels: expect.objectContaining({ threshold: '3d' }) }],
  },
  'validator-health': {
    ruleFile: 'rules/validator-health.yaml',
    world: { validations: [{ nodeId: N, txHash: 'p1', start: '-30d', end: '+150d', status: 'active', uptimePerformance: 98, version: 'avalanche/1.14.1' }] },
    // Its uptime falls under the 90% a validation started after Helicon needs, and it is downgraded to an AvalancheGo older than required.
    // 0.845 × 30 d + 150 d − 0.9 × 180 d = 13.35 d it can still be down.
    change: (sim) => change(sim, { validator: { nodeId: N, uptimePerformance: 84.5, version: 'avalanche/1.13.2' } }),
    expected: [
      { rule: 'validator-health', kind: 'validator-health', status: 'firing', severity: 'critical', subject: N, summary: `alpha (${N}) uptime 84.5% is under 90%: 5.5 points UNDER the 90% this validation needs for its reward; it can be down 13d 8h more and still be paid` },
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
  'block-production': {
    ruleFile: 'rules/block-production.yaml',
    // N's last C-chain block is 8 seconds short of silentFor: silent past it by the second run.
    // Both validate (a node that does not proposes no blocks: nothing to say of it).
    world: {
      validations: [N, N2].map((nodeId) => ({ nodeId, txHash: `p-${nodeId.slice(-4)}`, start: '-30d', end: '+150d', status: 'active' })),
      proposedBlocks: [
        { nodeId: N, chain: 'c-chain', times: [`-${C_SILENT_S - BASELINE_MARGIN_S}s`] },
        ...['p-chain', 'x-chain'].map((chain) => ({ nodeId: N, chain, times: ['-1h'] })),
        ...['c-chain', 'p-chain', 'x-chain'].map((chain) => ({ nodeId: N2, chain, perHour: 60 })),
      ],
    },
    change: () => undefined,
    // Two seconds past: the rule and the world read whole seconds, so half a second could floor to exactly silentFor.
    waitMs: (BASELINE_MARGIN_S + 2) * 1000,
    expected: [{ rule: 'block-production', kind: 'block-production', status: 'firing', subject: N, labels: expect.objectContaining({ chain: 'c-chain', node: N }), summary: expect.stringMatching(/ has proposed no C-chain block for 3h\d*m? ?\(last at .*\), longer than silentFor 3h$/) }],
  },
  'block-production (a failed read)': {
    ruleFile: 'test/fixtures/kinds/block-production-isolation.yaml',
    // Nothing listed on either chain: silent since the first run. The C-chain reads then fail.
    world: { validations: [{ nodeId: N, txHash: 'p1', start: '-30d', end: '+150d', status: 'active' }] },
    change: (sim) => sim.world.faults.push(...Array.from({ length: 4 }, () => ({ status: 503, pathIncludes: `/blockchains/c-chain/nodes/${N}/blocks` }))),
    // Past silentFor (2s) even in whole seconds: the rule reads times in seconds.
    waitMs: 3_500,
    expected: [{ rule: 'silent', kind: 'block-production', status: 'firing', subject: N, labels: expect.objectContaining({ chain: 'p-chain' }), summary: expect.stringMatching(/has proposed no P-chain block since avawatch first looked, .* the service lists none of its blocks/) }],
  },
  'signature-aggregator': {
    ruleFile: 'rules/signature-aggregator.yaml',
    world: {},
    // The aggregator fails: the third failed probe in a row fires.
    change: (sim) => change(sim, { signatureAggregator: { txHash: TX, fail: 503 } }),
    quietRuns: 2,
    expected: [{ rule: 'signature-aggregator', kind: 'signature-aggregator', status: 'firing', severity: 'critical', subject: TX, summary: expect.stringMatching(/failed 3 probes in a row for .*: HTTP 503: Failed to aggregate signatures/) }],
  },
  'signature-aggregator (our key refused)': {
    ruleFile: 'test/fixtures/kinds/signature-aggregator-isolation.yaml',
    world: {},
    // A 403 is the service refusing our key, not the aggregator failing: it counts nothing.
    change: (sim) => change(sim, { signatureAggregator: [{ txHash: TX, fail: 403 }, { txHash: TX2, fail: 500 }] }),
    expected: [{ rule: 'aggregator', kind: 'signature-aggregator', status: 'firing', subject: TX2, summary: expect.stringMatching(/failed 1 probe in a row for .*: HTTP 500/) }],
  },
  'staking-activity': {
    ruleFile: 'rules/staking-activity.yaml',
    world: { stakingTransactions: [{ txHash: 's1', txType: 'AddPermissionlessValidatorTx', addresses: [STAKER], nodeId: N, amount: 2000, start: '-30d', end: '+300d' }] },
    // The watched address delegates to another node.
    change: (sim) => change(sim, { stakingTransactions: [{ txHash: 's2', addresses: [`P-${STAKER}`], nodeId: 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ', amount: 25, start: '-1s', end: '+14d' }] }),
    expected: [{ rule: 'staking-activity', kind: 'staking-activity', status: 'event', subject: 's2', summary: expect.stringMatching(new RegExp(`^New staking transaction of ${STAKER}: AddPermissionlessDelegatorTx staking 25 AVAX on NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ, `)) }],
  },
  'subnet-changes': {
    ruleFile: 'rules/subnet-changes.yaml',
    world: { subnets: [{ subnetId: SUBNET, owners: [STAKER], blockchains: [{ blockchainId: '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5', name: 'dexalot', evmChainId: 432204 }] }] },
    // Converted to an L1: one event, its validator manager in it.
    change: (sim) => change(sim, { subnet: { subnetId: SUBNET, convertToL1: { txHash: '2dConversionTx', manager: { blockchainId: '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5', contractAddress: '0xfacade0000000000000000000000000000000000' } } } }),
    expected: [{ rule: 'subnet-changes', kind: 'subnet-changes', status: 'event', subject: SUBNET, summary: `Subnet ${SUBNET} was converted to an L1 (isL1 false → true) by 2dConversionTx`, labels: expect.objectContaining({ change: 'l1-conversion' }) }],
  },
  export: {
    ruleFile: 'rules/export.yaml',
    world: { exports: { completeAfterPolls: 1, outcome: 'COMPLETED' } },
    change: () => undefined, // the first run started it; the next poll finds it done
    expected: [{ rule: 'daily-export', kind: 'export', status: 'event', subject: expect.stringMatching(/^op-0001-/) }],
  },
  endpoint: {
    ruleFile: 'rules/endpoint.yaml',
    // Every rule of the file reads its list (the deployer's is empty, the TPS healthy); a token is listed.
    world: {
      nfts: [{ collection: '0x71B5Ac9C7e9fbdC5D1A5B5E1A1E0a5C5c5A5d5E5', tokenId: 1, minted: '-2d', metadataName: 'Ape #1' }],
      assetTransactions: [{ txHash: 'small', amount: 5_000_000_000, from: 'avax1from', to: 'avax1to', at: '-1h' }],
    },
    // A new token is minted in the watched collection.
    change: (sim) => change(sim, { nfts: [{ collection: '0x71B5Ac9C7e9fbdC5D1A5B5E1A1E0a5C5c5A5d5E5', tokenId: 2, minted: '-1s', metadataName: '<!channel> Ape #2' }] }),
    expected: [
      {
        rule: 'nft-minted',
        kind: 'endpoint',
        status: 'event',
        severity: 'info',
        subject: '2',
        summary: 'New NFT #2 minted in collection 0x71B5Ac9C7e9fbdC5D1A5B5E1A1E0a5C5c5A5d5E5: <!channel> Ape #2',
        labels: expect.objectContaining({ key: '2', mode: 'new' }),
      },
    ],
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

interface Once {
  code: number;
  stdout: string;
  stderr: string;
}

/** The config of a case: `ruleFile` against the simulator, the case's nodes as the inventory. */
function configOf(sim: SimServer, dir: string, ruleFile: string, inventory: string[]): string {
  const config = join(dir, 'avawatch.yaml');
  // The shipped profile watches the inventory (validators: all): the case's nodes, named.
  const validators = inventory.map((nodeId, i) => `{name: ${['alpha', 'beta'][i] ?? `v${i}`}, nodeId: ${nodeId}}`);
  writeFileSync(config, `api: {dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0}\nstate: {path: "${join(dir, 'state.db')}"}\nruleFiles: ["${resolve(ruleFile)}"]\nvalidators: [${validators.join(', ')}]\n`);
  return config;
}

/**
 * `avawatch once --json` (plus `--rule`) of a case's config: the command the CLI runs, in this
 * process and on the simulator's clock, so a case moves that clock instead of waiting (the
 * CLI itself is run by the last test below and by cli.test.ts). What it printed; never throws.
 */
function onceOf(sim: SimServer, dir: string, ruleFile: string, inventory: string[], rule?: string): () => Promise<Once> {
  const config = configOf(sim, dir, ruleFile, inventory);
  return async () => {
    const out: string[] = [];
    const err: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(`${a.join(' ')}\n`));
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(`${a.join(' ')}\n`));
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => err.push(String(chunk)) > 0);
    try {
      const code = await onceCommand(loadConfig(config, {}), { json: true, rule, sendTimeoutMs: 0, clock: sim.world.clock.asClock() });
      return { code, stdout: out.join(''), stderr: err.join('') };
    } finally {
      vi.restoreAllMocks();
    }
  };
}

/** The real `avawatch once --json`, a process of its own (on the wall clock). */
function cliOnceOf(sim: SimServer, dir: string, ruleFile: string, inventory: string[]): () => Promise<Once> {
  const config = configOf(sim, dir, ruleFile, inventory);
  return () =>
    run(process.execPath, [CLI, '-c', config, 'once', '--json'], { env: { PATH: process.env['PATH'] ?? '' } }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );
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
      const run1 = onceOf(sim, dir, c.ruleFile, [N, N2].filter((n) => JSON.stringify(c.world).includes(n)));
      // The alerts; the per-validator result lines are inventory.test.ts's.
      const once = async () => {
        const r = await run1();
        expect(r.code, r.stderr).toBe(0);
        return r.stdout.split('\n').filter((l) => l !== '' && !l.startsWith('{"type":"result"')).join('\n');
      };
      expect(await once()).toBe('');
      c.change(sim);
      if (c.waitMs) sim.world.clock.advance(c.waitMs);
      for (let i = 0; i < (c.quietRuns ?? 0); i++) expect(await once()).toBe('');
      const lines = (await once()).trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
      const optional = lines.filter((l) => (c.mayAlso ?? []).some((m) => expect.objectContaining(m).asymmetricMatch(l)));
      expect(lines.filter((l) => !optional.includes(l))).toEqual(c.expected.map((e) => expect.objectContaining(e)));
      for (const l of lines) expect(Object.keys(l)).toEqual(expect.arrayContaining(['rule', 'kind', 'status', 'severity', 'subject', 'summary', 'labels']));
      // `silence add` refuses label names no kind declares: every label an alert carries is declared.
      for (const l of lines) expect(undeclared(l, c.ruleFile), `labels of ${String(l['summary'])}`).toEqual([]);
    });
  }
});

// A failed read sends nothing and keeps what held: the change it hid is reported by the next read, once.
const FAILING_PATH: Record<string, string> = { 'staking-activity': 'transactions:listStaking', 'subnet-changes': '/subnets' };

describe('avawatch once --json: a failed read sends nothing, the next one reports what it hid', () => {
  let sim: SimServer;
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'avawatch-kind-'));
  });
  afterEach(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [kind, path] of Object.entries(FAILING_PATH)) {
    it(kind, async () => {
      const c = cases[kind] as Case;
      sim = await startSim();
      change(sim, c.world);
      const once = onceOf(sim, dir, c.ruleFile, []);
      expect((await once()).stdout).toBe('');
      c.change(sim);
      sim.world.faults.push({ status: 503, pathIncludes: path });
      const failed = await once();
      expect([failed.stdout, failed.code]).toEqual(['', 1]);
      // The service's 503 is a cause outside the rule: one line for it, naming the rule.
      expect(failed.stderr).toContain(`the data service answers 503: 1 rule failed (${c.expected[0]?.['rule'] as string})`);
      const lines = (await once()).stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines).toEqual(c.expected.map((e) => expect.objectContaining(e)));
    });
  }

  it('endpoint: a failed read (a list that is not a list) sends nothing, fails the rule, and keeps its state', async () => {
    sim = await startSim();
    const COLLECTION = '0x71B5Ac9C7e9fbdC5D1A5B5E1A1E0a5C5c5A5d5E5';
    change(sim, { nfts: [{ collection: COLLECTION, tokenId: 1, minted: '-2d' }] });
    const once = onceOf(sim, dir, 'rules/endpoint.yaml', [], 'nft-minted');
    expect((await once()).stdout).toBe('');
    change(sim, { nfts: [{ collection: COLLECTION, tokenId: 2, minted: '-1s' }] });
    sim.world.faults.push({ status: 200, body: JSON.stringify({ tokens: 'none' }), pathIncludes: '/nfts/collections/' });
    const failed = await once();
    expect([failed.code, failed.stdout]).toEqual([1, '']);
    expect(failed.stderr).toMatch(/rule nft-minted failed: .*items "tokens" gave string "none", not a list/);
    // The next good read tells the mint once: the failed read neither lost the baseline nor took the token as seen.
    const lines = (await once()).stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([expect.objectContaining({ rule: 'nft-minted', status: 'event', subject: '2' })]);
  });
});

describe('avawatch once --json, the CLI itself', () => {
  let sim: SimServer | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'avawatch-kind-cli-'));
  afterEach(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a process of its own prints nothing on a healthy baseline, then the alerts of the change, one JSON object a line', async () => {
    const c = cases['validator-health'] as Case;
    sim = await startSim();
    change(sim, c.world);
    const once = cliOnceOf(sim, dir, c.ruleFile, [N]);
    const baseline = await once();
    expect([baseline.code, baseline.stdout.split('\n').filter((l) => l !== '' && !l.startsWith('{"type":"result"'))], baseline.stderr).toEqual([0, []]);
    c.change(sim);
    const after = await once();
    expect(after.code, after.stderr).toBe(0);
    const lines = after.stdout.split('\n').filter((l) => l !== '' && !l.startsWith('{"type":"result"')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual(c.expected.map((e) => expect.objectContaining({ type: 'alert', ...e })));
    // Its result line carries the downtime budget, as the formula gives it at the moment it was read:
    // uptime × elapsed + remaining − requirement × length.
    const result = JSON.parse(after.stdout.split('\n').find((l) => l.startsWith('{"type":"result"')) ?? '{}') as { state?: { at: number; period: { startTimestamp: number; endTimestamp: number }; views: { service: { uptime: number; budget: number } }; judged: { requirement: number } } };
    const st = result.state;
    expect(st?.views.service.uptime).toBe(84.5);
    expect(st?.judged.requirement).toBe(90);
    const { startTimestamp: start, endTimestamp: end } = st?.period ?? { startTimestamp: 0, endTimestamp: 0 };
    const at = st?.at ?? 0;
    expect(st?.views.service.budget).toBe(Math.round(0.845 * (at - start) + (end - at) - 0.9 * (end - start)));
  });
});

/** Label names of an alert that neither its kind (labelNames), the common ones, nor its rule's own `labels` declare. */
function undeclared(alert: Record<string, unknown>, ruleFile: string): string[] {
  const rules = (parseYaml(readFileSync(ruleFile, 'utf8')) as { rules: Array<{ name: string; labels?: Record<string, string> }> }).rules;
  const own = rules.find((r) => r.name === alert['rule'])?.labels ?? {};
  const known = new Set<string>([...COMMON_LABELS, ...ruleKind(String(alert['kind'])).labelNames, ...Object.keys(own)]);
  return Object.keys(alert['labels'] as Record<string, string>).filter((n) => !known.has(n));
}
