import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ruleKinds } from '../../src/rules/registry.js';
import { activeValidator, completedValidator } from '../../src/sim/samples.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { writeProject, type TempProject } from '../helpers/harness.js';
import { postText, startSlackReceiver, type SlackReceiver } from '../helpers/slack-receiver.js';
import { waitUntil } from '../helpers/wait.js';
import { testNodeId } from '../helpers/node-ids.js';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '../../dist/cli.js');
const NODE = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const period = { nodeId: NODE, txHash: 'tx-current', startTimestamp: 1_716_000_000, endTimestamp: 1_747_536_000 };
// No AVAWATCH_*, no SLACK_*: a fresh machine.
const cleanEnv = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp' };
/** The shipped example files (rules/*.yaml) and the names of their rules: a file may hold several (rules/endpoint.yaml). */
/** What config/avawatch.yaml loads: its ruleFiles (the examples with placeholders are left out). */
const SHIPPED = (() => {
  const files = (parseYaml(readFileSync('config/avawatch.yaml', 'utf8')) as { ruleFiles: string[] }).ruleFiles.map((f) => join('config', f));
  const rules = files.flatMap((f) => (parseYaml(readFileSync(f, 'utf8')) as { rules: Array<{ name: string }> }).rules.map((r) => r.name));
  return { files: files.length, rules };
})();

