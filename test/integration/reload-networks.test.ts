import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { composeApp } from '../../src/app/compose.js';
import { loadConfig } from '../../src/config/load.js';
import { activeValidator } from '../../src/sim/samples.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { postText, startSlackReceiver, type SlackReceiver } from '../helpers/slack-receiver.js';

// A rule without network: over an inventory that gains or loses its second network at a
// reload: it splits (or joins) by network, and no receiver hears a surprise "no longer watched".

const ALPHA = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const CHARLIE = 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu';
const alpha = `  - {name: alpha, nodeId: ${ALPHA}}\n`;
const charlie = `  - {name: charlie, nodeId: ${CHARLIE}, network: fuji}\n`;

describe('a reload that adds or removes a network of the inventory', () => {
  let sim: SimServer;
  let slack: SlackReceiver;
  let dir: string;
  let app: App | undefined;

  beforeEach(async () => {
    [sim, slack] = await Promise.all([startSim(), startSlackReceiver()]);
    dir = mkdtempSync(join(tmpdir(), 'avawatch-reload-networks-'));
    const now = sim.world.clock.now();
    // Both validations end in 5 days: validation-end fires for each.
    sim.world.setValidators('mainnet', ALPHA, [activeValidator({ nodeId: ALPHA, txHash: 'tx-alpha', startTimestamp: now - 86_400, endTimestamp: now + 5 * 86_400 })]);
    sim.world.setValidators('fuji', CHARLIE, [activeValidator({ nodeId: CHARLIE, txHash: 'tx-charlie', startTimestamp: now - 86_400, endTimestamp: now + 5 * 86_400 })]);
  });
  afterEach(async () => {
    await app?.stop();
    app = undefined;
    await Promise.all([sim.close(), slack.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const inventory = (entries: string) => writeFileSync(join(dir, 'inventory.yaml'), `validators:\n${entries}`);
  const active = async (daemon: App, rule: string) => (await daemon.store.loadActive(rule)).map((r) => r.key);

  async function start(entries: string, posts: number): Promise<App> {
    const config = join(dir, 'avawatch.yaml');
    inventory(entries);
    writeFileSync(
      config,
      `api: {dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0}
state: {path: "${join(dir, 'state.db')}"}
server: {listen: "127.0.0.1:0"}
route: {receivers: [slack]}
receivers: [{name: slack, type: slack, webhookUrl: "${slack.webhookUrl}"}]
validatorsFile: inventory.yaml
ruleFiles: [rules.yaml]
`,
    );
    writeFileSync(join(dir, 'rules.yaml'), 'rules:\n  - {name: ending, kind: validation-end, every: 1s, severity: critical, validators: all}\n');
    app = composeApp(loadConfig(config, {}), { logLevel: 'error', readable: false }).app;
    await app.start();
    await slack.waitForPosts(posts);
    return app;
  }

  it('a Fuji validator added to a Mainnet fleet: the rule keeps its name and its alert, the Fuji part fires on its own', async () => {
    const daemon = await start(alpha, 1);
    inventory(alpha + charlie);
    expect(await daemon.reload('test')).toBe(true);
    const posts = await slack.waitForPosts(2);
    expect(postText(posts[1]!)).toContain(`charlie (${CHARLIE})`);
    expect(posts.map(postText).join('\n')).not.toContain('no longer');
    expect(await active(daemon, 'ending')).toEqual([expect.stringContaining(ALPHA)]);
    expect(await active(daemon, 'ending@fuji')).toEqual([expect.stringContaining(CHARLIE)]);
  }, 30_000);

  it('a Mainnet validator added to a Fuji fleet: the Fuji alert moves to ending@fuji, said as a move, never "no longer watched"', async () => {
    const daemon = await start(charlie, 1);
    expect(await active(daemon, 'ending')).toEqual([expect.stringContaining(CHARLIE)]);
    inventory(charlie + alpha);
    expect(await daemon.reload('test')).toBe(true);
    expect(await active(daemon, 'ending@fuji')).toEqual([expect.stringContaining(CHARLIE)]);
    const posts = await slack.waitForPosts(3);
    const text = posts.slice(1).map(postText).join('\n');
    expect(text).not.toContain('no longer');
    expect(text).toContain('moved from rule ending');
    expect(await active(daemon, 'ending')).toEqual([expect.stringContaining(ALPHA)]);
  }, 30_000);

  it('the last Fuji validator removed: its alert ends as removed from the inventory, not as a rule removed', async () => {
    const daemon = await start(alpha + charlie, 2);
    inventory(alpha);
    expect(await daemon.reload('test')).toBe(true);
    const posts = await slack.waitForPosts(3);
    expect(postText(posts[2]!)).toContain(`charlie (${CHARLIE}) is no longer watched: removed from the inventory`);
    expect(await active(daemon, 'ending')).toEqual([expect.stringContaining(ALPHA)]);
  }, 30_000);
});
