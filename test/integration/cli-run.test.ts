import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { activeValidator, completedValidator } from '../../src/sim/samples.js';
import { startSim } from '../../src/sim/server.js';
import { CLI, cleanEnv, onProcess } from '../helpers/cli.js';
import { writeProject } from '../helpers/harness.js';
import { postText, startSlackReceiver } from '../helpers/slack-receiver.js';
import { stateFile } from '../helpers/state-file.js';

// `avawatch run` as its own process: signals, its shutdown budget, kill -9. These wait in
// real time: the real scheduler, timers and process exit are what they test.

// Every wait of this file is on the `avawatch run` process (test/helpers/cli.ts, onProcess), Slack's too.
const ran = onProcess;

const NODE = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const period = { nodeId: NODE, txHash: 'tx-current', startTimestamp: 1_716_000_000, endTimestamp: 1_747_536_000 };

describe('avawatch run', () => {
  it('exits 0 within its shutdown budget on SIGTERM while the API and Slack both hang, and loses nothing: restarted, it delivers the change; SIGINT exits 0 too', async () => {
    const sim = await startSim();
    const slack = await startSlackReceiver({ wait: ran });
    const project = writeProject({ dataUrl: sim.url, nodeIds: [NODE], webhookUrl: slack.webhookUrl, extraConfig: '' });
    sim.world.setValidators('mainnet', NODE, [activeValidator(period)]);
    const child = spawn(process.execPath, [CLI, '-c', project.configFile, 'run'], { cwd: project.dir, env: cleanEnv });
    try {
      let log = '';
      child.stderr.on('data', (c: Buffer) => (log += c.toString()));
      const url = await ran(() => /"metrics":"(http:\/\/[^"]+)\/metrics"/.exec(log)?.[1], 'the daemon to start');
      // The baseline is committed (a poll is two bulk calls now: active, then pending).
      await ran(async () => (await (await fetch(`${url}/metrics`)).text()).includes('avawatch_validator_status{'), 'the baseline poll');
      // Slack black-holed and the next polls hang far past the shutdown budget.
      slack.hang(true);
      sim.world.setValidators('mainnet', NODE, [completedValidator(period)]);
      sim.world.faults.push(...Array.from({ length: 20 }, () => ({ status: 200, delayMs: 60_000 })));
      const served = sim.requests.length;
      await ran(() => slack.attempts >= 1 || sim.requests.length > served, 'a hung poll or post');
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
        // Two more polls, and nothing left in the outbox: all it would send of them, it has.
        const polled = sim.requests.length;
        const state = stateFile(project.statePath);
        await ran(() => sim.requests.length >= polled + 2 && state.pending() === 0, 'two more polls and an empty outbox', 15_000);
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
      const url = await ran(() => /"metrics":"(http:\/\/[^"]+)\/metrics"/.exec(log)?.[1], 'the daemon to start');
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      await ran(async () => (await (await fetch(`${url}/metrics`)).text()).includes('avawatch_validator_status{'), 'a first poll');
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

describe('avawatch run: kill -9', () => {
  it('while Slack is down: after a restart with Slack up, every notification arrives, none more than twice', async () => {
    const sim = await startSim();
    const slack = await startSlackReceiver({ wait: ran });
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
      const state = stateFile(project.statePath);
      await ran(() => state.entities() >= 2, 'the baseline of both nodes committed');
      sim.world.setValidators('mainnet', NODE, [completedValidator(period)]);
      await ran(() => slack.attempts >= 1, 'a failed attempt');
      sim.world.setValidators('mainnet', 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu', [completedValidator({ ...period, nodeId: 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu', txHash: 'tx-2' })]);
      await ran(() => state.alerts().some((a) => a.startsWith('NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu')), 'the second change to be queued', 10_000);
      first.child.kill('SIGKILL');
      await new Promise((r) => first!.child.once('exit', r));

      slack.failAll(undefined);
      second = daemon();
      await slack.waitForPosts(1, 15_000);
      // Both may go out as one grouped message: look in the whole body.
      await ran(() => slack.posts.map((p) => JSON.stringify(p.body)).join('\n').includes('GWPcbFJZ'), 'both changes delivered', 20_000);
      // Two more polls, and nothing left in the outbox: a duplicate would be on its way by now.
      const polled = sim.requests.length;
      await ran(() => sim.requests.length >= polled + 2 && state.pending() === 0, 'two more polls and an empty outbox', 15_000);
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
