import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { activeValidator, completedValidator } from '../../src/sim/samples.js';
import { startSim } from '../../src/sim/server.js';
import { startDaemon as startProcess } from '../helpers/cli.js';
import { withDaemon, type Daemon } from '../helpers/daemon.js';
import { writeProject } from '../helpers/harness.js';
import { postText } from '../helpers/slack-receiver.js';

// Reloads of a running daemon: the daemon fixture (test/helpers/daemon.ts) watches its files
// as `avawatch run` does, on fake time (a poll every second, the watcher's 300 ms debounce);
// the file events, /metrics, Slack and the state file are real. What only the process has
// (SIGHUP, SIGTERM, its exit code) is the last test's, on the wall clock.

const NODE = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const OTHER = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const period = (nodeId: string) => ({ nodeId, txHash: `tx-${nodeId.slice(-6)}`, startTimestamp: 1_716_000_000, endTimestamp: 1_747_536_000 });

/** The daemon polling NODE every second (OTHER exists too, unwatched); `watch`: reloads on file changes. */
const daemon = (body: (d: Daemon) => Promise<void>, o: { watch?: boolean; before?: (d: Daemon) => void } = {}) =>
  withDaemon(
    {
      project: { nodeIds: [NODE], every: '1s' },
      watch: o.watch ?? true,
      before: (d) => {
        d.sim.world.setValidators('mainnet', NODE, [activeValidator(period(NODE))]);
        d.sim.world.setValidators('mainnet', OTHER, [activeValidator(period(OTHER))]);
        o.before?.(d);
      },
    },
    body,
  );

const log = (d: Daemon) => d.logs.join('\n');
const rulesFile = (d: Daemon) => join(d.project.dir, 'rules', 'validators.yaml');
const metrics = async (d: Daemon) => (await fetch(`${d.app.url}/metrics`)).text();
/** How many evaluations of the rule have started, from /metrics. */
const evaluations = async (d: Daemon) => Number(/^avawatch_rule_evaluations_total\{rule="my-validators"\} (\d+)$/m.exec(await metrics(d))?.[1] ?? 0);
const rulesInState = (d: Daemon) => {
  const db = new Database(d.project.statePath, { readonly: true });
  try {
    return (db.prepare('SELECT DISTINCT rule FROM entity_state ORDER BY rule').all() as Array<{ rule: string }>).map((r) => r.rule);
  } finally {
    db.close();
  }
};
const reloaded = (d: Daemon) => d.until(() => log(d).includes('"msg":"config reloaded"'), 'the reload');

