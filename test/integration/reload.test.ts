import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { activeValidator, completedValidator } from '../../src/sim/samples.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { writeProject, type TempProject } from '../helpers/harness.js';
import { postText, startSlackReceiver, type SlackReceiver } from '../helpers/slack-receiver.js';
import { waitUntil } from '../helpers/wait.js';

const CLI = join(import.meta.dirname, '../../dist/cli.js');
const NODE = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const OTHER = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const period = (nodeId: string) => ({ nodeId, txHash: `tx-${nodeId.slice(-6)}`, startTimestamp: 1_716_000_000, endTimestamp: 1_747_536_000 });
const cleanEnv = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp' };

describe('reload while running', () => {
  let sim: SimServer;
  let slack: SlackReceiver;
  let project: TempProject;
  let child: ChildProcess | undefined;
  let log = '';

  beforeEach(async () => {
    sim = await startSim();
    slack = await startSlackReceiver();
    project = writeProject({ dataUrl: sim.url, webhookUrl: slack.webhookUrl, nodeIds: [NODE], every: '1s' });
    sim.world.setValidators('mainnet', NODE, [activeValidator(period(NODE))]);
    sim.world.setValidators('mainnet', OTHER, [activeValidator(period(OTHER))]);
    log = '';
  });

  afterEach(async () => {
    child?.kill('SIGKILL');
    await sim.close();
    await slack.close();
    project.cleanup();
  });

  async function run(...args: string[]): Promise<string> {
    const c = spawn(process.execPath, [CLI, '-c', project.configFile, 'run', ...args], { cwd: project.dir, env: cleanEnv });
    child = c;
    c.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    return waitUntil(() => /"metrics":"(http:\/\/[^"]+)\/metrics"/.exec(log)?.[1], 'the daemon to start');
  }

  const rulesFile = () => join(project.dir, 'rules', 'validators.yaml');
  const metrics = async (url: string) => (await fetch(`${url}/metrics`)).text();
  /** How many evaluations of the rule have started, from /metrics. */
  const evaluations = async (url: string) => Number(/^avawatch_rule_evaluations_total\{rule="my-validators"\} (\d+)$/m.exec(await metrics(url))?.[1] ?? 0);
  const rulesInState = () => {
    const db = new Database(project.statePath, { readonly: true });
    try {
      return (db.prepare('SELECT DISTINCT rule FROM entity_state ORDER BY rule').all() as Array<{ rule: string }>).map((r) => r.rule);
    } finally {
      db.close();
    }
  };

  it('refuses a broken edit of a rule file (logged, gauge 0, old rule keeps running), then applies a good one without a restart', async () => {
    const url = await run();
    await waitUntil(async () => (await metrics(url)).includes('avawatch_validator_status{rule="my-validators"'), 'the baseline poll');
    expect(await metrics(url)).toContain('avawatch_config_last_reload_successful 1');
    const good = readFileSync(rulesFile(), 'utf8');

    writeFileSync(rulesFile(), good.replace('severity: critical', 'severity: urgent'));
    await waitUntil(() => log.includes('config reload refused'), 'the refused reload', 5_000);
    expect(log).toContain('rules/validators.yaml:5:15: rules[0].severity: expected one of info, warning, critical');
    expect(log).toContain('the previous config keeps running');
    await waitUntil(async () => (await metrics(url)).includes('avawatch_config_last_reload_successful 0'), 'the reload gauge at 0');
    // The old rule still runs and still alerts.
    sim.world.setValidators('mainnet', NODE, [completedValidator(period(NODE))]);
    const [first] = await slack.waitForPosts(1);
    expect(postText(first!)).toContain('my-validators');

    // A good edit: the rule renamed and watching another node. The old rule's state is pruned.
    writeFileSync(rulesFile(), good.replace('name: my-validators', 'name: other-validators').replace(NODE, OTHER));
    await waitUntil(() => log.includes('"msg":"config reloaded"'), 'the reload', 5_000);
    expect(log).toContain('"added":["other-validators"],"removed":["my-validators"],"changed":[]');
    await waitUntil(async () => (await metrics(url)).includes('avawatch_config_last_reload_successful 1'), 'the reload gauge at 1');
    await waitUntil(async () => (await metrics(url)).includes('avawatch_validator_status{rule="other-validators"'), 'the new rule polling');
    const after = await metrics(url);
    expect(after).not.toContain('rule="my-validators"');
    await waitUntil(() => rulesInState().join() === 'other-validators', 'the old rule pruned from the state file');

    sim.world.setValidators('mainnet', OTHER, [completedValidator(period(OTHER))]);
    const [, second] = await slack.waitForPosts(2);
    expect(postText(second!)).toContain('other-validators');
    expect(postText(second!)).toContain(OTHER);
    expect(slack.posts).toHaveLength(2);
    expect(log).not.toContain('shutting down');
  }, 40_000);

  it('a validator added to the inventory file is watched from a silent baseline by the rule that selects all, then alerted on by name', async () => {
    const inventory = join(project.dir, 'inventory.yaml');
    writeFileSync(inventory, `validators:\n  - { name: alpha, nodeId: ${NODE} }\n`);
    writeFileSync(project.configFile, `${readFileSync(project.configFile, 'utf8')}\nvalidatorsFile: inventory.yaml\n`);
    writeFileSync(rulesFile(), 'rules:\n  - { name: my-validators, kind: validator-status, every: 1s, severity: critical, validators: all }\n');
    const url = await run();
    await waitUntil(async () => (await metrics(url)).includes(`node_id="${NODE}"`), 'the baseline poll');

    writeFileSync(inventory, `validators:\n  - { name: alpha, nodeId: ${NODE} }\n  - { name: beta, nodeId: ${OTHER} }\n`);
    await waitUntil(() => log.includes('"msg":"config reloaded"'), 'the reload', 5_000);
    expect(log).toContain('"changed":["my-validators"]');
    await waitUntil(async () => (await metrics(url)).includes(`node_id="${OTHER}"`), 'the added validator polled');
    // Its active validation is its baseline, not news: the committed evaluation made no alert.
    const db = new Database(project.statePath, { readonly: true });
    expect(db.prepare('SELECT COUNT(*) AS n FROM alerts').get()).toEqual({ n: 0 });
    db.close();

    sim.world.setValidators('mainnet', OTHER, [completedValidator(period(OTHER))]);
    const [post] = await slack.waitForPosts(1);
    expect(postText(post!)).toContain(`beta (${OTHER}) validation active → completed`);
  }, 30_000);

  it('with --no-watch, reloads on SIGHUP only', async () => {
    const url = await run('--no-watch');
    await waitUntil(async () => (await metrics(url)).includes('avawatch_validator_status{rule="my-validators",network="mainnet",node_id="NodeID-MFrZ'), 'the baseline poll');
    writeFileSync(rulesFile(), readFileSync(rulesFile(), 'utf8').replace(`      - ${NODE}`, `      - ${NODE}\n      - ${OTHER}`));
    // Two evaluations after the edit (a second apart) outlast the watcher's 300 ms debounce:
    // a watching daemon would have reloaded by then.
    const edited = await evaluations(url);
    await waitUntil(async () => (await evaluations(url)) >= edited + 2, 'two evaluations after the edit');
    expect(log).not.toContain('config reloaded');
    expect(await metrics(url)).not.toContain(`node_id="${OTHER}"`);

    child?.kill('SIGHUP');
    await waitUntil(() => log.includes('"msg":"config reloaded"'), 'the reload');
    expect(log).toContain('"reason":"SIGHUP","added":[],"removed":[],"changed":["my-validators"]');
    await waitUntil(async () => (await metrics(url)).includes(`node_id="${OTHER}"`), 'the second node polled');
  }, 30_000);

  it('forgets at start the state of rules removed while it was stopped', async () => {
    await run();
    await waitUntil(() => rulesInState().join() === 'my-validators', 'the baseline');
    const stopped = new Promise((r) => child?.once('exit', r));
    child?.kill('SIGTERM');
    await stopped;
    writeFileSync(rulesFile(), readFileSync(rulesFile(), 'utf8').replace('name: my-validators', 'name: renamed'));
    log = '';
    await run();
    expect(log).toContain('"rules":["my-validators"],"msg":"forgot the state of rules no longer in the config"');
    await waitUntil(() => rulesInState().join() === 'renamed', 'only the configured rule in the state file');
  }, 30_000);

  it('applies a rule that changed kind together with a routing change, and a SIGTERM right after a SIGHUP still exits 0', async () => {
    const url = await run();
    await waitUntil(async () => (await metrics(url)).includes('avawatch_validator_status{rule="my-validators"'), 'the baseline poll');
    writeFileSync(rulesFile(), readFileSync(rulesFile(), 'utf8').replace('kind: validator-status', 'kind: validation-end'));
    writeFileSync(project.configFile, readFileSync(project.configFile, 'utf8').replace('route:\n', 'route:\n  groupWait: 1s\n'));
    child?.kill('SIGHUP');
    await waitUntil(() => log.includes('"msg":"config reloaded"'), 'the reload');
    expect(log).toContain('"changed":["my-validators"]');
    await waitUntil(async () => (await metrics(url)).includes('avawatch_validation_end_timestamp_seconds{rule="my-validators"'), 'the rule polling as its new kind');
    expect(await metrics(url)).not.toContain('avawatch_validator_status{');
    expect(rulesInState()).toEqual(['my-validators']);

    writeFileSync(project.configFile, readFileSync(project.configFile, 'utf8').replace('  groupWait: 1s\n', ''));
    const exited = new Promise<number | null>((resolve) => child?.once('exit', resolve));
    child?.kill('SIGHUP');
    child?.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(log).not.toContain('shutdown took longer than 10s');
  }, 30_000);
});
