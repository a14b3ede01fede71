import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ruleKinds } from '../../src/rules/registry.js';
import { avawatch } from '../helpers/cli.js';
import { writeProject } from '../helpers/harness.js';

// `avawatch test` (the shipped rule tests) and `avawatch demo`, each its own process.

const NODE = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';

describe('avawatch test', () => {
  // test/rule-tests.test.ts runs every shipped rule test as this command does, in its process;
  // here, that there is one for every example rule file, and what a passing run prints.
  it('has a shipped rule test for every example rule file (and more for some: <file>-<case>.test.yaml), and passes them', async () => {
    const rules = readdirSync('rules').filter((f) => f.endsWith('.yaml'));
    const tests = readdirSync('rules/tests').filter((f) => f.endsWith('.test.yaml'));
    expect(rules.filter((r) => !tests.includes(r.replace('.yaml', '.test.yaml')))).toEqual([]);
    expect(tests.filter((t) => !rules.some((r) => t === r.replace('.yaml', '.test.yaml') || t.startsWith(r.replace('.yaml', '-'))))).toEqual([]);
    // Two of them (the cheapest of a few kinds): what a passing run prints and its exit code.
    const r = await avawatch(['test', 'rules/tests/validators.test.yaml', 'rules/tests/icm-pending.test.yaml']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('PASS rules/tests/validators.test.yaml (10 steps)\n');
    expect(r.stdout).toMatch(/PASS rules\/tests\/icm-pending\.test\.yaml \(\d+ steps\)\n/);
    expect(r.stdout).toMatch(/\n2 passed, 0 failed\n$/);
  });

  it('fails a wrong expectation with a readable diff and a non-zero exit', async () => {
    const r = await avawatch(['test', 'test/fixtures/ruletests/wrong-expectation.test.yaml']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('FAIL test/fixtures/ruletests/wrong-expectation.test.yaml\n  step 2 (at 1h):\n    expected, not produced:\n    - rule: my-validators\n');
    expect(r.stdout).toContain('    -     status: removed\n    produced, not expected:\n    + rule: my-validators\n');
    expect(r.stdout).toContain('    +   summary: alpha (NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg) validation active → completed\n');
    expect(r.stdout).toMatch(/0 passed, 1 failed\n$/);
  });

  it('reports a broken test file with file:line:col', async () => {
    const project = writeProject({ dataUrl: 'http://127.0.0.1:9', nodeIds: [NODE] });
    const file = join(project.dir, 'broken.test.yaml');
    writeFileSync(file, 'ruleFiles: [rules/validators.yaml]\nsteps:\n  - at: soon\n    expect:\n      - rule: my-validators\n        status: fired\n');
    const r = await avawatch(['test', file], { cwd: project.dir });
    project.cleanup();
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`broken.test.yaml:6:17: steps[0].expect[0].status: expected one of firing, resolved, event, got "fired"`);
  });
});

describe('avawatch demo', () => {
  // At 10× speed (the top) the scenario's 90 s pass in 9 s: the same world, the same polls
  // between two changes. It runs for 20 s (200 s of the world's, as 24 s did at 8×): on a loaded
  // machine the polls lag the world's clock, and what is checked is that every kind fires, not
  // how fast a busy machine gets there.
  it('at 10× speed, within 20 s shows an alert of every kind, one resolving, the status page, and a summary of what arrived; then ends by itself', async () => {
    const r = await avawatch(['demo', '--for', '20s', '--speed', '10'], { timeoutMs: 60_000 });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('  expect (at 10× speed: these times pass 10 times faster):\n');
    expect(r.stdout).toMatch(/status page\s+http:\/\/127\.0\.0\.1:\d+\/\s/);
    expect(r.stdout).toMatch(/metrics\s+http:\/\/127\.0\.0\.1:\d+\/metrics/);
    expect(r.stdout).toContain('slack ← [EVENT WARNING] demo-validators: NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu is not known to the service on mainnet');
    // A validation ending is neutral news: info in Slack, never mailed to on-call (the critical route); a bad one is.
    // Its own post, or a line of the grouped post a critical about the same validator flushed at once.
    expect(r.stdout).toMatch(/(slack ← \[EVENT INFO\] demo-validators: |• EVENT INFO: )NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg validation active → completed/);
    expect(r.stdout).not.toContain('email ← to oncall@demo.invalid: [EVENT INFO]');
    expect(r.stdout).toMatch(/email ← to oncall@demo\.invalid: \[FIRING CRITICAL\] /);
    expect(r.stdout).toContain('slack ← [RESOLVED WARNING] demo-health: NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ uptime is back at 97% (above 96%); it can be down ');
    // D renews at its boundary, then its cycle's budget runs out: said before the boundary, and the removal at it.
    const D = 'NodeID-Ffb7sRDZiRs4ob1RmXiXqmtPrePURjugd';
    expect(r.stdout).toMatch(new RegExp(`slack ← \\[EVENT INFO\\] demo-health: ${D} renewed for a new cycle to \\S+, rewarded 42 AVAX for the last one \\(21 AVAX restaked\\); stake now 2021 AVAX`));
    expect(r.stdout).toMatch(new RegExp(`slack ← \\[FIRING CRITICAL\\] demo-health: ${D} will be removed at its cycle boundary, \\S+, and forfeit this cycle's reward \\(40 AVAX\\)`));
    expect(r.stdout).toMatch(new RegExp(`${D} was removed at its cycle boundary`));
    // The node's own view: its disk fills, its diskspace check fires by name, and resolves when space is freed.
    expect(r.stdout).toMatch(/slack ← \[FIRING WARNING\] demo-node: NodeID-NFBbbJ4qCmNaCzeW7sxErhvWqvEQMnYcN's health check diskspace fails: remaining available disk space percentage \(7%\)/);
    expect(r.stdout).toContain("slack ← [RESOLVED WARNING] demo-node: NodeID-NFBbbJ4qCmNaCzeW7sxErhvWqvEQMnYcN's health check diskspace passes again");
    // The hostile token symbol arrives escaped, and is printed as the text it is.
    expect(r.stdout).toMatch(/received 1000000 <!channel> from 0x1f3e5b7d9a2c4e6f8091a3b5c7d9e1f20304a5b6 · Token: Claim your AVAX rewards \(<!channel>\)[^\n]*\n(.*\n)*?\s+\(< and > arrived escaped: Slack shows them as text; no mention, no link\)/);

    const done = /avawatch demo: done; (\d+) Slack message\(s\) and (\d+) email\(s\) received\.\n/.exec(r.stdout);
    expect(done, r.stdout).not.toBeNull();
    expect(Number(done?.[1])).toBe(r.stdout.match(/^\d\d:\d\d:\d\d slack ← /gm)?.length);
    expect(Number(done?.[2])).toBe(r.stdout.match(/^\d\d:\d\d:\d\d email ← /gm)?.length);
    // The summary: a row per kind, each with something it printed.
    const summary = r.stdout.slice(r.stdout.indexOf('What the Slack receiver printed, per rule kind:'));
    const rows = new Map([...summary.matchAll(/^ {2}([a-z0-9-]+)\s+(\d+)\s+(\d+)\s+(\d+)$/gm)].map((m) => [m[1], m.slice(2).map(Number)]));
    // Besides the kinds, the incidents' own row: (b) a host dies, (a) the network dips, one notification each.
    expect([...rows.keys()].sort()).toEqual([...Object.keys(ruleKinds), 'incident'].sort());
    expect(r.stdout).toMatch(/slack ← \[FIRING WARNING\] avawatch: host h1 on mainnet: 5 validators — \d+ % of your stake/);
    expect(r.stdout).toMatch(/slack ← \[FIRING CRITICAL\] avawatch: network-wide on mainnet: validator-health\/uptime for 3 validators — \d+ % of your stake, \d+ % of the network's/);
    expect(r.stdout).not.toMatch(/slack ← [^\n]*FIRING[^\n]*\bE1 \(NodeID/);
    for (const [kind, counts] of rows) expect(counts.reduce((a, b) => a + b), kind).toBeGreaterThan(0);
    expect([...rows.values()].reduce((n, [, resolved]) => n + (resolved ?? 0), 0)).toBeGreaterThanOrEqual(1);
    expect(summary).toMatch(/\nEvery one of the 19 kinds fired\.\n$/);
  }, 70_000);

  it('refuses a --speed that is not a number from 1 to 10', async () => {
    const r = await avawatch(['demo', '--speed', '0']);
    expect([r.code, r.stderr]).toEqual([1, 'avawatch: --speed: "0" is not a number from 1 to 10\n']);
  });
});
