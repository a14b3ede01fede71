import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { activeValidator, completedValidator } from '../../src/sim/samples.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { avawatch, onProcess, startDaemon, type Daemon } from '../helpers/cli.js';
import { writeProject, type TempProject } from '../helpers/harness.js';
import { postText, startSlackReceiver, type SlackPost, type SlackReceiver } from '../helpers/slack-receiver.js';

// kill -9 of the real daemon at each step of fetch → evaluate → commit → send → mark sent.
// Restarted with everything healthy, it delivers every notification: exactly once when the
// kill came before the send, at most twice when it came during or right after it.

const NODE = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const period = { nodeId: NODE, txHash: 'tx-crash-1', startTimestamp: 1_716_000_000, endTimestamp: 1_747_536_000 };
const CHANGE = `${NODE} validation active → completed`;

// Every wait of this file is on the `avawatch run` process (test/helpers/cli.ts, onProcess), Slack's too.
const ran = onProcess;

type Finished = (fn: () => Promise<void> | void) => void;

interface Ctx {
  sim: SimServer;
  slack: SlackReceiver;
  project: TempProject;
  /** Starts `avawatch run`; killed after the test if still running. */
  daemon(): Daemon;
  /** Starts the daemon and waits for its baseline to be committed (a second poll means the first one finished). */
  running(): Promise<Daemon>;
}

async function setup(onTestFinished: Finished): Promise<Ctx> {
  const sim = await startSim();
  const slack = await startSlackReceiver();
  sim.world.setValidators('mainnet', NODE, [activeValidator(period)]);
  const project = writeProject({ dataUrl: sim.url, webhookUrl: slack.webhookUrl, nodeIds: [NODE] });
  const daemons: Daemon[] = [];
  onTestFinished(async () => {
    for (const d of daemons) await d.kill();
    await sim.close();
    await slack.close();
    project.cleanup();
  });
  const daemon = () => {
    const d = startDaemon(project.configFile, { cwd: project.dir });
    daemons.push(d);
    return d;
  };
  return {
    sim,
    slack,
    project,
    daemon,
    async running() {
      const d = daemon();
      await d.started();
      const from = sim.requests.length;
      await ran(() => sim.requests.length >= from + 2, 'the baseline poll committed');
      return d;
    },
  };
}

/** The outbox holds rows and none is pending (read beside the running daemon: WAL readers do not block it). */
function outboxSettled(path: string): boolean {
  const db = new Database(path, { readonly: true });
  try {
    const { rows, pending } = db.prepare(`SELECT COUNT(*) AS rows, SUM(state = 'pending') AS pending FROM outbox`).get() as { rows: number; pending: number | null };
    return rows > 0 && pending === 0;
  } finally {
    db.close();
  }
}

const about = (posts: SlackPost[]) => posts.filter((p) => postText(p).includes(CHANGE)).length;

/**
 * After the kill: the daemon restarted with the API and Slack healthy delivers the change;
 * then, stopped cleanly, `avawatch outbox --json` shows every row sent, none pending or dead.
 */
async function restartAndSettle(c: Ctx): Promise<void> {
  const d = c.daemon();
  await d.started();
  await ran(() => about(c.slack.posts) >= 1 && outboxSettled(c.project.statePath), 'the change delivered and marked sent after the restart', 20_000);
  // Long enough for a duplicate to show: a lease (Slack timeout 2 s + 5 s) and a few polls.
  const from = c.sim.requests.length;
  await ran(() => c.sim.requests.length >= from + 3, 'three more polls', 15_000);
  d.child.kill('SIGTERM');
  expect((await d.exited).code).toBe(0);
  const outbox = await avawatch(['-c', c.project.configFile, 'outbox', '--json'], { cwd: c.project.dir });
  expect(outbox.code, outbox.stderr).toBe(0);
  const rows = outbox.stdout.trim().split('\n').map((l) => JSON.parse(l) as { state: string; summary: string; lastError: string | null });
  expect(rows.map((r) => [r.state, r.summary])).toEqual([['sent', CHANGE]]);
}

describe.concurrent('kill -9 at each step, then a healthy restart', () => {
  it('(a) during evaluate: the poll after the change hangs; nothing was committed, the change is seen again and sent exactly once', async ({ onTestFinished }) => {
    const c = await setup(onTestFinished);
    const d = await c.running();
    c.sim.world.faults.push(...Array.from({ length: 5 }, () => ({ status: 200, delayMs: 60_000, pathIncludes: '/validators/' })));
    c.sim.world.setValidators('mainnet', NODE, [completedValidator(period)]);
    await ran(() => c.sim.world.faults.length < 5, 'the hung poll');
    await d.kill();
    expect(c.slack.attempts).toBe(0);

    c.sim.world.faults.length = 0;
    await restartAndSettle(c);
    expect(about(c.slack.received)).toBe(1);
  }, 45_000);

  it('(b) after commit, before send: Slack answered 503, the row waits; sent exactly once after the restart', async ({ onTestFinished }) => {
    const c = await setup(onTestFinished);
    const d = await c.running();
    c.slack.failAll(503);
    c.sim.world.setValidators('mainnet', NODE, [completedValidator(period)]);
    await ran(() => c.slack.attempts >= 1, 'a refused attempt');
    await d.kill();

    c.slack.failAll(undefined);
    await restartAndSettle(c);
    expect(about(c.slack.posts)).toBe(1);
  }, 45_000);

  it('(c) during send: killed while Slack holds the POST unanswered; delivered again after the lease, at most one duplicate', async ({ onTestFinished }) => {
    const c = await setup(onTestFinished);
    const d = await c.running();
    c.slack.hang(true);
    c.slack.onReceived(() => d.child.kill('SIGKILL'));
    c.sim.world.setValidators('mainnet', NODE, [completedValidator(period)]);
    await d.exited;
    expect(c.slack.received).toHaveLength(1);

    c.slack.hang(false);
    c.slack.onReceived(undefined);
    await restartAndSettle(c);
    // The unanswered POST may have reached the channel: count it.
    expect(about(c.slack.received)).toBeGreaterThanOrEqual(1);
    expect(about(c.slack.received)).toBeLessThanOrEqual(2);
  }, 45_000);

  it('(d) after send, before mark-sent: killed in the same handler right after Slack answered 200; at most one duplicate', async ({ onTestFinished }) => {
    const c = await setup(onTestFinished);
    const d = await c.running();
    c.slack.onAnswered(() => d.child.kill('SIGKILL'));
    c.sim.world.setValidators('mainnet', NODE, [completedValidator(period)]);
    await d.exited;
    expect(c.slack.posts).toHaveLength(1);

    c.slack.onAnswered(undefined);
    await restartAndSettle(c);
    expect(about(c.slack.posts)).toBeGreaterThanOrEqual(1);
    expect(about(c.slack.posts)).toBeLessThanOrEqual(2);
  }, 45_000);
});
