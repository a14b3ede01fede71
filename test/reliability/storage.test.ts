import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { activeValidator, completedValidator } from '../../src/sim/samples.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { avawatch, CLI, type CliOptions } from '../helpers/cli.js';
import { withDaemon, type Daemon } from '../helpers/daemon.js';
import { writeProject, type TempProject } from '../helpers/harness.js';
import { startSlackReceiver, type SlackReceiver } from '../helpers/slack-receiver.js';

// The state file locked, read-only or damaged: avawatch says so loudly, naming the file,
// exits non-zero, and never replaces, resets or rewrites it (so no alert is replayed).

const NODE = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const RULE = 'my-validators';
const period = { nodeId: NODE, txHash: 'tx-storage-1', startTimestamp: 1_716_000_000, endTimestamp: 1_747_536_000 };
const next = { ...period, txHash: 'tx-storage-2', startTimestamp: period.endTimestamp + 60, endTimestamp: period.endTimestamp + 30 * 86_400 };

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Root ignores file modes: a read-only file is only read-only to another user. */
const root = process.getuid?.() === 0;
const NOBODY = 65_534;
function canRunAsNobody(): boolean {
  if (!root) return false;
  const r = spawnSync(process.execPath, [CLI, '--version'], { uid: NOBODY, gid: NOBODY, env: { PATH: process.env['PATH'] ?? '' } });
  return r.status === 0;
}

