import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { composeApp } from '../../src/app/compose.js';
import { GROUPING } from '../../src/commands/init.js';
import { loadConfig } from '../../src/config/load.js';
import { periodMs } from '../../src/base/schedule.js';
import { SimClock } from '../../src/sim/clock.js';
import { applyChange, worldChange } from '../../src/sim/scenario.js';
import { startSim } from '../../src/sim/server.js';
import { World } from '../../src/sim/world.js';
import { testNodeId } from '../helpers/node-ids.js';
import { startSlackReceiver, type SlackReceiver } from '../helpers/slack-receiver.js';

// Issue 40, end to end: a network of 1,000 validators beside an operator's eight (five on host
// h1), the shipped validator-health and network-baseline rules and the shipped grouping, two
// Slack receivers, on the simulator's clock. What each receiver reads is what is asserted.

const START = Date.parse('2026-03-01T00:00:00Z');
const MINUTE = 60_000;
const FLEET = Array.from({ length: 8 }, (_, i) => ({ name: `v${i + 1}`, nodeId: testNodeId(`incident-${i}`), host: i < 5 ? 'h1' : `h${i - 3}` }));
const H1 = FLEET.slice(0, 5);
const OTHERS = FLEET.slice(5);

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

interface Run {
  app: App;
  receivers: SlackReceiver[];
  change(c: unknown): void;
  /** Each receiver's posts since the last call, as text. */
  take(): string[][];
  minutes(n: number): Promise<void>;
  /** A new daemon process on the same state file. */
  restart(): Promise<void>;
}

