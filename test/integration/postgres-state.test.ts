import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { onceCommand } from '../../src/commands/once.js';
import { silenceAdd, silenceList } from '../../src/commands/silence.js';
import { loadConfig } from '../../src/config/load.js';
import { activeValidator, completedValidator } from '../../src/sim/samples.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { avawatch } from '../helpers/cli.js';
import { writeProject, type TempProject } from '../helpers/harness.js';
import { postgresForFile } from '../helpers/postgres-file.js';
import { startSlackReceiver, type SlackReceiver } from '../helpers/slack-receiver.js';

// `state.url`: the state in a real PostgreSQL (test/helpers/postgres.ts) instead of the SQLite
// file, through the CLI an operator runs. What several instances on it share is the store's
// (src/store/postgres/, its contract in postgres.spec.ts); here, that avawatch uses it.

const NODE = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const PASSWORD = 'pg-pass-7f3a9c';
const period = { nodeId: NODE, txHash: 'tx-current', startTimestamp: 1_716_000_000, endTimestamp: 1_747_536_000 };

const postgres = postgresForFile();
let sim: SimServer;
let slack: SlackReceiver;
const projects: TempProject[] = [];

beforeEach(async () => {
  sim = await startSim();
  slack = await startSlackReceiver();
  sim.world.setValidators('mainnet', NODE, [activeValidator(period)]);
});
afterEach(async () => {
  await sim.close();
  await slack.close();
  for (const p of projects.splice(0)) p.cleanup();
});

/** A project whose state is the database at `url` (the password written into it: the cluster trusts, so any works). */
function projectOn(url: string): TempProject {
  const project = writeProject({ dataUrl: sim.url, nodeIds: [NODE], webhookUrl: slack.webhookUrl });
  const withPassword = url.replace('postgres://postgres@', `postgres://postgres:${PASSWORD}@`);
  const text = readFileSync(project.configFile, 'utf8').replace(/^state:\n {2}path: .*$/m, (block) => `${block}\n  url: ${withPassword}`);
  writeFileSync(project.configFile, text);
  projects.push(project);
  return project;
}

describe('state.url (PostgreSQL)', () => {
  it('keeps the state there: a change seen after a baseline is sent once, and no state file is written', async () => {
    const project = projectOn(await postgres.database('once_then_send'));
    expect(await onceCommand(loadConfig(project.configFile, {}), { sendTimeoutMs: 0, logLevel: 'silent' })).toBe(0);
    sim.world.setValidators('mainnet', NODE, [completedValidator(period)]);
    const sent = await avawatch(['-c', project.configFile, 'once', '--send'], { cwd: project.dir });
    expect(sent.stderr).not.toMatch(/"level":[4-6]0/);
    expect(sent.code).toBe(0);
    expect(slack.posts.map((p) => p.body.text)).toEqual([`[EVENT INFO] my-validators: ${NODE} validation active → completed`]);
    // The next run reads the state the last one left in the database: no news, nothing sent.
    const again = await avawatch(['-c', project.configFile, 'once', '--send'], { cwd: project.dir });
    expect([again.code, again.stdout]).toEqual([0, '']);
    expect(slack.posts).toHaveLength(1);
    expect(existsSync(project.statePath)).toBe(false);
  });

  it("shares silences: one added by one machine's config is in force for another's on the same database", async () => {
    const url = await postgres.database('silences');
    const one = loadConfig(projectOn(url).configFile, {});
    const other = loadConfig(projectOn(url).configFile, {});
    expect(await silenceAdd(one, { match: [`node=${NODE}`], for: '1h', comment: 'disk swap' })).toMatch(/^silence #1 until /);
    expect(await silenceList(other, false, false)).toEqual([expect.stringMatching(new RegExp(`^#1 active +until .*node=${NODE}.*disk swap`))]);
  });

  it('a database it cannot reach stops it at once, named without its password', async () => {
    const project = projectOn('postgres://postgres@127.0.0.1:1/avawatch');
    const r = await avawatch(['-c', project.configFile, 'once'], { cwd: project.dir });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('postgres://postgres@127.0.0.1:1/avawatch');
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
  });
});
