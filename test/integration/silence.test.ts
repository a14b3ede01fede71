import { clockAt } from '../../src/base/clock.js';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { composeApp } from '../../src/app/compose.js';
import { historyCommand } from '../../src/commands/history.js';
import { silenceAdd, silenceList } from '../../src/commands/silence.js';
import { loadConfig } from '../../src/config/load.js';
import { activeValidator } from '../../src/sim/samples.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { startSlackReceiver, type SlackReceiver } from '../helpers/slack-receiver.js';
import { withDaemon } from '../helpers/daemon.js';
import type { ProjectUrls } from '../helpers/harness.js';
import { storedStates } from '../helpers/stored-states.js';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '../../dist/cli.js');
const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const B = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';

/** The config: the validation-end rule on A and B, every second; one Slack receiver, `ops`. */
const files = ({ dataUrl, webhookUrl, statePath }: ProjectUrls) => ({
  'avawatch.yaml': `api: {dataUrl: "${dataUrl}", metricsUrl: "${dataUrl}", retries: 0}\nstate: {path: "${statePath}"}\nserver: {listen: "127.0.0.1:0"}\nroute: {receivers: [ops]}\nreceivers: [{name: ops, type: slack, webhookUrl: "${webhookUrl}", minInterval: 10ms}]\nruleFiles: [rules.yaml]\n`,
  'rules.yaml': `rules:\n  - {name: ending, kind: validation-end, every: 1s, severity: critical, network: mainnet, nodeIds: [${A}, ${B}]}\n`,
});

function setEnd(sim: SimServer, days: number): void {
  const now = sim.world.clock.now();
  for (const n of [A, B]) sim.world.setValidators('mainnet', n, [activeValidator({ nodeId: n, txHash: `p-${n.slice(-3)}`, startTimestamp: now - 86_400, endTimestamp: now + days * 86_400 })]);
}

const cliOf = (config: string) => async (...args: string[]) => (await run(process.execPath, [CLI, '-c', config, ...args], { env: { PATH: process.env['PATH'] ?? '' } })).stdout;

