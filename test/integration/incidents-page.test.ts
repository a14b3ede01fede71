import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderStatusPage } from '../../src/status/page.js';
import type { StatusSnapshot } from '../../src/status/snapshot.js';
import { FLEET, H1, startIncidentWorld, type IncidentRun } from '../helpers/incident-world.js';

// Issue 40 on the status page, end to end (test/helpers/incident-world.ts): host h1 dies; the
// page shows the network's baseline, the one incident, and each of its validators' alerts still
// firing, held by it; and each validator's chart the network's band.

describe('the status page during an incident (issue 40)', () => {
  let run: IncidentRun;
  let snapshot: StatusSnapshot;
  let page: string;

  beforeAll(async () => {
    run = await startIncidentWorld({ receivers: 1, config: ['history: { sampleEvery: 1m }'] });
    await run.minutes(12);
    for (const v of H1) run.change({ validator: { nodeId: v.nodeId, health: { reachability: 0 } } });
    await run.minutes(13);
    snapshot = await run.app.statusSnapshot();
    page = renderStatusPage(snapshot);
  }, 60_000);

  afterAll(async () => {
    await run?.close();
  });

  it("shows the network's baseline and the one incident of host h1: its scope, your share of stake, its validators", () => {
    expect(snapshot.networks).toHaveLength(1);
    const [mainnet] = snapshot.networks ?? [];
    expect(mainnet).toMatchObject({ network: 'mainnet', stale: undefined });
    expect(mainnet?.count).toBeGreaterThanOrEqual(1000);
    expect(mainnet?.versions[0]?.count).toBeGreaterThan(0);
    expect(mainnet?.incidents.map((i) => [i.scope, i.group, i.ownShare, i.validators])).toEqual([['group', 'host=h1', '63 %', H1.map((v) => v.name)]]);
    const block = page.slice(page.indexOf('<section id="network">'), page.indexOf('</section>', page.indexOf('<section id="network">')));
    expect(block).toMatch(/[\d,]+<\/strong> active validators · swept/);
    expect(block).toContain('your group <code>host=h1</code>');
    expect(block).toContain('5: v1, v2, v3, v4, v5');
  });

  it('lists each of its validators\' alerts as firing, held by the incident; the others are not held', () => {
    const children = snapshot.alerts.filter((a) => a.rule === 'validator-health');
    expect(children.length).toBeGreaterThanOrEqual(5);
    for (const a of children) expect(a.held).toMatch(/^held by incident incident:group:mainnet:host=h1: host h1 on mainnet: 5 validators/);
    expect(snapshot.alerts.find((a) => a.rule === 'avawatch')?.held).toBeUndefined();
    expect(page.match(/<div class="note warning held">held by incident incident:group:mainnet:host=h1/g)?.length).toBe(children.length);
  });

  it("draws the network's band behind each validator's uptime line, from the history the sampler kept", () => {
    const tile = (name: string) => page.slice(page.indexOf(`<strong class="name">${name}</strong>`), page.indexOf('</li>', page.indexOf(`<strong class="name">${name}</strong>`)));
    for (const v of FLEET) {
      expect(tile(v.name)).toContain('<polygon class="band"');
      expect(tile(v.name)).toMatch(/network median [\d.]+%/);
    }
  });
});
