import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { applyChange, worldChange } from '../../src/sim/scenario.js';
import { startSim, type SimServer } from '../../src/sim/server.js';

// docs/node.md: node-health reads the service's view of its nodes from the validator rules'
// own bulk list, the same call made once. With the shipped profile and an inventory where only
// some validators declare `api:`, node-health's list must be that very request.

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '../../dist/cli.js');
const RULES = resolve(import.meta.dirname, '../../rules');
const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const B = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';

describe('node-health shares the validator rules’ bulk list when only some validators declare api:', () => {
  let sim: SimServer | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('one poll asks the validator list once, and check counts the call as shared', async () => {
    const s = (sim = await startSim());
    const d = (dir = mkdtempSync(join(tmpdir(), 'avawatch-shared-')));
    applyChange(s.world, worldChange.parse({ validations: [A, B].map((nodeId) => ({ nodeId, txHash: `tx-${nodeId.slice(-8)}`, start: '-30d', end: '+200d', uptimePerformance: 99.5 })), nodes: [{ nodeId: A }] }), s.world.clock.nowMs());
    const config = join(d, 'avawatch.yaml');
    writeFileSync(
      config,
      `api: {dataUrl: "${s.url}", metricsUrl: "${s.url}", retries: 0}\nnodeApi: {timeout: 2s}\nstate: {path: "${join(d, 'state.db')}"}\n` +
        `ruleFiles: ["${RULES}/validators.yaml", "${RULES}/node-health.yaml"]\n` +
        `validators:\n  - { name: alpha, nodeId: ${A}, api: "${s.url}/node/${A}" }\n  - { name: beta, nodeId: ${B} }\n`,
    );
    const cli = (...args: string[]) => run(process.execPath, [CLI, '-c', config, ...args], { env: { PATH: process.env['PATH'] ?? '' } });
    const checked = (await cli('check')).stdout;
    expect(checked).toContain('compute units, estimated in steady state; 1 call(s) asked by several rules are made once:');
    expect(checked).toMatch(/^ {2}data API .*per day 28,800 of /m);
    expect(checked).toContain('  node-health  28,800/day, shared with my-validators (');
    expect(checked).toContain('  my-validators  28,800/day, shared with node-health (');

    await cli('once', '--json');
    const { requests } = (await (await fetch(`${s.url}/_sim/requests`)).json()) as { requests: string[] };
    const lists = requests.filter((r) => r.startsWith('GET /v1/networks/mainnet/validators?'));
    expect(lists).toHaveLength(1);
    expect(decodeURIComponent(lists[0] as string)).toContain(`nodeIds=${A},${B}`);
  });
});