async function avawatch(args: string[], cwd = process.cwd(), timeout = 50_000) {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { cwd, env: cleanEnv, timeout });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('avawatch check', () => {
  it('passes on the shipped config with no environment and no network, reporting the unset receiver as disabled', async () => {
    const r = await avawatch(['check']);
    expect(r.code).toBe(0);
    // No inventory: the profile's rules watch nothing, so only the chain metric is loaded (no stranger's node).
    expect(r.stdout).toContain(`rule files: ${SHIPPED.files}, rules: 1\n`);
    expect(SHIPPED.rules).toContain('my-validators');
    expect(r.stdout).not.toContain('my-validators');
    expect(r.stderr).toContain('16 rule(s) with \\"validators: all\\" watch nothing and are not loaded');
    expect(r.stdout).toContain('ops-slack  slack  DISABLED (webhookUrl is empty)');
    // The examples with placeholders are named, not loaded: the export one would start real jobs.
    expect(r.stdout).toMatch(/examples not loaded: \d+ \(placeholders: copy one, replace them, add it to ruleFiles\)\n/);
    expect(r.stdout).toContain('  rules/export.yaml  the exported address; loaded, it starts a real export job on your quota every day\n');
    expect(r.stdout).not.toMatch(/daily-export|icm-stuck/);
    expect(r.stderr).toContain('receiver \\"ops-slack\\" is disabled');
  });

  it('--shard lists the rules of one shard, the shards together hold every rule once, and a bad shard is refused', async () => {
    // Every example rule, so that both shards hold some.
    const dir = mkdtempSync(join(tmpdir(), 'avawatch-shard-'));
    const files = readdirSync('rules').filter((f) => f.endsWith('.yaml'));
    // Each named on its own: a glob would skip the examples marked placeholder.
    writeFileSync(join(dir, 'avawatch.yaml'), `validators: [{name: alpha, nodeId: NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg, api: "http://127.0.0.1:9650"}]\nruleFiles: [${files.map((f) => JSON.stringify(join(process.cwd(), 'rules', f))).join(', ')}]\n`);
    const all = files.flatMap((f) => (parseYaml(readFileSync(`rules/${f}`, 'utf8')) as { rules: Array<{ name: string }> }).rules.map((r) => r.name));
    const shards = await Promise.all(['1/2', '2/2'].map((s) => avawatch(['check', '-c', join(dir, 'avawatch.yaml'), '--shard', s])));
    rmSync(dir, { recursive: true, force: true });
    const names = shards.map((r) => [...r.stdout.matchAll(/^ {2}(\S+) {2}\S+ {2}(every|schedule)/gm)].map((m) => m[1]));
    expect(shards.map((r) => r.code)).toEqual([0, 0]);
    expect(names.flat().sort()).toEqual([...all].sort());
    expect(names[0]!.length).toBeGreaterThan(0);
    expect(names[1]!.length).toBeGreaterThan(0);
    expect(shards[0]!.stdout).toContain(`rules: ${all.length}, in shard 1/2: ${names[0]!.length}\n`);
    const bad = await avawatch(['run', '--shard', '3/2']);
    expect([bad.code, bad.stderr]).toEqual([1, 'avawatch: --shard: "3/2" is not I/N with 1 ≤ I ≤ N, e.g. 1/3\n']);
  });

  it('estimates compute units against the budget and refuses an over-budget rule set, naming the way out', async () => {
    // Validators are read in bulk (the active list of 100 nodes a call, 20 CU each; no pending
    // list since ACP-41): 10,000 nodes every 10 s are 100 calls a poll, 12,000 CU a minute.
    const many = Array.from({ length: 10_000 }, (_, i) => testNodeId(i));
    const project = writeProject({ dataUrl: 'http://127.0.0.1:9', nodeIds: many, every: '10s' });
    try {
      const over = await avawatch(['-c', project.configFile, 'check']);
      expect(over.code).toBe(1);
      expect(over.stdout).toContain('  data API (unauthenticated)  per minute 12,000 of 6,000 (200%)  per day 17,280,000 of 1,200,000 (1440%)  OVER BUDGET\n');
      expect(over.stderr).toContain('avawatch: the rules would spend more compute units than the budget allows (data API: 12,000 CU/min, 17,280,000 CU/day against 6,000/min, 1,200,000/day): poll less often, watch fewer entities, or set api.budget to your plan\n');
      writeFileSync(project.configFile, readFileSync(project.configFile, 'utf8').replace('api:\n', 'api:\n  budget: {perMinute: 30000, perDay: 40000000}\n'));
      const fits = await avawatch(['-c', project.configFile, 'check']);
      expect(fits.code).toBe(0);
      expect(fits.stdout).toContain('  data API  per minute 12,000 of 30,000 (40%)  per day 17,280,000 of 40,000,000 (43%)\n');
      expect(fits.stdout).toContain('  my-validators  17,280,000/day (one lookup (20 CU) per node whose period leaves the list, and per node not listed at the first poll)\n');
    } finally {
      project.cleanup();
    }
  });

  it('prints every problem of a broken rule file as file:line:col and exits non-zero', async () => {
    const project = writeProject({ dataUrl: 'http://127.0.0.1:9', nodeIds: ['NodeID-bad'] });
    writeFileSync(join(project.dir, 'rules', 'more.yaml'), 'rules:\n  - name: x\n    kind: validator-status\n    every: 5 minutes\n');
    const r = await avawatch(['-c', project.configFile, 'check'], project.dir);
    project.cleanup();
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      'rules/more.yaml:2:5: rules[0].network: required: one of mainnet, fuji, testnet',
      'rules/more.yaml:2:5: rules[0].nodeIds: required (expected array)',
      'rules/more.yaml:2:5: rules[0].severity: required: one of info, warning, critical',
      'rules/more.yaml:4:12: rules[0].every: "5 minutes" is not a duration: write e.g. 30s, 5m, 1h, 14d',
      'rules/validators.yaml:8:9: rules[0].nodeIds[0]: expected a NodeID: "NodeID-" followed by base58 characters',
      '5 problem(s) found; nothing was started',
    ]);
  });

  it('renders readable logs on a terminal (stderr is a TTY)', async () => {
    // `script` gives the command a pseudo-terminal, as an operator's shell would.
    const { stdout } = await run('script', ['-qec', `${process.execPath} ${CLI} check`, '/dev/null'], { env: cleanEnv });
    expect(stdout).toContain('config ');
    expect(stdout).toContain(': OK');
    expect(stdout).toMatch(/WARN.*receiver "ops-slack" is disabled: webhookUrl is empty/);
    expect(stdout).not.toContain('"level":40');
  });

  it('has --help on every command and --version', async () => {
    expect((await avawatch(['--version'])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    for (const cmd of ['run', 'check', 'once']) {
      const r = await avawatch([cmd, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Usage: avawatch ${cmd}`);
    }
  });
});

describe('warnings about receivers', () => {
  it('only the commands that send or check notifications warn about a receiver they cannot use', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avawatch-warn-'));
    const config = join(dir, 'avawatch.yaml');
    writeFileSync(
      config,
      [`state: { path: "${join(dir, 'state.db')}" }`, 'route: { receivers: [ops-slack] }', 'receivers:', '  - { name: ops-slack, type: slack, webhookUrl: "${SLACK_WEBHOOK_URL:-}" }'].join('\n'),
    );
    const disabled = 'receiver \\"ops-slack\\" is disabled: webhookUrl is empty';
    try {
      const quiet = [['once'], ['alerts'], ['outbox'], ['silence', 'list'], ['history']];
      for (const args of quiet) {
        const r = await avawatch(['-c', config, ...args]);
        expect(r.code, args.join(' ')).toBe(0);
        expect(r.stderr, args.join(' ')).not.toContain(disabled);
        // What is not about receivers is still said.
        expect(r.stderr, args.join(' ')).toContain('no rules loaded: nothing will be watched');
      }
      for (const args of [['check'], ['once', '--send']]) {
        const r = await avawatch(['-c', config, ...args]);
        expect(r.stderr, args.join(' ')).toContain(disabled);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('avawatch once', () => {
  let sim: SimServer;
  let slack: SlackReceiver;
  let project: TempProject;

  beforeEach(async () => {
    sim = await startSim();
    slack = await startSlackReceiver();
    sim.world.setValidators('mainnet', NODE, [activeValidator(period)]);
  });

  afterEach(async () => {
    await sim.close();
    await slack.close();
    project.cleanup();
  });

  it('--json prints nothing on the baseline and one event line after a status change', async () => {
    project = writeProject({ dataUrl: sim.url, nodeIds: [NODE] });
    const args = ['-c', project.configFile, 'once', '--json'];
    const first = await avawatch(args, project.dir);
    expect(first).toMatchObject({ code: 0, stdout: '' });

    sim.world.setValidators('mainnet', NODE, [completedValidator(period)]);
    const second = await avawatch(args, project.dir);
    expect(second.code).toBe(0);
    const lines = second.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      rule: 'my-validators',
      kind: 'validator-status',
      status: 'event',
      severity: 'info',
      subject: NODE,
      summary: `${NODE} validation active → completed`,
      labels: { node: NODE, network: 'mainnet', status: 'completed', previous_status: 'active', rule: 'my-validators' },
    });

    const third = await avawatch(args, project.dir);
    expect(third).toMatchObject({ code: 0, stdout: '' });
    expect(slack.attempts).toBe(0);
  });

  it('delivers only with --send', async () => {
    project = writeProject({ dataUrl: sim.url, nodeIds: [NODE], webhookUrl: slack.webhookUrl });
    await avawatch(['-c', project.configFile, 'once'], project.dir);
    sim.world.setValidators('mainnet', NODE, [completedValidator(period)]);
    const r = await avawatch(['-c', project.configFile, 'once', '--send'], project.dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/INFO event my-validators NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ: .* active → completed\n$/);
    expect(slack.posts.map((p) => p.body.text)).toEqual([`[EVENT INFO] my-validators: ${NODE} validation active → completed`]);
  });

  it('without --send queues the alert for the daemon instead of dropping it', async () => {
    project = writeProject({ dataUrl: sim.url, nodeIds: [NODE], webhookUrl: slack.webhookUrl });
    await avawatch(['-c', project.configFile, 'once'], project.dir);
    sim.world.setValidators('mainnet', NODE, [completedValidator(period)]);
    const quiet = await avawatch(['-c', project.configFile, 'once'], project.dir);
    expect(quiet.stderr).toContain('1 notification(s) not sent (use --send): they wait in the outbox for the daemon');
    expect(slack.attempts).toBe(0);
    // The next run that sends (here `once --send`; normally the daemon) delivers it, once.
    const sent = await avawatch(['-c', project.configFile, 'once', '--send'], project.dir);
    expect(sent.stdout).toBe('');
    expect(slack.posts).toHaveLength(1);
  });

  it('exits non-zero and changes nothing when the API fails', async () => {
    project = writeProject({ dataUrl: sim.url, nodeIds: [NODE] });
    await avawatch(['-c', project.configFile, 'once'], project.dir);
    sim.world.setValidators('mainnet', NODE, [completedValidator(period)]);
    // The bulk list of active periods fails, its retry too (retries: 1).
    const bulk = { pathMatches: '/validators$', query: 'validationStatus=active', status: 500 };
    sim.world.faults.push(bulk, { ...bulk });
    const failed = await avawatch(['-c', project.configFile, 'once', '--json'], project.dir);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toContain('rule my-validators failed: data API GET /v1/networks/mainnet/validators: HTTP 500: injected fault');
    expect(sim.world.faults).toHaveLength(0);
    // The change is still there to be seen by the next successful poll.
    const next = await avawatch(['-c', project.configFile, 'once', '--json'], project.dir);
    expect(next.stdout).toContain('active → completed');
  });
});

describe('avawatch run', () => {
  it('exits 0 within its shutdown budget on SIGTERM while the API and Slack both hang, and loses nothing: restarted, it delivers the change; SIGINT exits 0 too', async () => {
    const sim = await startSim();
    const slack = await startSlackReceiver();
    const project = writeProject({ dataUrl: sim.url, nodeIds: [NODE], webhookUrl: slack.webhookUrl, extraConfig: '' });
    sim.world.setValidators('mainnet', NODE, [activeValidator(period)]);
    const child = spawn(process.execPath, [CLI, '-c', project.configFile, 'run'], { cwd: project.dir, env: cleanEnv });
    try {
      let log = '';
      child.stderr.on('data', (c: Buffer) => (log += c.toString()));
      const url = await waitUntil(() => /"metrics":"(http:\/\/[^"]+)\/metrics"/.exec(log)?.[1], 'the daemon to start');
      // The baseline is committed (a poll is two bulk calls now: active, then pending).
      await waitUntil(async () => (await (await fetch(`${url}/metrics`)).text()).includes('avawatch_validator_status{'), 'the baseline poll');
      // Slack black-holed and the next polls hang far past the shutdown budget.
      slack.hang(true);
      sim.world.setValidators('mainnet', NODE, [completedValidator(period)]);
      sim.world.faults.push(...Array.from({ length: 20 }, () => ({ status: 200, delayMs: 60_000 })));
      const served = sim.requests.length;
      await waitUntil(() => slack.attempts >= 1 || sim.requests.length > served, 'a hung poll or post');
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0); // the 10 s force-exit would make it 1
      expect(log).not.toContain('shutdown took longer than 10s');

      // Nothing lost: started again with the API and Slack back, the change arrives once.
      sim.world.faults.length = 0;
      slack.hang(false);
      const again = spawn(process.execPath, [CLI, '-c', project.configFile, 'run'], { cwd: project.dir, env: cleanEnv });
      try {
        await slack.waitForPosts(1, 15_000);
        await new Promise((r) => setTimeout(r, 1_500));
        expect(slack.posts.filter((p) => postText(p).includes('active → completed'))).toHaveLength(1);
        const stopped = new Promise<number | null>((resolve) => again.on('exit', resolve));
        again.kill('SIGINT');
        expect(await stopped).toBe(0);
      } finally {
        again.kill('SIGKILL');
      }
    } finally {
      child.kill('SIGKILL');
      await sim.close();
      await slack.close();
      project.cleanup();
    }
  }, 45_000);

  it('serves /healthz and exits 0 on SIGTERM', async () => {
    const sim = await startSim();
    const project = writeProject({ dataUrl: sim.url, nodeIds: [NODE] });
    sim.world.setValidators('mainnet', NODE, [activeValidator(period)]);
    const child = spawn(process.execPath, [CLI, '-c', project.configFile, 'run'], { cwd: project.dir, env: cleanEnv });
    try {
      let log = '';
      child.stderr.on('data', (c: Buffer) => (log += c.toString()));
      const url = await waitUntil(() => /"metrics":"(http:\/\/[^"]+)\/metrics"/.exec(log)?.[1], 'the daemon to start');
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      await waitUntil(async () => (await (await fetch(`${url}/metrics`)).text()).includes('avawatch_validator_status{'), 'a first poll');
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(log).toContain('"msg":"shutting down"');
    } finally {
      child.kill('SIGKILL');
      await sim.close();
      project.cleanup();
    }
  });
});

describe('avawatch test', () => {
  it('passes the shipped rule tests, one for every example rule file', async () => {
    const rules = readdirSync('rules').filter((f) => f.endsWith('.yaml'));
    const tests = readdirSync('rules/tests').filter((f) => f.endsWith('.test.yaml'));
    expect(tests.map((t) => t.replace('.test.yaml', '.yaml')).sort()).toEqual(rules.sort());
    const r = await avawatch(['test', ...tests.map((t) => `rules/tests/${t}`)], process.cwd(), 50_000);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('PASS rules/tests/validators.test.yaml (10 steps)\n');
    expect(r.stdout).toMatch(new RegExp(`${tests.length} passed, 0 failed\\n$`));
    // A rule test per kind, each over simulated days: it grows with the kinds.
  }, 60_000);

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
    const r = await avawatch(['test', file], project.dir);
    project.cleanup();
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`broken.test.yaml:6:17: steps[0].expect[0].status: expected one of firing, resolved, event, got "fired"`);
  });
});

describe('avawatch demo', () => {
  // At 8× speed the scenario's 90 s pass in about 11 s: the same world, the same polls between two changes.
  it('at 8× speed, within 14 s shows an alert of every kind, one resolving, the status page, and a summary of what arrived; then ends by itself', async () => {
    const r = await avawatch(['demo', '--for', '14s', '--speed', '8'], process.cwd(), 60_000);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('  expect (at 8× speed: these times pass 8 times faster):\n');
    expect(r.stdout).toMatch(/status page\s+http:\/\/127\.0\.0\.1:\d+\/\s/);
    expect(r.stdout).toMatch(/metrics\s+http:\/\/127\.0\.0\.1:\d+\/metrics/);
    expect(r.stdout).toContain('slack ← [EVENT WARNING] demo-validators: NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu is not known to the service on mainnet');
    // A validation ending is neutral news: info in Slack, never mailed to on-call (the critical route); a bad one is.
    expect(r.stdout).toContain('slack ← [EVENT INFO] demo-validators: NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg validation active → completed');
    expect(r.stdout).not.toContain('email ← to oncall@demo.invalid: [EVENT INFO]');
    expect(r.stdout).toMatch(/email ← to oncall@demo\.invalid: \[FIRING CRITICAL\] /);
    expect(r.stdout).toContain('slack ← [RESOLVED WARNING] demo-health: NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ uptime is back at 92% (above 91%)');
    // The node's own view: its disk fills, its diskspace check fires by name, and resolves when space is freed.
    expect(r.stdout).toMatch(/slack ← \[FIRING WARNING\] demo-node: NodeID-NFBbbJ4qCmNaCzeW7sxErhvWqvEQMnYcN's health check diskspace fails: remaining available disk space percentage \(7%\)/);
    expect(r.stdout).toContain("slack ← [RESOLVED WARNING] demo-node: NodeID-NFBbbJ4qCmNaCzeW7sxErhvWqvEQMnYcN's health check diskspace passes again");
    // The hostile token symbol arrives escaped, and is printed as the text it is.
    expect(r.stdout).toMatch(/received 1000000 <!channel> from 0x1f3e5b7d9a2c4e6f8091a3b5c7d9e1f20304a5b6\n(.*\n)*?\s+\(< and > arrived escaped: Slack shows them as text; no mention, no link\)/);

    const done = /avawatch demo: done; (\d+) Slack message\(s\) and (\d+) email\(s\) received\.\n/.exec(r.stdout);
    expect(done, r.stdout).not.toBeNull();
    expect(Number(done?.[1])).toBe(r.stdout.match(/^\d\d:\d\d:\d\d slack ← /gm)?.length);
    expect(Number(done?.[2])).toBe(r.stdout.match(/^\d\d:\d\d:\d\d email ← /gm)?.length);
    // The summary: a row per kind, each with something it printed.
    const summary = r.stdout.slice(r.stdout.indexOf('What the Slack receiver printed, per rule kind:'));
    const rows = new Map([...summary.matchAll(/^ {2}([a-z0-9-]+)\s+(\d+)\s+(\d+)\s+(\d+)$/gm)].map((m) => [m[1], m.slice(2).map(Number)]));
    expect([...rows.keys()].sort()).toEqual(Object.keys(ruleKinds).sort());
    for (const [kind, counts] of rows) expect(counts.reduce((a, b) => a + b), kind).toBeGreaterThan(0);
    expect([...rows.values()].reduce((n, [, resolved]) => n + (resolved ?? 0), 0)).toBeGreaterThanOrEqual(1);
    expect(summary).toMatch(/\nEvery one of the 16 kinds fired\.\n$/);
  }, 70_000);

  it('refuses a --speed that is not a number from 1 to 10', async () => {
    const r = await avawatch(['demo', '--speed', '0']);
    expect([r.code, r.stderr]).toEqual([1, 'avawatch: --speed: "0" is not a number from 1 to 10\n']);
  });
});

describe('avawatch run: kill -9', () => {
  it('while Slack is down: after a restart with Slack up, every notification arrives, none more than twice', async () => {
    const sim = await startSim();
    const slack = await startSlackReceiver();
    const project = writeProject({ dataUrl: sim.url, nodeIds: [NODE, 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu'], webhookUrl: slack.webhookUrl });
    sim.world.setValidators('mainnet', NODE, [activeValidator(period)]);
    sim.world.setValidators('mainnet', 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu', [activeValidator({ ...period, nodeId: 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu', txHash: 'tx-2' })]);
    const daemon = () => {
      const child = spawn(process.execPath, [CLI, '-c', project.configFile, 'run'], { cwd: project.dir, env: cleanEnv });
      let log = '';
      child.stderr.on('data', (c: Buffer) => (log += c.toString()));
      return { child, log: () => log };
    };
    let first: ReturnType<typeof daemon> | undefined;
    let second: ReturnType<typeof daemon> | undefined;
    try {
      slack.failAll(503);
      first = daemon();
      await waitUntil(() => sim.requests.length >= 2, 'the baseline');
      await new Promise((r) => setTimeout(r, 1_500));
      sim.world.setValidators('mainnet', NODE, [completedValidator(period)]);
      await waitUntil(() => slack.attempts >= 1, 'a failed attempt');
      sim.world.setValidators('mainnet', 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu', [completedValidator({ ...period, nodeId: 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu', txHash: 'tx-2' })]);
      await waitUntil(() => first!.log().includes('NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu') || slack.attempts >= 2, 'the second change to be queued', 10_000);
      await new Promise((r) => setTimeout(r, 1_500));
      first.child.kill('SIGKILL');
      await new Promise((r) => first!.child.once('exit', r));

      slack.failAll(undefined);
      second = daemon();
      await slack.waitForPosts(1, 15_000);
      // Both may go out as one grouped message: look in the whole body.
      await waitUntil(() => slack.posts.map((p) => JSON.stringify(p.body)).join('\n').includes('GWPcbFJZ'), 'both changes delivered', 20_000);
      await new Promise((r) => setTimeout(r, 2_500));
      const texts = slack.posts.map((p) => JSON.stringify(p.body));
      for (const node of [NODE, 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu']) {
        const times = texts.filter((t) => t.includes(`${node} validation active → completed`)).length;
        expect(times, node).toBeGreaterThanOrEqual(1);
        expect(times, node).toBeLessThanOrEqual(2);
      }
    } finally {
      first?.child.kill('SIGKILL');
      second?.child.kill('SIGKILL');
      await sim.close();
      await slack.close();
      project.cleanup();
    }
  }, 60_000);
});
