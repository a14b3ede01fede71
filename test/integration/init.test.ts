import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { avawatch } from '../helpers/cli.js';

// `avawatch init` as a new operator runs it: the built CLI in an empty directory.

const dir = mkdtempSync(join(tmpdir(), 'avawatch-init-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const B = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const HOOK = 'https://hooks.slack.com/services/T0/B0/initsecretpart';

describe('avawatch init', () => {
  it('writes a config that watches the given validators with the shipped profile, and never overwrites it', async () => {
    writeFileSync(join(dir, 'slack.url'), `${HOOK}\n`);
    const made = await avawatch(['-c', 'conf/avawatch.yaml', 'init', '--node', A, '--name', 'alpha', '--node', B, '--slack-webhook-url-file', 'slack.url'], { cwd: dir });
    expect(made.stderr).toBe('');
    expect(made.stdout).toContain('wrote conf/avawatch.yaml: 2 validator(s), 6 rules');
    const text = readFileSync(join(dir, 'conf/avawatch.yaml'), 'utf8');
    expect(text).not.toContain(HOOK);

    const check = await avawatch(['-c', 'conf/avawatch.yaml', 'check'], { cwd: dir });
    expect(check.code).toBe(0);
    for (const rule of ['my-validators', 'validation-ending', 'validator-health', 'delegations', 'block-production']) expect(check.stdout).toContain(`  ${rule}  `);
    expect(check.stdout).toContain('slack  slack  enabled');

    const again = await avawatch(['-c', 'conf/avawatch.yaml', 'init', '--node', A], { cwd: dir });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('conf/avawatch.yaml exists: init never overwrites a config');
    expect(readFileSync(join(dir, 'conf/avawatch.yaml'), 'utf8')).toBe(text);
  });

  it('refuses a NodeID with a typo, naming the argument, and leaves no file behind', async () => {
    const typo = `${A.slice(0, -1)}h`;
    const r = await avawatch(['-c', 'typo.yaml', 'init', '--node', typo, '--network', 'fuji'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`--node ${typo}: ${typo}: checksum does not match (a typo?)`);
    expect(existsSync(join(dir, 'typo.yaml'))).toBe(false);
  });

  it("--api declares the node's own API and adds node-health, which check counts as free calls", async () => {
    const made = await avawatch(['-c', 'node.yaml', 'init', '--node', A, '--name', 'alpha', '--api', 'http://127.0.0.1:9650'], { cwd: dir });
    expect(made.stderr).toBe('');
    expect(made.stdout).toContain('wrote node.yaml: 1 validator(s), 26 rules');
    expect(readFileSync(join(dir, 'node.yaml'), 'utf8')).toContain('    api: http://127.0.0.1:9650   # node-health, node-metrics and node-upgrade read it (docs/node.md)');
    const check = await avawatch(['-c', 'node.yaml', 'check'], { cwd: dir });
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/ {2}node-health {2}node-health {2}every 1m {2}warning {2}mainnet, 1 node's own API: health checks/);
    // node-health: 5 + 3 chains calls a minute (its peers from the health answer, never info.peers); the node-metrics rules and node-upgrade (3 calls each 5m) the rest.
    expect(check.stdout).toContain('node APIs  45,504 calls a day to your own nodes, no compute units');
    // The same node rules as the shipped config: Ava Labs' recommended node alerts too.
    const shipped = (parseYaml(readFileSync('config/avawatch.yaml', 'utf8')) as { ruleFiles: string[] }).ruleFiles.map((f) => basename(f));
    const written = (parseYaml(readFileSync(join(dir, 'node.yaml'), 'utf8')) as { ruleFiles: string[] }).ruleFiles.map((f) => basename(f));
    // metric-threshold watches a chain's activity, not your validators: an example to adapt.
    expect(written).toEqual(shipped.filter((f) => f !== 'metric-threshold.yaml'));
    expect(check.stdout).toMatch(/ {2}node-disk-low {2}node-metrics {2}/);
    const wrong = await avawatch(['-c', 'wrong.yaml', 'init', '--node', A, '--api', '127.0.0.1:9650'], { cwd: dir });
    expect([wrong.code, wrong.stderr.trim()]).toEqual([1, "avawatch: --api 127.0.0.1:9650: expected the node's API URL, such as http://127.0.0.1:9650"]);
  });
});
