import { afterEach, expect, it } from 'vitest';
import { OTHERS, startIncidentWorld, type IncidentRun } from '../helpers/incident-world.js';

// Found by the incident fuzzer (test/fuzz/incidents.test.ts): a restart while a network-wide
// incident fires. The baseline's age is unknown until the next sweep, so detection alone cannot
// raise it again; it must still hold while its alerts fire, not resolve, release its three
// alerts one by one and page again at the next sweep.

let run: IncidentRun | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
});

it('a restart while a network-wide incident fires: nothing is said again, its alerts stay held, it resolves with the last of them', async () => {
  run = await startIncidentWorld({ networkSize: 200 });
  await run.minutes(2);
  run.change({ networkDip: { network: 'mainnet', share: 70, uptime: 60 } });
  for (const v of OTHERS) run.change({ validator: { nodeId: v.nodeId, uptimePerformance: 70 } });
  await run.minutes(5);
  for (const posts of run.take()) {
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatch(/^\[FIRING \w+\] avawatch: network-wide on mainnet: validator-health\/uptime for 3 validators/);
  }

  await run.restart();
  await run.minutes(12);
  expect(run.take(), 'nothing while it still fires, across a sweep').toEqual([[], []]);

  run.change({ networkDip: { network: 'mainnet', share: 100, uptime: 99.5 } });
  for (const v of OTHERS) run.change({ validator: { nodeId: v.nodeId, uptimePerformance: 99.5 } });
  await run.minutes(2);
  for (const posts of run.take()) {
    expect(posts.filter((p) => p.startsWith('[FIRING'))).toEqual([]);
    const text = posts.join('\n');
    for (const v of OTHERS) expect(text).toContain(`RESOLVED CRITICAL] validator-health: ${v.name} (${v.nodeId})`);
    expect(text).toMatch(/over: network-wide on mainnet, 3 validators held/);
  }
}, 60_000);
