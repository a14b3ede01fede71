import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROFILE_RULE_FILES } from '../../src/commands/init.js';
import { applyChange, worldChange } from '../../src/sim/scenario.js';
import { startSim, type SimServer } from '../../src/sim/server.js';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '../../dist/cli.js');
const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const B = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const C = 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu';
const STAKER = 'avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw';
const KINDS = ['validator-status', 'validation-end', 'validator-health', 'delegation-end', 'block-production'];

// The shipped profile (rules/*.yaml): five validator-scoped kinds, none naming a NodeID, each watching the whole inventory.
const PROFILE = PROFILE_RULE_FILES.map((f) => JSON.stringify(resolve('rules', f))).join(', ');

const entry = (name: string, nodeId: string, team: string) => `  - { name: ${name}, nodeId: ${nodeId}, labels: { team: ${team}, region: eu } }\n`;

describe('an inventory of validators: once --json shows what each rule saw of each', () => {
  let sim: SimServer;
  let dir: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'avawatch-inventory-'));
    sim = await startSim();
    const world = {
      validations: [A, B, C].map((nodeId) => ({ nodeId, txHash: `tx-${nodeId.slice(-8)}`, start: '-30d', end: '+200d', uptimePerformance: 99.5, version: 'avalanche/1.14.1' })),
      delegations: [A, B, C].map((nodeId) => ({ nodeId, txHash: `dx-${nodeId.slice(-8)}`, rewardAddresses: [STAKER], amount: 25, start: '-5d', end: '+20d' })),
      proposedBlocks: [A, B, C].flatMap((nodeId) => (['p-chain', 'c-chain', 'x-chain'] as const).map((chain) => ({ nodeId, chain, perHour: 60 }))),
    };
    applyChange(sim.world, worldChange.parse(world), sim.world.clock.nowMs());
  });
  afterEach(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function once(inventory: string): Promise<Array<Record<string, unknown>>> {
    const config = join(dir, 'avawatch.yaml');
    writeFileSync(config, `api: {dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0}\nstate: {path: "${join(dir, 'state.db')}"}\nruleFiles: [${PROFILE}]\nvalidators:\n${inventory}`);
    const r = await run(process.execPath, [CLI, '-c', config, 'once', '--json'], { env: { PATH: process.env['PATH'] ?? '' } });
    return r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  }
  const byType = (lines: Array<Record<string, unknown>>, type: string) => lines.filter((l) => l['type'] === type);

  it('each validator has a result from status, end, health, delegations and block production, labelled with its name and labels; a third is one entry, baselined silently', async () => {
    const two = entry('alpha', A, 'infra') + entry('beta', B, 'ops');
    const first = await once(two);
    expect(byType(first, 'alert')).toEqual([]);
    const results = byType(first, 'result');
    expect(results.map((r) => `${r['kind'] as string} ${r['validator'] as string}`).sort()).toEqual(KINDS.flatMap((k) => [`${k} alpha`, `${k} beta`]).sort());
    for (const r of results) expect(r).toMatchObject({ ok: true, labels: { region: 'eu', team: r['validator'] === 'alpha' ? 'infra' : 'ops' } });
    expect(results.find((r) => r['rule'] === 'my-validators' && r['validator'] === 'alpha')).toMatchObject({ nodeId: A, state: { period: { status: 'active', txHash: `tx-${A.slice(-8)}` }, missing: false } });
    expect(Object.keys(results.find((r) => r['rule'] === 'block-production' && r['validator'] === 'beta')?.['state'] as object).sort()).toEqual([`${B}:c-chain`, `${B}:p-chain`, `${B}:x-chain`]);
    expect(results.find((r) => r['rule'] === 'delegations' && r['validator'] === 'alpha')).toMatchObject({ state: { [`dx-${A.slice(-8)}`]: { nodeId: A } } });

    // A third validator: one inventory entry, and every rule watches it from a silent baseline
    // (its validation and its delegation are not news).
    const three = two + entry('gamma', C, 'infra');
    const second = await once(three);
    expect(byType(second, 'alert')).toEqual([]);
    expect(byType(second, 'result').filter((r) => r['validator'] === 'gamma').map((r) => r['kind'])).toEqual(KINDS);

    applyChange(sim.world, worldChange.parse({ validator: { nodeId: C, status: 'completed' } }), sim.world.clock.nowMs());
    const alerts = byType(await once(three), 'alert');
    const status = alerts.find((a) => a['rule'] === 'my-validators');
    expect(status).toMatchObject({
      summary: `gamma (${C}) validation active → completed`,
      labels: expect.objectContaining({ validator: 'gamma', team: 'infra', region: 'eu', node: C }),
      details: expect.objectContaining({ Validator: 'gamma' }),
    });
  }, 60_000);
});
