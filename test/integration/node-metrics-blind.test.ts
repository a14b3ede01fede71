import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyChange, worldChange } from '../../src/sim/scenario.js';
import { startSim, type SimServer } from '../../src/sim/server.js';

// A node-metrics rule that watches nothing, and one whose label churns, as an operator meets
// them: the built CLI's `check` and `once --json` (its state in a real SQLite file, one read a
// run) against a simulated node's /ext/metrics on loopback.

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '../../dist/cli.js');
const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';

type Line = Record<string, unknown>;

describe('node-metrics: a rule matching nothing, and series churn', () => {
  let sim: SimServer;
  let dir: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'avawatch-node-metrics-'));
    sim = await startSim();
    applyChange(sim.world, worldChange.parse({ validations: [{ nodeId: A, txHash: 'tx-a', start: '-30d', end: '+200d' }], nodes: [{ nodeId: A }] }), sim.world.clock.nowMs());
    // The name as AvalancheGo spelled it before an upgrade renamed it, a chain the node does not
    // run, and a label that takes a new value at every read.
    writeFileSync(
      join(dir, 'rules.yaml'),
      [
        'rules:',
        '  - { name: renamed, kind: node-metrics, every: 1m, severity: warning, validators: all, metric: avalanche_snowman_blocks_processing, above: 15 }',
        '  - { name: no-chain, kind: node-metrics, every: 1m, severity: warning, validators: all, metric: avalanche_snowman_blks_processing, match: { chain: Q }, above: 15 }',
        '  - { name: churn, kind: node-metrics, every: 1m, severity: warning, validators: all, metric: avalanche_handler_messages, above: 0 }',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'avawatch.yaml'),
      `api: {dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0}\nnodeApi: {timeout: 2s}\nstate: {path: "${join(dir, 'state.db')}"}\nruleFiles: [rules.yaml]\n` +
        `validators:\n  - { name: alpha, nodeId: ${A}, api: "${sim.url}/node/${A}" }\n`,
    );
  });
  afterEach(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const avawatch = (args: string[]) => run(process.execPath, [CLI, '-c', join(dir, 'avawatch.yaml'), ...args], { env: { PATH: process.env['PATH'] ?? '' } });
  async function once(): Promise<Line[]> {
    const r = await avawatch(['once', '--json']);
    return r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line);
  }

  it('check warns about a name no AvalancheGo exports, naming the one meant', async () => {
    const r = await avawatch(['check']);
    expect(r.stdout).toContain('warning: rule renamed: avalanche_snowman_blocks_processing: no AvalancheGo 1.14 or 1.15 exports it (did you mean avalanche_snowman_blks_processing?)');
    expect(r.stdout).not.toContain('warning: rule no-chain');
  });

  it('a rule matching no series says so at its third read, in once --json; a churning label fires at most maxSeries alerts and says the rest', async () => {
    const seen: Line[][] = [];
    for (let read = 0; read < 3; read++) {
      // 150 series, all new at each read.
      const metrics = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`avalanche_handler_messages{op="r${read}-${i}"}`, 1]));
      applyChange(sim.world, worldChange.parse({ nodes: [{ nodeId: A, metrics }] }), sim.world.clock.nowMs());
      seen.push(await once());
    }
    const alerts = (lines: Line[], rule: string) => lines.filter((l) => l['type'] === 'alert' && l['rule'] === rule).map((l) => l['summary']);
    expect(alerts(seen[1] ?? [], 'renamed')).toEqual([]);
    expect(alerts(seen[2] ?? [], 'renamed')).toEqual([`alpha (${A}): avalanche_snowman_blocks_processing matches no series (3 reads in a row): the rule judges nothing there`]);
    expect(alerts(seen[2] ?? [], 'no-chain')).toEqual([`alpha (${A}): avalanche_snowman_blks_processing{chain="Q"} matches no series (3 reads in a row): the rule judges nothing there`]);
    const result = (seen[0] ?? []).find((l) => l['type'] === 'result' && l['rule'] === 'renamed');
    expect(result?.['state']).toMatchObject({ [`${A}:count(avalanche_snowman_blocks_processing)`]: { count: { matched: 0, cut: 0, none: 1 } } });
    // The first read fires 100 of the 150; the next two, none (the first 100 are kept until gone).
    const churn = seen.map((lines) => alerts(lines, 'churn'));
    expect(churn.map((a) => a.length)).toEqual([101, 0, 0]);
    expect(churn[0]).toContain(`alpha (${A}): 150 series match avalanche_handler_messages, more than maxSeries (100): 50 not judged`);
  });
});
