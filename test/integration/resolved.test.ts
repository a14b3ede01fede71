import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { composeApp } from '../../src/app/compose.js';
import { loadConfig } from '../../src/config/load.js';
import { activeValidator, pendingValidator } from '../../src/sim/samples.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { useFakeTime, type FakeTime } from '../helpers/fake-time.js';
import { postFacts, startSlackReceiver, type SlackReceiver } from '../helpers/slack-receiver.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const OTHER = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';

// Through the whole daemon and a real receiver per route: what a person reads when an uptime
// alert resolves, and where good news goes. The App runs on fake time (test/helpers/fake-time.ts).
describe('resolved notices state the present; good news is not paged', () => {
  let sim: SimServer;
  let chat: SlackReceiver;
  let pager: SlackReceiver;
  let dir: string;
  let app: App;
  let time: FakeTime;

  beforeAll(async () => {
    time = useFakeTime();
    const wait = { wait: <T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string, ms?: number) => time.until(check, what, ms === undefined ? {} : { within: ms }) };
    sim = await startSim();
    chat = await startSlackReceiver(wait);
    pager = await startSlackReceiver(wait);
    dir = mkdtempSync(join(tmpdir(), 'avawatch-resolved-'));
    const now = sim.world.clock.now();
    const period = { nodeId: NODE, txHash: 'p1', startTimestamp: now - 86_400, endTimestamp: now + 200 * 86_400 };
    sim.world.setValidators('mainnet', NODE, [activeValidator({ ...period, uptimePerformance: 93.5 })]);
    const next = { nodeId: OTHER, txHash: 'p2', startTimestamp: now + 60, endTimestamp: now + 200 * 86_400 };
    sim.world.setValidators('mainnet', OTHER, [pendingValidator(next)]);
    const config = join(dir, 'avawatch.yaml');
    writeFileSync(
      config,
      `api: {dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0, budget: {perMinute: 100000000, perDay: 10000000000}}  # polled every second: no plan allows that
state: {path: "${join(dir, 'state.db')}"}
server: {listen: "127.0.0.1:0"}
route:
  receivers: [chat]
  groupWait: 0s
  routes: [{match: {severity: critical}, receivers: [pager]}]
receivers:
  - {name: chat, type: slack, webhookUrl: "${chat.webhookUrl}", minInterval: 10ms}
  - {name: pager, type: slack, webhookUrl: "${pager.webhookUrl}", minInterval: 10ms}
ruleFiles: [rules.yaml]
`,
    );
    writeFileSync(
      join(dir, 'rules.yaml'),
      `rules:
  - {name: health, kind: validator-health, every: 1s, severity: critical, network: mainnet, nodeIds: [${NODE}], uptime: {warning: 95}}
  - {name: status, kind: validator-status, every: 1s, severity: critical, network: mainnet, nodeIds: [${OTHER}]}
`,
    );
    app = composeApp(loadConfig(config, {}), { logLevel: 'error', readable: false, clock: time.clock }).app;
    await app.start();
    await chat.waitForPosts(1); // the uptime warning: under the rule's 95% band
    // Both rules have their baseline before the world changes: else the status rule's first
    // poll may already see the new period (a baseline, silent) on a loaded machine.
    await time.until(() => app.readiness().ready, 'every rule evaluated once');
    sim.world.setValidators('mainnet', NODE, [activeValidator({ ...period, uptimePerformance: 97.2 })]);
    sim.world.setValidators('mainnet', OTHER, [activeValidator(next)]);
    const seen = (r: SlackReceiver, word: string) => r.posts.some((p) => p.body.text.startsWith(`[${word}`));
    await time.until(() => seen(chat, 'RESOLVED') && (seen(chat, 'EVENT') || seen(pager, 'EVENT')), 'the resolution and the event');
  });

  afterAll(async () => {
    await time.settle(app.stop(), 'the App to stop');
    time.restore();
    await sim.close();
    await chat.close();
    await pager.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a resolved uptime notice shows the uptime now, and the one it fired with only under "When it fired"', () => {
    const resolved = chat.posts.find((p) => p.body.text.startsWith('[RESOLVED'));
    // A day into a 201-day validation at 97.2%, 90% needed: 0.972 + 200 − 180.9 ≈ 20.07 days it can still be down.
    expect(resolved?.body.text).toMatch(new RegExp(`^\\[RESOLVED WARNING\\] health: ${NODE} uptime is back at 97\\.2% \\(above 96%\\); it can be down 20d [12]h more and still be paid$`));
    const facts = postFacts(resolved!);
    expect(facts['Uptime']).toBe("97.2% (the service's own node's view)");
    expect(facts['Margin']).toBe('+7.2 points');
    expect(facts['When it fired: Uptime']).toBe("93.5% (the service's own node's view; each validator votes on what it saw)");
  });

  it('pending → active goes at info to the chat receiver, never to the receiver routed for critical', () => {
    expect(chat.posts.map((p) => p.body.text)).toContain(`[EVENT INFO] status: ${OTHER} validation pending → active`);
    expect(pager.posts.map((p) => p.body.text)).toEqual([]);
  });
});
