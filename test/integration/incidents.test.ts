import { afterEach, describe, expect, it } from 'vitest';
import type { FLEET} from '../helpers/incident-world.js';
import { H1, OTHERS, startIncidentWorld, type IncidentRun } from '../helpers/incident-world.js';

// Issue 40, end to end: a network of 1,000 validators beside an operator's eight (five on host
// h1), the shipped validator-health and network-baseline rules and the shipped grouping, two
// Slack receivers, on the simulator's clock (test/helpers/incident-world.ts). What each
// receiver reads is what is asserted.

let runs: IncidentRun[] = [];
afterEach(async () => {
  for (const r of runs) await r.close();
  runs = [];
});

async function start(): Promise<IncidentRun> {
  const run = await startIncidentWorld();
  runs.push(run);
  return run;
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
    const firing = (await run.app.store.activeAlerts()).filter((a) => a.state === 'firing');
    expect(firing.filter((a) => a.rule === 'validator-health').map((a) => a.condition)).toHaveLength(3);
    expect((await run.app.store.outbox('muted')).filter((r) => /^held by incident incident:network:mainnet:validator-health\/uptime/.test(r.lastError ?? ''))).toHaveLength(6);

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
    const scopes = new Map((await run.app.store.activeAlerts()).filter((a) => a.rule === 'validator-health' && a.state === 'firing').map((a) => [a.key, (a.condition as { labels: Record<string, string> }).labels['scope']]));
    expect([...new Set(scopes.values())].sort()).toEqual(['group', 'network']);
  }, 60_000);
});
