import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyChange, worldChange } from '../../src/sim/scenario.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { avawatch } from '../helpers/cli.js';

// A mixed fleet, as issue 38's operator had it: validators on Mainnet and on Fuji, one with its own node API.

const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const B = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const C = 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu';
const PROFILE_RULES = ['my-validators', 'validation-ending', 'validator-health', 'delegations', 'block-production'];
type Line = Record<string, unknown>;

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'avawatch-fleet-'));
  dirs.push(d);
  return d;
}

describe('the shipped config, untouched but for its validators: list, over a Mainnet and Fuji inventory', () => {
  it('passes check, each profile rule watching each network (the mainnet part keeps the name, the fuji part is <name>@fuji)', async () => {
    const dir = tmp();
    mkdirSync(join(dir, 'config'));
    symlinkSync(resolve('rules'), join(dir, 'rules'));
    const inventory = `validators:\n  - { name: alpha, nodeId: ${A} }\n  - { name: beta, nodeId: ${B}, api: "http://127.0.0.1:9650" }\n  - { name: charlie, nodeId: ${C}, network: fuji, api: "http://127.0.0.1:9651" }`;
    const shipped = readFileSync('config/avawatch.yaml', 'utf8');
    expect(shipped).toMatch(/^validators: \[\]$/m);
    writeFileSync(join(dir, 'config/avawatch.yaml'), shipped.replace(/^validators: \[\]$/m, inventory));
    const check = await avawatch(['-c', 'config/avawatch.yaml', 'check'], { cwd: dir });
    expect(check.stderr).not.toContain('a rule watches one network');
    expect(check.code).toBe(0);
    for (const rule of [...PROFILE_RULES, 'node-health']) {
      expect(check.stdout).toMatch(new RegExp(`^ {2}${rule} {2}\\S+ {2}every \\S+ {2}\\S+ {2}mainnet, `, 'm'));
      expect(check.stdout).toMatch(new RegExp(`^ {2}${rule}@fuji {2}\\S+ {2}every \\S+ {2}\\S+ {2}fuji, `, 'm'));
    }
    // node-metrics' line names no network: one part per network all the same.
    expect(check.stdout).toMatch(/^ {2}node-disk-low {2}node-metrics .* on 1 node /m);
    expect(check.stdout).toMatch(/^ {2}node-disk-low@fuji {2}node-metrics .* on 1 node /m);
    // Compute units per network: the Fuji part asks its own list, not the mainnet one.
    expect(check.stdout).toMatch(/^ {2}my-validators@fuji {2}28,800\/day/m);
  }, 60_000);
});

describe('init for a mixed fleet, then once --json against the stand-in service and node', () => {
  let sim: SimServer;
  beforeEach(async () => {
    sim = await startSim();
    const validations = [
      { nodeId: A, network: 'mainnet', txHash: 'tx-a', start: '-30d', end: '+200d', uptimePerformance: 99.5 },
      { nodeId: C, network: 'fuji', txHash: 'tx-c', start: '-30d', end: '+200d', uptimePerformance: 99.5 },
    ];
    applyChange(sim.world, worldChange.parse({ validations, nodes: [{ nodeId: C, network: 'fuji' }] }), sim.world.clock.nowMs());
  });
  afterEach(async () => {
    await sim.close();
  });

  it('writes a config with each validator on its own network and a state file of its own; check passes; once --json shows both networks', async () => {
    const dir = tmp();
    const api = `${sim.url}/node/${C}`;
    const made = await avawatch(['-c', 'config/mine.yaml', 'init', '--node', A, '--network', 'mainnet', '--name', 'alpha', '--node', C, '--network', 'fuji', '--api', api, '--name', 'charlie'], { cwd: dir });
    expect(made.stderr).toBe('');
    expect(made.stdout).toContain('wrote config/mine.yaml: 2 validator(s) (1 mainnet, 1 fuji), 32 rules, state in data/mine.db');
    const file = join(dir, 'config/mine.yaml');
    const check = await avawatch(['-c', 'config/mine.yaml', 'check'], { cwd: dir });
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/^ {2}my-validators@fuji {2}validator-status {2}every 1m {2}critical {2}fuji, 1 node/m);
    expect(check.stdout).toMatch(/^ {2}node-health@fuji {2}node-health {2}every 1m {2}warning {2}fuji, 1 node's own API/m);

    // The stand-in service in place of the public one.
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^api:\n/m, `api:\n  dataUrl: "${sim.url}"\n  metricsUrl: "${sim.url}"\n  retries: 0\n`));
    const once = async () => {
      const r = await avawatch(['-c', 'config/mine.yaml', 'once', '--json'], { cwd: dir });
      return r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line);
    };
    const first = await once();
    expect(existsSync(join(dir, 'data/mine.db'))).toBe(true);
    expect(existsSync(join(dir, 'data/avawatch.db'))).toBe(false);
    const results = first.filter((l) => l['type'] === 'result');
    const seen = (validator: string) => results.filter((r) => r['validator'] === validator && r['ok'] === true).map((r) => r['rule']).sort();
    expect(seen('alpha')).toEqual([...PROFILE_RULES].sort());
    expect(seen('charlie')).toEqual(expect.arrayContaining([...PROFILE_RULES.map((r) => `${r}@fuji`), 'node-health@fuji']));
    expect(results.find((r) => r['rule'] === 'my-validators@fuji')).toMatchObject({ nodeId: C, state: { period: { status: 'active', txHash: 'tx-c' } } });
    expect(results.find((r) => r['rule'] === 'my-validators')).toMatchObject({ nodeId: A, state: { period: { status: 'active', txHash: 'tx-a' } } });

    // News from Fuji carries its network: a route or a silence can tell it from Mainnet's.
    applyChange(sim.world, worldChange.parse({ validator: { nodeId: C, status: 'completed' } }), sim.world.clock.nowMs());
    const alerts = (await once()).filter((l) => l['type'] === 'alert');
    expect(alerts.find((a) => a['rule'] === 'my-validators@fuji')).toMatchObject({
      summary: `charlie (${C}) validation active → completed`,
      labels: expect.objectContaining({ rule: 'my-validators@fuji', validator: 'charlie', network: 'fuji' }),
    });
    expect(alerts.filter((a) => a['rule'] === 'my-validators')).toEqual([]);
  }, 90_000);

  it('refuses arguments it cannot place, naming them, and writes nothing', async () => {
    const dir = tmp();
    const before = await avawatch(['-c', 'x.yaml', 'init', '--api', 'http://127.0.0.1:9650', '--node', A], { cwd: dir });
    expect([before.code, before.stderr.trim()]).toEqual([1, 'avawatch: --api http://127.0.0.1:9650: given before any --node; put it after the --node it belongs to (--node NodeID-… --api http://127.0.0.1:9650)']);
    const network = await avawatch(['-c', 'x.yaml', 'init', '--node', `${A}@devnet`], { cwd: dir });
    expect([network.code, network.stderr.trim()]).toEqual([1, `avawatch: --node ${A}@devnet: unknown network "devnet": expected mainnet or fuji`]);
    expect(existsSync(join(dir, 'x.yaml'))).toBe(false);
  });
});