describe('the state file', () => {
  let sim: SimServer;
  let slack: SlackReceiver;
  let project: TempProject;
  /** A state file with a baseline and one notification already delivered. */
  let good: Buffer;

  /**
   * The daemon in this process, on a fake clock, with a simulator and receiver of its own
   * (the validator completed, as here) and the good state file.
   */
  const onGoodFile = (body: (d: Daemon) => Promise<void>) =>
    withDaemon(
      {
        project: { nodeIds: [NODE] },
        before: (d) => {
          d.sim.world.setValidators('mainnet', NODE, [completedValidator(period)]);
          mkdirSync(dirname(d.project.statePath), { recursive: true });
          writeFileSync(d.project.statePath, good);
        },
      },
      body,
    );

  beforeAll(async () => {
    sim = await startSim();
    slack = await startSlackReceiver();
    sim.world.setValidators('mainnet', NODE, [activeValidator(period)]);
    project = writeProject({ dataUrl: sim.url, webhookUrl: slack.webhookUrl, nodeIds: [NODE] });
    const cwd = { cwd: project.dir };
    expect((await avawatch(['-c', project.configFile, 'once'], cwd)).code).toBe(0);
    sim.world.setValidators('mainnet', NODE, [completedValidator(period)]);
    expect((await avawatch(['-c', project.configFile, 'once', '--send'], cwd)).code).toBe(0);
    expect(slack.posts).toHaveLength(1);
    good = readFileSync(project.statePath);
  });

  afterAll(async () => {
    await sim.close();
    await slack.close();
    project.cleanup();
  });

  beforeEach(() => {
    for (const f of ['', '-wal', '-shm']) rmSync(project.statePath + f, { force: true });
    writeFileSync(project.statePath, good);
    sim.world.setValidators('mainnet', NODE, [completedValidator(period)]);
    slack.posts.length = 0;
  });

  afterEach(() => {
    chmodSync(dirname(project.statePath), 0o755);
    chmodSync(project.statePath, 0o644);
  });

  const cli = (args: string[], o: CliOptions = {}) => avawatch(['-c', project.configFile, ...args], { cwd: project.dir, timeoutMs: 30_000, ...o });

  /** Exit 1, no hang, and a last line that names the file and says what is wrong. */
  function refused(r: Awaited<ReturnType<typeof cli>>, what: RegExp): void {
    expect(r.signal, r.stderr).toBeNull(); // ended by itself, not by the test's kill
    expect(r.code, r.stderr).toBe(1);
    const last = r.stderr.trim().split('\n').at(-1) ?? '';
    expect(last).toContain(project.statePath);
    expect(last).toMatch(what);
  }

  describe('locked by another process (BEGIN EXCLUSIVE held)', () => {
    it('run and once wait out the busy timeout, then refuse with the reason; nothing written, nothing sent', async () => {
      const holder = new Database(project.statePath, { timeout: 5_000 });
      try {
        holder.exec('BEGIN EXCLUSIVE');
        const before = sha(project.statePath);
        const [run, once] = await Promise.all([cli(['run']), cli(['once', '--send'])]);
        for (const r of [run, once]) refused(r, /database is locked: another process has held a write lock on it for more than 5s/);
        expect(sha(project.statePath)).toBe(before);
      } finally {
        holder.exec('ROLLBACK');
        holder.close();
      }
      expect(slack.posts).toEqual([]);
    }, 30_000);

    // The daemon in this process: its commit waits out the busy timeout (5 s, in SQLite) holding the event loop.
    it('taken while the daemon runs: the change is not lost, and is delivered once after the lock is released', () =>
      onGoodFile(async ({ sim, slack, project: p, ...d }) => {
        const polled = sim.requests.length;
        await d.until(() => sim.requests.length >= polled + 2, 'two polls');
        const holder = new Database(p.statePath, { timeout: 5_000 });
        try {
          holder.exec('BEGIN EXCLUSIVE');
          sim.world.setValidators('mainnet', NODE, [completedValidator(period), activeValidator(next)]);
          // The next poll (within a second) meets the lock; each poll then holds the loop 5 s of real time.
          await d.until(() => /"rule":"my-validators","error":"database is locked","msg":"rule evaluation failed; state unchanged"/.test(d.logs.join('')), 'a commit refused by the lock', { within: 3_000 });
          expect(slack.posts).toEqual([]);
        } finally {
          holder.exec('ROLLBACK');
          holder.close();
        }
        await slack.waitForPosts(1, 15_000);
        const seen = sim.requests.length;
        await d.until(() => sim.requests.length >= seen + 2, 'two more polls', { within: 15_000 });
        expect(slack.posts.map((p) => p.body.text)).toEqual([`[EVENT INFO] ${RULE}: ${NODE} validation completed → active (new validation period)`]);
      }), 30_000);
  });

  describe('read-only (file 0444, directory 0555)', () => {
    const asNobody = canRunAsNobody();
    // As root, file modes stop nothing: the CLI then runs as nobody, who may read but not write.
    it.skipIf(root && !asNobody)('run and once refuse with the reason; nothing written, nothing sent (skipped only as root without setuid)', async () => {
      const who = asNobody ? { uid: NOBODY, gid: NOBODY } : {};
      if (asNobody) chmodSync(project.dir, 0o755); // mkdtemp made it 0700
      chmodSync(project.statePath, 0o444);
      chmodSync(dirname(project.statePath), 0o555);
      const before = sha(project.statePath);
      const [run, once] = await Promise.all([cli(['run'], who), cli(['once', '--send'], who)]);
      for (const r of [run, once]) refused(r, /readonly database: avawatch must be able to write the file and create files beside it/);
      expect(sha(project.statePath)).toBe(before);
      expect(existsSync(`${project.statePath}-wal`)).toBe(false);
      expect(slack.posts).toEqual([]);
    }, 30_000);
  });

  describe('damaged', () => {
    function corrupt(how: 'header' | 'middle'): void {
      let page = 0;
      if (how === 'middle') {
        const db = new Database(project.statePath, { readonly: true });
        page = (db.prepare(`SELECT rootpage FROM sqlite_master WHERE name = 'entity_state'`).get() as { rootpage: number }).rootpage;
        const size = db.pragma('page_size', { simple: true }) as number;
        db.close();
        page = (page - 1) * size;
        expect(page).toBeGreaterThan(0);
      }
      const fd = openSync(project.statePath, 'r+');
      // The header's magic string, or the b-tree page header of the state table: 512 bytes of garbage.
      writeSync(fd, Buffer.alloc(512, how === 'header' ? 0x41 : 0xee), 0, 512, page);
      closeSync(fd);
    }

    for (const how of ['header', 'middle'] as const) {
      it(`${how === 'header' ? 'a garbage header' : 'garbage in the middle (a table page)'}: run, once, alerts and outbox refuse, naming the file; it is left exactly as it was`, async () => {
        corrupt(how);
        const before = sha(project.statePath);
        const results = await Promise.all([cli(['run']), cli(['once', '--send']), cli(['alerts']), cli(['outbox', '--json'])]);
        const reason = how === 'header' ? /file is not a database: the file is damaged or not an avawatch state file; restore it from a backup/ : /is corrupt \(.+\); restore it from a backup/;
        for (const r of results) {
          refused(r, reason);
          expect(r.stdout).toBe(''); // not "no alerts firing"
        }
        expect(sha(project.statePath)).toBe(before);
        expect(slack.posts).toEqual([]);
      }, 30_000);
    }
  });

  it('the good file, by contrast, runs: no alert replayed', () =>
    onGoodFile(async (d) => {
      const polled = d.sim.requests.length;
      await d.until(() => d.sim.requests.length >= polled + 2, 'two polls');
      expect(d.slack.posts).toEqual([]);
    }));
});
