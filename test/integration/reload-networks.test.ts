import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { activeValidator } from '../../src/sim/samples.js';
import { startDaemon, type Daemon } from '../helpers/daemon.js';
import { postText } from '../helpers/slack-receiver.js';

// A rule without network: over an inventory that gains or loses its second network at a
// reload: it splits (or joins) by network, and no receiver hears a surprise "no longer watched".
// On the daemon fixture's fake time (test/helpers/daemon.ts): real loopback, no wall-clock wait.

const ALPHA = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const CHARLIE = 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu';
const alpha = `  - {name: alpha, nodeId: ${ALPHA}}\n`;
const charlie = `  - {name: charlie, nodeId: ${CHARLIE}, network: fuji}\n`;

describe('a reload that adds or removes a network of the inventory', () => {
  let d: (Daemon & { stop(): Promise<void> }) | undefined;
  afterEach(async () => {
    await d?.stop();
    d = undefined;
  });

  const inventory = (entries: string) => writeFileSync(join(d!.project.dir, 'inventory.yaml'), `validators:\n${entries}`);
  const active = async (daemon: App, rule: string) => (await daemon.store.loadActive(rule)).map((r) => r.key);

  /** The daemon on the fixture's fake time over these inventory entries, once it posted `posts` times. */
  async function start(entries: string, posts: number): Promise<App> {
    d = await startDaemon({
      logLevel: 'error',
      project: ({ dataUrl, webhookUrl, statePath }) => ({
        'avawatch.yaml': `api: {dataUrl: "${dataUrl}", metricsUrl: "${dataUrl}", retries: 0}
state: {path: "${statePath}"}
server: {listen: "127.0.0.1:0"}
route: {receivers: [slack]}
receivers: [{name: slack, type: slack, webhookUrl: "${webhookUrl}"}]
validatorsFile: inventory.yaml
ruleFiles: [rules.yaml]
`,
        'inventory.yaml': `validators:\n${entries}`,
        'rules.yaml': 'rules:\n  - {name: ending, kind: validation-end, every: 1s, severity: critical, validators: all}\n',
      }),
      before: ({ sim }) => {
        const now = sim.world.clock.now();
        // Both validations end in 5 days: validation-end fires for each.
        sim.world.setValidators('mainnet', ALPHA, [activeValidator({ nodeId: ALPHA, txHash: 'tx-alpha', startTimestamp: now - 86_400, endTimestamp: now + 5 * 86_400 })]);
        sim.world.setValidators('fuji', CHARLIE, [activeValidator({ nodeId: CHARLIE, txHash: 'tx-charlie', startTimestamp: now - 86_400, endTimestamp: now + 5 * 86_400 })]);
      },
    });
    await d.slack.waitForPosts(posts);
    return d.app;
  }
  const reload = (daemon: App) => d!.settle(daemon.reload('test'), 'the reload');
  const waitForPosts = (n: number) => d!.slack.waitForPosts(n);

  it('a Fuji validator added to a Mainnet fleet: the rule keeps its name and its alert, the Fuji part fires on its own', async () => {
    const daemon = await start(alpha, 1);
    inventory(alpha + charlie);
    expect(await reload(daemon)).toBe(true);
    const posts = await waitForPosts(2);
    expect(postText(posts[1]!)).toContain(`charlie (${CHARLIE})`);
    expect(posts.map(postText).join('\n')).not.toContain('no longer');
    expect(await active(daemon, 'ending')).toEqual([expect.stringContaining(ALPHA)]);
    expect(await active(daemon, 'ending@fuji')).toEqual([expect.stringContaining(CHARLIE)]);
  });

  it('a Mainnet validator added to a Fuji fleet: the Fuji alert moves to ending@fuji, said as a move, never "no longer watched"', async () => {
    const daemon = await start(charlie, 1);
    expect(await active(daemon, 'ending')).toEqual([expect.stringContaining(CHARLIE)]);
    inventory(charlie + alpha);
    expect(await reload(daemon)).toBe(true);
    expect(await active(daemon, 'ending@fuji')).toEqual([expect.stringContaining(CHARLIE)]);
    const posts = await waitForPosts(3);
    const text = posts.slice(1).map(postText).join('\n');
    expect(text).not.toContain('no longer');
    expect(text).toContain('moved from rule ending');
    expect(await active(daemon, 'ending')).toEqual([expect.stringContaining(ALPHA)]);
  });

  it('the last Fuji validator removed: its alert ends as removed from the inventory, not as a rule removed', async () => {
    const daemon = await start(alpha + charlie, 2);
    inventory(alpha);
    expect(await reload(daemon)).toBe(true);
    const posts = await waitForPosts(3);
    expect(postText(posts[2]!)).toContain(`charlie (${CHARLIE}) is no longer watched: removed from the inventory`);
    expect(await active(daemon, 'ending')).toEqual([expect.stringContaining(ALPHA)]);
  });
});