describe('reload while running', () => {
  it('refuses a broken edit of a rule file (logged, gauge 0, old rule keeps running), then applies a good one without a restart', () =>
    daemon(async (d) => {
      await d.until(async () => (await metrics(d)).includes('avawatch_validator_status{rule="my-validators"'), 'the baseline poll');
      expect(await metrics(d)).toContain('avawatch_config_last_reload_successful 1');
      const good = readFileSync(rulesFile(d), 'utf8');

      writeFileSync(rulesFile(d), good.replace('severity: critical', 'severity: urgent'));
      await d.until(() => log(d).includes('config reload refused'), 'the refused reload');
      expect(log(d)).toContain('rules/validators.yaml:5:15: rules[0].severity: expected one of info, warning, critical');
      expect(log(d)).toContain('the previous config keeps running');
      await d.until(async () => (await metrics(d)).includes('avawatch_config_last_reload_successful 0'), 'the reload gauge at 0');
      // The old rule still runs and still alerts.
      d.sim.world.setValidators('mainnet', NODE, [completedValidator(period(NODE))]);
      const [first] = await d.slack.waitForPosts(1);
      expect(postText(first!)).toContain('my-validators');

      // A good edit: the rule renamed and watching another node. The old rule's state is pruned.
      writeFileSync(rulesFile(d), good.replace('name: my-validators', 'name: other-validators').replace(NODE, OTHER));
      await reloaded(d);
      expect(log(d)).toContain('"added":["other-validators"],"removed":["my-validators"],"changed":[]');
      await d.until(async () => (await metrics(d)).includes('avawatch_config_last_reload_successful 1'), 'the reload gauge at 1');
      await d.until(async () => (await metrics(d)).includes('avawatch_validator_status{rule="other-validators"'), 'the new rule polling');
      expect(await metrics(d)).not.toContain('rule="my-validators"');
      await d.until(() => rulesInState(d).join() === 'other-validators', 'the old rule pruned from the state file');

      d.sim.world.setValidators('mainnet', OTHER, [completedValidator(period(OTHER))]);
      const [, second] = await d.slack.waitForPosts(2);
      expect(postText(second!)).toContain('other-validators');
      expect(postText(second!)).toContain(OTHER);
      expect(d.slack.posts).toHaveLength(2);
    }));

  it('a validator added to the inventory file is watched from a silent baseline by the rule that selects all, then alerted on by name', () =>
    daemon(
      async (d) => {
        const inventory = join(d.project.dir, 'inventory.yaml');
        await d.until(async () => (await metrics(d)).includes(`node_id="${NODE}"`), 'the baseline poll');

        writeFileSync(inventory, `validators:\n  - { name: alpha, nodeId: ${NODE} }\n  - { name: beta, nodeId: ${OTHER} }\n`);
        await reloaded(d);
        expect(log(d)).toContain('"changed":["my-validators"]');
        await d.until(async () => (await metrics(d)).includes(`node_id="${OTHER}"`), 'the added validator polled');
        // Its active validation is its baseline, not news: the committed evaluation made no alert.
        const db = new Database(d.project.statePath, { readonly: true });
        expect(db.prepare('SELECT COUNT(*) AS n FROM alerts').get()).toEqual({ n: 0 });
        db.close();

        d.sim.world.setValidators('mainnet', OTHER, [completedValidator(period(OTHER))]);
        const [post] = await d.slack.waitForPosts(1);
        expect(postText(post!)).toContain(`beta (${OTHER}) validation active → completed`);
      },
      {
        before: (d) => {
          writeFileSync(join(d.project.dir, 'inventory.yaml'), `validators:\n  - { name: alpha, nodeId: ${NODE} }\n`);
          writeFileSync(d.project.configFile, `${readFileSync(d.project.configFile, 'utf8')}\nvalidatorsFile: inventory.yaml\n`);
          writeFileSync(rulesFile(d), 'rules:\n  - { name: my-validators, kind: validator-status, every: 1s, severity: critical, validators: all }\n');
        },
      },
    ));

  it('not watching (--no-watch), reloads when asked (SIGHUP) only', () =>
    daemon(
      async (d) => {
        await d.until(async () => (await metrics(d)).includes(`node_id="${NODE}"`), 'the baseline poll');
        writeFileSync(rulesFile(d), readFileSync(rulesFile(d), 'utf8').replace(`      - ${NODE}`, `      - ${NODE}\n      - ${OTHER}`));
        // Two evaluations after the edit (a second apart) outlast the watcher's 300 ms debounce:
        // a watching daemon would have reloaded by then.
        const edited = await evaluations(d);
        await d.until(async () => (await evaluations(d)) >= edited + 2, 'two evaluations after the edit');
        expect(log(d)).not.toContain('config reloaded');
        expect(await metrics(d)).not.toContain(`node_id="${OTHER}"`);

        await d.settle(d.app.reload('SIGHUP'), 'the reload');
        expect(log(d)).toContain('"reason":"SIGHUP","added":[],"removed":[],"changed":["my-validators"]');
        await d.until(async () => (await metrics(d)).includes(`node_id="${OTHER}"`), 'the second node polled');
      },
      { watch: false },
    ));

  it('forgets at start the state of rules removed while it was stopped', () =>
    daemon(async (d) => {
      await d.until(() => rulesInState(d).join() === 'my-validators', 'the baseline');
      await d.stopApp();
      writeFileSync(rulesFile(d), readFileSync(rulesFile(d), 'utf8').replace('name: my-validators', 'name: renamed'));
      d.logs.length = 0;
      await d.start();
      expect(log(d)).toContain('"rules":["my-validators"],"msg":"forgot the state of rules no longer in the config"');
      await d.until(() => rulesInState(d).join() === 'renamed', 'only the configured rule in the state file');
    }));

  it('applies a rule that changed kind together with a routing change', () =>
    daemon(
      async (d) => {
        await d.until(async () => (await metrics(d)).includes('avawatch_validator_status{rule="my-validators"'), 'the baseline poll');
        writeFileSync(rulesFile(d), readFileSync(rulesFile(d), 'utf8').replace('kind: validator-status', 'kind: validation-end'));
        writeFileSync(d.project.configFile, readFileSync(d.project.configFile, 'utf8').replace('route:\n', 'route:\n  groupWait: 1s\n'));
        await d.settle(d.app.reload('SIGHUP'), 'the reload');
        expect(log(d)).toContain('"changed":["my-validators"]');
        await d.until(async () => (await metrics(d)).includes('avawatch_validation_end_timestamp_seconds{rule="my-validators"'), 'the rule polling as its new kind');
        expect(await metrics(d)).not.toContain('avawatch_validator_status{');
        expect(rulesInState(d)).toEqual(['my-validators']);
      },
      { watch: false },
    ));
});

describe('reload of the process', () => {
  it('SIGHUP reloads (a routing change) and a SIGTERM right after it still exits 0 within the shutdown budget', async () => {
    const sim = await startSim();
    const project = writeProject({ dataUrl: sim.url, nodeIds: [NODE], every: '1s' });
    sim.world.setValidators('mainnet', NODE, [activeValidator(period(NODE))]);
    const child = startProcess(project.configFile, { cwd: project.dir });
    try {
      await child.started();
      writeFileSync(project.configFile, readFileSync(project.configFile, 'utf8').replace('route:\n', 'route:\n  groupWait: 1s\n'));
      child.child.kill('SIGHUP');
      child.child.kill('SIGTERM');
      // An unhandled SIGHUP would end it by the signal; the 10 s force-exit, with code 1.
      expect(await child.exited).toEqual({ code: 0, signal: null });
      expect(child.log()).not.toContain('shutdown took longer than 10s');
    } finally {
      await child.kill();
      await sim.close();
      project.cleanup();
    }
  });
});