describe('silences', () => {
  // The tests of the CLI alone: a simulator and a receiver on real time, the config pointing at them.
  let sim: SimServer | undefined;
  let slack: SlackReceiver | undefined;
  let dir: string | undefined;
  let config = '';
  const cli = (...args: string[]) => cliOf(config)(...args);
  async function cliProject(): Promise<void> {
    const s = (sim = await startSim());
    const r = (slack = await startSlackReceiver());
    const d = (dir = mkdtempSync(join(tmpdir(), 'avawatch-silence-')));
    config = join(d, 'avawatch.yaml');
    for (const [name, text] of Object.entries(files({ dataUrl: s.url, webhookUrl: r.webhookUrl, statePath: join(d, 'state.db') }))) writeFileSync(join(d, name), text);
    setEnd(s, 20);
  }
  afterEach(async () => {
    await sim?.close();
    await slack?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    [sim, slack, dir] = [undefined, undefined, undefined];
  });

  it('mutes what it matches and nothing else, records the muted notification, and notifies a still-firing alert when it ends', () =>
    // The daemon on a fake clock; the CLI, a process of its own, on the wall clock: catchUp() before the daemon reads what it wrote.
    // The silence lasts 8 s: the fake clock is pumped while a loaded machine polls and delivers (4 s ran out first in CI).
    withDaemon({ project: files, logLevel: 'error', before: (d) => setEnd(d.sim, 20) }, async (d) => {
      const { app, slack } = d;
      const cli = cliOf(d.project.configFile);
      await d.until(async () => Object.keys((await storedStates(app.store, 'ending'))).length === 2, 'the baseline');
      expect(await cli('silence', 'add', '--match', `node=${A}`, '--match', 'rule=ending', '--for', '8s', '--comment', 'node upgrade', '--author', 'ops')).toMatch(
        new RegExp(`^silence #1 until \\S+: node=${A}, rule=ending\\n$`),
      );
      expect(await cli('silence', 'list')).toMatch(new RegExp(`^#1 active  until \\S+  node=${A}, rule=ending  "node upgrade" \\(ops\\)\\n$`));
      await d.catchUp();

      setEnd(d.sim, 2); // both validations now end within 3 days: both alerts fire
      await slack.waitForPosts(1);
      expect(slack.posts[0]!.body.text).toMatch(new RegExp(`^\\[FIRING CRITICAL\\] ending: ${B} validation ends within 3d, at `));
      expect(slack.posts[0]!.body.text).not.toContain(A);
      const muted = await cli('outbox', '--state', 'muted');
      expect(muted).toMatch(new RegExp(`^#\\d+ muted   ops attempts=0 ${A} validation ends within .*last error: silenced by #1 until \\S+: node upgrade\\n$`));

      // The silence ends while A still fires: A is notified then, once.
      await slack.waitForPosts(2, 20_000);
      expect(slack.posts[1]!.body.text).toContain(`[FIRING CRITICAL] ending: ${A} validation ends within 3d, at `);
      expect(JSON.stringify(slack.posts[1]!.body.blocks)).toContain('the mute has ended');
      await d.advance(2_500);
      expect(slack.posts).toHaveLength(2);
    }));

  it('refuses a label no rule or kind produces, naming the labels that exist, unless --force', async () => {
    await cliProject();
    const refused = await run(process.execPath, [CLI, '-c', config, 'silence', 'add', '--match', `nodeid=${A}`, '--for', '1h', '--comment', 'x'], { env: { PATH: process.env['PATH'] ?? '' } }).then(() => ({ code: 0, stderr: '' }), (e: { code: number; stderr: string }) => e);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^avawatch: no configured rule or kind produces the label "nodeid": the silence would mute nothing\. Labels alerts carry: .*\bnode, .*\(--force adds it anyway\)\n$/);
    // The rest in this process (a CLI start each would be slow): the functions the commands print.
    const loaded = loadConfig(config, {});
    expect(await silenceList(loaded, false, false)).toEqual(['no silences in force']);
    expect(await silenceAdd(loaded, { match: [`node=${A}`], for: '1h', comment: 'x' })).toMatch(/^silence #1 until \S+: node=NodeID-/);
    expect(await silenceAdd(loaded, { match: [`nodeid=${A}`], for: '1h', comment: 'x', force: true })).toMatch(/^silence #2 until \S+: nodeid=NodeID-/);
  });

  it("refuses a validator name the inventory does not have (a typo), suggesting the nearest, unless --force", async () => {
    await cliProject();
    writeFileSync(config, `${readFileSync(config, 'utf8')}validators:\n  - {name: alpha, nodeId: ${A}}\n  - {name: beta, nodeId: ${B}}\n`);
    const add = (...match: string[]) => run(process.execPath, [CLI, '-c', config, 'silence', 'add', ...match.flatMap((m) => ['--match', m]), '--for', '1h', '--comment', 'x'], { env: { PATH: process.env['PATH'] ?? '' } }).then(() => ({ code: 0, stderr: '' }), (e: { code: number; stderr: string }) => e);
    const refused = await add('validator=alfa');
    expect([refused.code, refused.stderr]).toEqual([1, 'avawatch: no validator of the inventory is named "alfa" (did you mean alpha?): the silence would mute nothing. Its validators: alpha, beta (--force adds it anyway)\n']);
    // The rest in this process, as above.
    const loaded = loadConfig(config, {});
    expect(await silenceList(loaded, false, false)).toEqual(['no silences in force']);
    expect(await silenceAdd(loaded, { match: ['validator=alpha'], for: '1h', comment: 'x' })).toMatch(/^silence #1 until \S+: validator=alpha$/);
    expect(await silenceAdd(loaded, { match: ['validator=~al.*'], for: '1h', comment: 'x' })).toMatch(/^silence #2 until /);
    expect(await silenceAdd(loaded, { match: ['validator=alfa'], for: '1h', comment: 'x', force: true })).toMatch(/^silence #3 until \S+: validator=alfa$/);
  });

  it('refuses a rule, severity, network or inventory label value no alert can carry, and a pattern matching none, naming the values, unless --force', async () => {
    await cliProject();
    writeFileSync(config, `${readFileSync(config, 'utf8')}validators:\n  - {name: alpha, nodeId: ${A}, labels: {team: storage}}\n  - {name: beta, nodeId: ${B}, labels: {team: compute}}\n`);
    const refused = await run(process.execPath, [CLI, '-c', config, 'silence', 'add', '--match', 'rule=endign', '--for', '1h', '--comment', 'x'], { env: { PATH: process.env['PATH'] ?? '' } }).then(() => ({ code: 0, stderr: '' }), (e: { code: number; stderr: string }) => e);
    expect([refused.code, refused.stderr]).toEqual([1, 'avawatch: no configured rule is named "endign" (did you mean ending?): the silence would mute nothing. Its rules: ending, avawatch (--force adds it anyway)\n']);
    // The rest in this process (a CLI start each would be slow): the same function, the same words.
    const loaded = loadConfig(config, {});
    const add = (match: string, force = false) => silenceAdd(loaded, { match: [match], for: '1h', comment: 'x', force });
    await expect(add('severity=crit')).rejects.toThrow(new Error('no alert carries severity="crit": the silence would mute nothing. Values of severity: info, warning, critical (--force adds it anyway)'));
    await expect(add('network=mainet')).rejects.toThrow(new Error('no alert carries network="mainet" (did you mean mainnet?): the silence would mute nothing. Values of network: mainnet, fuji, testnet (--force adds it anyway)'));
    await expect(add('team=storge')).rejects.toThrow(new Error('no alert carries team="storge" (did you mean storage?): the silence would mute nothing. Values of team: storage, compute (--force adds it anyway)'));
    await expect(add('validator=~gam.*')).rejects.toThrow(new Error('the pattern validator=~gam.* matches no validator of the inventory: the silence would mute nothing. Its validators: alpha, beta (--force adds it anyway)'));
    await expect(add('severity=~crit')).rejects.toThrow(new Error('the pattern severity=~crit matches no value of severity: the silence would mute nothing. Values of severity: info, warning, critical (--force adds it anyway)'));
    // What can match is added: a real value, a pattern matching one, an open label (a NodeID, an address).
    for (const match of ['rule=ending', 'severity=~crit.*', 'network=fuji', 'team=compute', 'team=~stor.*', `node=${A}`, 'address=0xabc']) expect(await add(match), match).toMatch(/^silence #\d+ until /);
    expect(await add('team=storge', true)).toMatch(/^silence #8 until \S+: team=storge$/);
    expect(await cli('silence', 'list')).toMatch(/^(#\d+ active .*\n){8}$/);
  });

  it('expires a silence on demand', async () => {
    await cliProject();
    // Added and listed in this process; expired and listed whole (--all) by the CLI.
    const loaded = loadConfig(config, {});
    await silenceAdd(loaded, { match: ['rule=ending'], for: '1h', comment: 'x' });
    expect(await cli('silence', 'expire', '#1')).toBe('silence #1 expired\n');
    expect(await silenceList(loaded, false, false)).toEqual(['no silences in force']);
    expect(await cli('silence', 'list', '--all')).toMatch(/^#1 expired until /);
  });
});

/** The simulator, two Slack receivers and a config whose route is `route` (YAML), on a clock the test moves. */
async function twoReceivers(route: string, start: string) {
  const clock = { now: Date.parse(start) };
  const sim = await startSim();
  const first = await startSlackReceiver();
  const second = await startSlackReceiver();
  const dir = mkdtempSync(join(tmpdir(), 'avawatch-two-'));
  const t = Math.floor(clock.now / 1000);
  sim.world.setValidators('mainnet', A, [activeValidator({ nodeId: A, txHash: 'p', startTimestamp: t - 86_400, endTimestamp: t + 2 * 86_400 })]);
  const config = join(dir, 'avawatch.yaml');
  writeFileSync(
    config,
    `api: {dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0}\nstate: {path: "${join(dir, 'state.db')}"}\n${route}\nreceivers:\n  - {name: first, type: slack, webhookUrl: "${first.webhookUrl}", minInterval: 0s}\n  - {name: second, type: slack, webhookUrl: "${second.webhookUrl}", minInterval: 0s}\nruleFiles: [rules.yaml]\n`,
  );
  writeFileSync(join(dir, 'rules.yaml'), `rules:\n  - {name: ending, kind: validation-end, every: 1m, severity: critical, network: mainnet, nodeIds: [${A}]}\n`);
  const loaded = loadConfig(config, {});
  const app = composeApp(loaded, { logLevel: 'error', readable: false, clock: clockAt(() => clock.now) }).app;
  /** One evaluation at the clock's time, and delivery of what it queued. */
  const tick = async () => {
    const result = await app.once();
    await app.delivery.drain(5_000);
    return result;
  };
  const close = async () => {
    await app.stop();
    await sim.close();
    await first.close();
    await second.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { clock, app, loaded, first, second, tick, close };
}

describe('mute windows on one receiver’s route', () => {
  it('the muted receiver is notified when its window ends; the other one is not notified twice', async () => {
    const route = `timeIntervals: [{name: night, times: [{start: "00:00", end: "06:00"}]}]
route:
  routes:
    - {match: {rule: ending}, receivers: [first], muteTimeIntervals: [night], continue: true}
    - {match: {rule: ending}, receivers: [second]}`;
    const { clock, app, first, second, tick, close } = await twoReceivers(route, '2026-01-05T05:00:00Z');
    try {
      const fired = await tick();
      expect(fired.failures.map((f) => String(f.error))).toEqual([]);
      expect(fired.alerts.map((x) => x.status)).toEqual(['firing']);
      expect((await app.store.outbox()).map((r) => `${r.receiver} ${r.state}`).sort()).toEqual(['first muted', 'second sent']);
      expect([first.posts.length, second.posts.length]).toEqual([0, 1]);
      clock.now = Date.parse('2026-01-05T07:00:00Z'); // the window has ended
      await tick();
      expect([first.posts.length, second.posts.length]).toEqual([1, 1]);
      expect(JSON.stringify(first.posts[0]!.body.blocks)).toContain('the mute has ended');
      clock.now += 60_000;
      await tick();
      expect([first.posts.length, second.posts.length]).toEqual([1, 1]);
    } finally {
      await close();
    }
  });
});

describe('the history of an alert muted when it fired', () => {
  it('shows it firing once, not again when its mute ends and it is notified', async () => {
    const route = `timeIntervals: [{name: night, times: [{start: "00:00", end: "06:00"}]}]
route: {receivers: [first, second], muteTimeIntervals: [night]}`;
    const { clock, app, loaded, first, second, tick, close } = await twoReceivers(route, '2026-01-05T05:00:00Z');
    try {
      await tick();
      expect((await app.store.outbox()).map((r) => `${r.receiver} ${r.state}`).sort()).toEqual(['first muted', 'second muted']);
      clock.now = Date.parse('2026-01-05T07:00:00Z'); // the window has ended: both are told now
      await tick();
      expect([first.posts.length, second.posts.length]).toEqual([1, 1]);
      const { lines } = await historyCommand(loaded, { since: '24h' }, clock.now);
      expect(lines.filter((l) => / firing ending /.test(l))).toEqual([expect.stringMatching(/^2026-01-05T05:00:00\.000Z CRITICAL firing ending NodeID-\S+: NodeID-\S+ validation ends within 3d, at /)]);
    } finally {
      await close();
    }
  });
});

describe('repeatInterval per route', () => {
  it('each receiver is reminded on its own route’s interval', async () => {
    const route = `route:
  repeatInterval: 4h
  routes:
    - {match: {rule: ending}, receivers: [first], repeatInterval: 1h, continue: true}
    - {match: {rule: ending}, receivers: [second]}`;
    const { clock, first, second, tick, close } = await twoReceivers(route, '2026-01-05T12:00:00Z');
    const counts: Array<[number, number]> = [];
    try {
      for (let hour = 0; hour <= 4; hour++) {
        clock.now = Date.parse('2026-01-05T12:00:00Z') + hour * 3_600_000;
        await tick();
        counts.push([first.posts.length, second.posts.length]);
      }
    } finally {
      await close();
    }
    // hour 0: the firing to both; first: a reminder each hour; second: one at hour 4.
    expect(counts).toEqual([[1, 1], [2, 1], [3, 1], [4, 1], [5, 2]]);
    expect(second.posts[1]!.body.text).toContain('[FIRING CRITICAL] ending');
  });
});