async function start(): Promise<Run> {
  const world = new World(new SimClock(START, 0));
  const change = (c: unknown) => applyChange(world, worldChange.parse(c), START);
  change({
    bulkNetwork: { network: 'mainnet', validators: 1000 },
    validations: FLEET.map((v) => ({ nodeId: v.nodeId, txHash: `tx-${v.name}`, start: '-100d', end: '+200d', status: 'active', uptimePerformance: 99.5, version: 'avalanche/1.14.1' })),
  });
  const sim = await startSim({ world, budget: { data: { perMinute: 1e9, perDay: 1e12 }, metrics: { perMinute: 1e9, perDay: 1e12 } } });
  const receivers = [await startSlackReceiver(), await startSlackReceiver()];
  const dir = mkdtempSync(join(tmpdir(), 'avawatch-incidents-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }), () => sim.close(), ...receivers.map((r) => () => r.close()));
  const rules = ['validator-health.yaml', 'network-baseline.yaml'].map((f) => JSON.stringify(resolve('rules', f)));
  writeFileSync(
    join(dir, 'avawatch.yaml'),
    [
      'validators:',
      ...FLEET.map((v) => `  - { name: ${v.name}, nodeId: ${v.nodeId}, network: mainnet, labels: { host: ${v.host} } }`),
      `api: { dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0, timeout: 5s, budget: { perMinute: 1000000000, perDay: 1000000000000 } }`,
      `state: { path: ${JSON.stringify(join(dir, 'state.db'))} }`,
      'receivers:',
      ...receivers.map((r, i) => `  - { name: slack-${i}, type: slack, webhookUrl: "${r.webhookUrl}", minInterval: 0s }`),
      'route:',
      '  receivers: [slack-0, slack-1]',
      ...GROUPING,
      `ruleFiles: [${rules.join(', ')}]`,
      '',
    ].join('\n'),
  );
  const loaded = loadConfig(join(dir, 'avawatch.yaml'), {});
  const make = () => composeApp(loaded, { logLevel: 'silent', readable: false, clock: world.clock.asClock() }).app;
  let app = make();
  cleanup.push(() => app.stop());
  const seen = receivers.map(() => 0);
  return {
    get app() {
      return app;
    },
    restart: async () => {
      await app.stop();
      app = make();
    },
    receivers,
    change,
    take: () =>
      receivers.map((r, i) => {
        const posts = r.posts.slice(seen[i]).map((p) => `${p.body.text}\n${JSON.stringify(p.body.blocks)}`);
        seen[i] = r.posts.length;
        return posts;
      }),
    minutes: async (n) => {
      for (let i = 0; i < n; i++) {
        const m = Math.round((world.clock.nowMs() - START) / MINUTE);
        const due = loaded.rules.filter((r) => m % Math.round((periodMs(r.schedule) ?? MINUTE) / MINUTE) === 0).map((r) => r.name);
        const { failures } = await app.once(due);
        expect(failures.map((f) => `${f.rule}: ${String(f.error)}`)).toEqual([]);
        await app.delivery.drain(0);
        world.clock.advance(MINUTE);
      }
    },
  };
}

const dip = (share: number, uptime: number) => ({ networkDip: { network: 'mainnet', share, uptime } });
const own = (list: typeof FLEET, figures: Record<string, unknown>) => list.map((v) => ({ validator: { nodeId: v.nodeId, ...figures } }));

describe('one verdict per incident (issue 40)', () => {
  it('(a) 70% of the network loses uptime for 20 minutes: each receiver gets one network-wide notification with the share of stake, and every resolution', async () => {
    const run = await start();
    await run.minutes(12);
    expect(run.take()).toEqual([[], []]);

    // The network dips, and so do three of the operator's validators.
    run.change(dip(70, 70));
    for (const c of own(OTHERS, { uptimePerformance: 70 })) run.change(c);
    await run.minutes(3);
    for (const posts of run.take()) {
      expect(posts, 'one notification, the incident').toHaveLength(1);
      expect(posts[0]).toMatch(/network-wide on mainnet: validator-health\/uptime for 3 validators — 38 % of your stake, 70 % of the network's/);
      expect(posts[0]).toMatch(/v6, v7, v8/);
    }
    // Held, not lost: the page and history still have each child firing.
    const firing = run.app.store.activeAlerts().filter((a) => a.state === 'firing');
    expect(firing.filter((a) => a.rule === 'validator-health').map((a) => a.condition)).toHaveLength(3);
    expect(run.app.store.outbox('muted').filter((r) => /^held by incident incident:network:mainnet:validator-health\/uptime/.test(r.lastError ?? ''))).toHaveLength(6);

    await run.minutes(17);
    expect(run.take()).toEqual([[], []]);
    run.change(dip(100, 99.5));
    for (const c of own(OTHERS, { uptimePerformance: 99.5 })) run.change(c);
    await run.minutes(2);
    for (const posts of run.take()) {
      const text = posts.join('\n---\n');
      // Each child's resolution, and the incident's.
      for (const v of OTHERS) expect(text).toContain(`${v.name} (${v.nodeId})`);
      expect(text).toMatch(/over: network-wide on mainnet, 3 validators held/);
      expect(text).not.toMatch(/Still firing/);
    }
  }, 60_000);

  it('(b) one host carrying five validators dies: one "host h1: 5 validators" incident per receiver, then each resolution', async () => {
    const run = await start();
    await run.minutes(2);
    for (const c of own(H1, { health: { reachability: 0 } })) run.change(c);
    await run.minutes(13);
    for (const posts of run.take()) {
      expect(posts).toHaveLength(1);
      expect(posts[0]).toMatch(/host h1 on mainnet: 5 validators — 63 % of your stake/);
      expect(posts[0]).toMatch(/v1, v2, v3, v4, v5/);
    }
    // A restart while it fires: nothing is said again, and the incident still holds its alerts back.
    await run.restart();
    await run.minutes(3);
    expect(run.take()).toEqual([[], []]);
    for (const c of own(H1, { health: { reachability: 100 } })) run.change(c);
    await run.minutes(2);
    for (const posts of run.take()) {
      const text = posts.join('\n---\n');
      for (const v of H1) expect(text).toContain(`${v.name} (${v.nodeId})`);
      expect(text).toMatch(/over: host h1 on mainnet, 5 validators held/);
    }
  }, 60_000);

  it('(c) both at once: two incidents, separately; the dead host stays its own', async () => {
    const run = await start();
    await run.minutes(2);
    for (const c of own(H1, { health: { reachability: 0 }, uptimePerformance: 30 })) run.change(c);
    await run.minutes(8);
    run.change(dip(70, 70));
    for (const c of own(OTHERS, { uptimePerformance: 70 })) run.change(c);
    await run.minutes(5);
    for (const posts of run.take()) {
      const text = posts.map((p) => p.split('\n')[0]).join('\n---\n');
      expect(text.match(/network-wide on mainnet: validator-health\/uptime for 3 validators/g), text).toHaveLength(1);
      expect(text.match(/host h1 on mainnet: 5 validators/g)).toHaveLength(1);
      // No child alone: every notification is one of the two incidents.
      expect(posts.every((p) => /network-wide on mainnet|host h1 on mainnet/.test(p))).toBe(true);
    }
    const scopes = new Map(run.app.store.activeAlerts().filter((a) => a.rule === 'validator-health' && a.state === 'firing').map((a) => [a.key, (a.condition as { labels: Record<string, string> }).labels['scope']]));
    expect([...new Set(scopes.values())].sort()).toEqual(['group', 'network']);
  }, 60_000);
});
