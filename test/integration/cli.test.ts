import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { onceCommand } from '../../src/commands/once.js';
import { loadConfig } from '../../src/config/load.js';
import { activeValidator, completedValidator } from '../../src/sim/samples.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { writeProject, type TempProject } from '../helpers/harness.js';
import { startSlackReceiver, type SlackReceiver } from '../helpers/slack-receiver.js';
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
    expect(r.stderr).toContain('26 rule(s) with \\"validators: all\\" watch nothing and are not loaded');
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

describe('no config file where it is looked for', () => {
  it('check outside the avawatch directory says where it looked and how to name or write one', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'avawatch-elsewhere-')));
    try {
      const r = await avawatch(['check'], dir);
      expect([r.code, r.stdout]).toEqual([1, '']);
      expect(r.stderr).toBe(
        `avawatch: no config file at ${dir}/config/avawatch.yaml (the default, config/avawatch.yaml under the current directory ${dir})\n` +
          '  name one: avawatch -c <file> check\n' +
          '  or write one for your validators: avawatch init --node NodeID-…\n',
      );
      const named = await avawatch(['-c', 'mine.yaml', 'silence', 'list'], dir);
      expect(named.stderr).toBe(`avawatch: no config file at ${dir}/mine.yaml (given with -c)\n  name one: avawatch -c <file> silence list\n  or write one for your validators: avawatch -c mine.yaml init --node NodeID-…\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a receiver left with an example\'s placeholder', () => {
  it('check reports it disabled, naming the receiver and its line, never the value', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avawatch-placeholder-'));
    const config = join(dir, 'avawatch.yaml');
    const placeholders = ['https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX', 'https://discord.com/api/webhooks/…', 'https://example.com/avawatch-hook', '<your-bot-token>'];
    const real = 'https://hooks.slack.com/services/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';
    writeFileSync(
      config,
      [
        `state: { path: "${join(dir, 'state.db')}" }`,
        'route: { receivers: [slack-example, discord-example, hook-example, bot-example, ops] }',
        'receivers:',
        `  - { name: slack-example, type: slack, webhookUrl: "${placeholders[0]}" }`,
        `  - { name: discord-example, type: discord, webhookUrl: "${placeholders[1]}" }`,
        `  - { name: hook-example, type: webhook, url: "${placeholders[2]}" }`,
        `  - { name: bot-example, type: telegram, botToken: "${placeholders[3]}", chatId: "1" }`,
        `  - { name: ops, type: slack, webhookUrl: "${real}" }`,
      ].join('\n'),
    );
    try {
      const r = await avawatch(['-c', config, 'check']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('  slack-example  slack  DISABLED (webhookUrl looks like a placeholder (a part that is all X): set the real one)\n');
      expect(r.stdout).toContain('  discord-example  discord  DISABLED (webhookUrl looks like a placeholder (an ellipsis): set the real one)\n');
      expect(r.stdout).toContain('  hook-example  webhook  DISABLED (url looks like a placeholder (an example.com address): set the real one)\n');
      expect(r.stdout).toContain('  bot-example  telegram  DISABLED (botToken looks like a placeholder (a <placeholder>): set the real one)\n');
      expect(r.stdout).toContain('  ops  slack  enabled\n');
      expect(r.stderr).toContain(`${config}:4:5: receivers[0]: receiver \\"slack-example\\" is disabled: webhookUrl looks like a placeholder`);
      expect(r.stderr).toContain(`${config}:7:5: receivers[3]: receiver \\"bot-example\\" is disabled: botToken looks like a placeholder`);
      for (const secret of [...placeholders, real, 'XXXX', 'B00000000']) expect(r.stdout + r.stderr).not.toContain(secret);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * The baseline a test starts from: `once` in this process (the command the CLI runs, on the
 * wall clock as the CLI is), so only the runs a test asserts on start a CLI.
 */
async function baseline(project: TempProject): Promise<void> {
  expect(await onceCommand(loadConfig(project.configFile, {}), { sendTimeoutMs: 0, logLevel: 'silent' })).toBe(0);
}

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
    await baseline(project);
    sim.world.setValidators('mainnet', NODE, [completedValidator(period)]);
    const r = await avawatch(['-c', project.configFile, 'once', '--send'], project.dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/INFO event my-validators NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ: .* active → completed\n$/);
    expect(slack.posts.map((p) => p.body.text)).toEqual([`[EVENT INFO] my-validators: ${NODE} validation active → completed`]);
  });

  it('without --send queues the alert for the daemon instead of dropping it', async () => {
    project = writeProject({ dataUrl: sim.url, nodeIds: [NODE], webhookUrl: slack.webhookUrl });
    await baseline(project);
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
    await baseline(project);
    sim.world.setValidators('mainnet', NODE, [completedValidator(period)]);
    // The bulk list of active periods fails, its retry too (retries: 1).
    const bulk = { pathMatches: '/validators$', query: 'validationStatus=active', status: 500 };
    sim.world.faults.push(bulk, { ...bulk });
    const failed = await avawatch(['-c', project.configFile, 'once', '--json'], project.dir);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toContain('the data service answers 500: 1 rule failed (my-validators): data API GET /v1/networks/mainnet/validators: HTTP 500: injected fault');
    expect(sim.world.faults).toHaveLength(0);
    // The change is still there to be seen by the next successful poll.
    const next = await avawatch(['-c', project.configFile, 'once', '--json'], project.dir);
    expect(next.stdout).toContain('active → completed');
  });
});
