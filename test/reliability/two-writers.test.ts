import { storedStates } from '../helpers/stored-states.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { composeApp } from '../../src/app/compose.js';
import { loadConfig } from '../../src/config/load.js';
import { activeValidator, completedValidator } from '../../src/sim/samples.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { avawatch } from '../helpers/cli.js';
import { writeProject, type TempProject } from '../helpers/harness.js';
import { postText, startSlackReceiver, type SlackReceiver } from '../helpers/slack-receiver.js';
import { useFakeTime, type FakeTime } from '../helpers/fake-time.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const RULE = 'my-validators';
const period = { nodeId: NODE, txHash: 'CuRrentPeriodTxHashk2iDm8SPW1r8T5nYqFZbd4zA3kGfQw', startTimestamp: 1_716_000_000, endTimestamp: 1_747_536_000 };

describe('two writers on one state file never send the same event twice', () => {
  const sims: SimServer[] = [];
  let slack: SlackReceiver | undefined;
  let project: TempProject | undefined;
  let app: App | undefined;
  let time: FakeTime | undefined;

  afterEach(async () => {
    if (app) await time?.settle(app.stop(), 'the App to stop');
    app = undefined;
    time?.restore();
    time = undefined;
    await Promise.all(sims.splice(0).map((s) => s.close()));
    await slack?.close();
    project?.cleanup();
  });

  it('once --send, in flight while the daemon commits the same transition, drops its copy and evaluates again', async () => {
    // The daemon (on fake time, as are both simulators' delays) reads one simulator; `once`, a
    // process of its own, reads a second one that answers it slowly.
    const t = (time = useFakeTime());
    const [forDaemon, forOnce] = [await startSim(), await startSim()];
    sims.push(forDaemon, forOnce);
    for (const sim of sims) sim.world.setValidators('mainnet', NODE, [activeValidator(period)]);
    slack = await startSlackReceiver({ wait: (check, what, ms) => t.until(check, what, ms === undefined ? {} : { within: ms }) });
    project = writeProject({ dataUrl: forDaemon.url, webhookUrl: slack.webhookUrl, nodeIds: [NODE], every: '1s', timeout: '10s' });
    const onceConfig = project.configFile.replace(/\.yaml$/, '-once.yaml');
    writeFileSync(onceConfig, readFileSync(project.configFile, 'utf8').replace(forDaemon.url, forOnce.url));

    const loaded = loadConfig(project.configFile, {});
    app = composeApp(loaded, { logLevel: 'error', readable: false, clock: t.clock }).app;
    await app.start();
    const a = app;
    await t.until(async () => (await storedStates(a.store, RULE))[NODE], 'the baseline');

    // `once` reads the stored state (active), then waits 3 s for its answer (completed).
    forOnce.world.setValidators('mainnet', NODE, [completedValidator(period)]);
    forOnce.world.faults.push({ status: 200, delayMs: 3_000, trickle: { chunkBytes: 1 << 20, intervalMs: 1 }, pathIncludes: NODE });
    const once = avawatch(['once', '--send', '--json', '-c', onceConfig], { timeoutMs: 30_000 });
    // Both waits on `once` (its start, then its commit and exit) take these paced steps.
    // real wait: `once` is a process of its own, on the wall clock: it starts, reads its answer, commits and exits there.
    const onOnce = { pace: 5, within: 60_000 };
    await t.until(() => forOnce.requests.length > 0, 'once asking the slow simulator', onOnce);
    // Meanwhile the daemon sees the same change, commits and sends it.
    forDaemon.world.setValidators('mainnet', NODE, [completedValidator(period)]);
    await slack.waitForPosts(1, 5_000);

    // Its answer read, `once` commits and exits.
    const result = await t.settle(once, 'once to end', onOnce);
    // The daemon polls twice more with nothing left to send: a duplicate would be sent by now.
    const polled = forDaemon.requests.length;
    await t.until(async () => forDaemon.requests.length >= polled + 2 && (await a.store.outbox('pending')).length === 0, 'two more daemon polls and an empty outbox');
    expect(slack.posts.map((p) => postText(p)).filter((t) => t.includes('validation active → completed'))).toHaveLength(1);
    expect(result.stdout).toBe(''); // its copy was dropped; evaluated again, nothing had changed
    expect(result.stderr).toContain('another process committed this rule meanwhile');
    expect((await a.store.outbox('sent')).length + (await a.store.outbox('pending')).length).toBe(1);
  }, 40_000); // two processes on the wall clock: slower on a loaded machine
});
