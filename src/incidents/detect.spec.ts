import { describe, expect, it } from 'vitest';
import { baselineOf, child, fleetInventory, nodeOf } from '../../test/helpers/incidents-world.js';
import type { InventoryValidator } from '../inventory/schema.js';
import { detect, type DetectInput } from './detect.js';
import { groupsOf } from './groups.js';
import type { Baseline, ChildRef, NodeFigures } from './types.js';

const NOW = 10_000_000;
const MIN = 60_000;
const CONFIG = { k: 3, window: 10 * MIN, network: { share: 0.33, tolerance: 5, maxAge: 20 * MIN } };
const SIZE = 100;
const FLEET = 10;
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
/** 70 % of the network dips (network validator i with i % 10 < 7): the fleet's v0..v6. */
const dips = (i: number) => i % 10 < 7;
/** Host h1 carries v5..v9. */
const onDeadHost = (i: number) => i >= 5 && i < FLEET;

function input(baseline: Baseline | undefined, children: ChildRef[], over: Partial<DetectInput> = {}): DetectInput {
  return {
    now: NOW,
    children,
    groups: groupsOf(fleetInventory(FLEET), ['host', 'region', 'provider']),
    baselines: new Map(baseline ? [['mainnet', baseline]] : []),
    fleet: new Map([['mainnet', range(0, FLEET).map(nodeOf)]]),
    stakeOf: () => 2_000,
    config: CONFIG,
    ...over,
  };
}

/** What an operator would read of each incident. */
function verdicts(i: DetectInput) {
  return detect(i).incidents.map((x) => ({ key: x.key, scope: x.scope, validators: x.validators.join(' '), members: x.members.length, networkShare: x.networkShare, ownShare: x.ownShare }));
}

const started = (i: number) => NOW - 5 * MIN + i * 1_000;
const uptime = (is: number[]) => is.map((i) => child(i, 'validator-health/uptime', started(i)));
const deadHost = () => range(5, FLEET).flatMap((i) => [child(i, 'node-health/down', started(i), { severity: 'critical' }), child(i, 'validator-health/reachability', started(i))]);

interface Scenario {
  name: string;
  figures: (i: number) => Partial<NodeFigures>;
  children: ChildRef[];
  expected: ReturnType<typeof verdicts>;
}

const SCENARIOS: Scenario[] = [
  {
    name: '(a) 70 % of the network loses uptime: one network-wide incident, no group',
    figures: (i) => (dips(i) ? { uptime: 60 } : {}),
    children: uptime(range(0, 7)),
    expected: [{ key: 'incident:network:mainnet:validator-health/uptime', scope: 'network', validators: 'v0 v1 v2 v3 v4 v5 v6', members: 7, networkShare: 0.7, ownShare: 0.7 }],
  },
  {
    name: '(b) the host of five validators dies: one incident of host h1',
    figures: (i) => (onDeadHost(i) ? { reach: 0 } : {}),
    children: deadHost(),
    expected: [{ key: 'incident:group:mainnet:host=h1', scope: 'group', validators: 'v5 v6 v7 v8 v9', members: 10, networkShare: 0.05, ownShare: 0.5 }],
  },
  {
    name: '(c) both: two incidents; the dead host\'s uptime, far under the network\'s, stays with the host',
    figures: (i) => (onDeadHost(i) ? { reach: 0, uptime: 20 } : dips(i) ? { uptime: 60 } : {}),
    children: [...uptime(range(0, FLEET)), ...deadHost()],
    expected: [
      { key: 'incident:network:mainnet:validator-health/uptime', scope: 'network', validators: 'v0 v1 v2 v3 v4', members: 5, networkShare: expect.closeTo(0.73) as number, ownShare: 0.5 },
      { key: 'incident:group:mainnet:host=h1', scope: 'group', validators: 'v5 v6 v7 v8 v9', members: 15, networkShare: 0.05, ownShare: 0.5 },
    ],
  },
  {
    name: '(c) both, the dead host\'s uptime within the network\'s dip: its uptime alerts join the network, the rest its host',
    figures: (i) => (onDeadHost(i) ? { reach: 0, uptime: 60 } : dips(i) ? { uptime: 60 } : {}),
    children: [...uptime(range(0, FLEET)), ...deadHost()],
    expected: [
      { key: 'incident:network:mainnet:validator-health/uptime', scope: 'network', validators: 'v0 v1 v2 v3 v4 v5 v6 v7 v8 v9', members: 10, networkShare: expect.closeTo(0.73) as number, ownShare: 1 },
      { key: 'incident:group:mainnet:host=h1', scope: 'group', validators: 'v5 v6 v7 v8 v9', members: 10, networkShare: 0.05, ownShare: 0.5 },
    ],
  },
];

describe('detect: one verdict per incident', () => {
  it.each(SCENARIOS)('$name', ({ figures, children, expected }) => {
    expect(verdicts(input(baselineOf(SIZE, figures, { at: NOW - MIN }), children))).toEqual(expected);
  });

  it('gives each child the scope of the incident that claims it, and "validator" to the rest', () => {
    const figures = (i: number) => (onDeadHost(i) ? { reach: 0, uptime: 20 } : dips(i) ? { uptime: 60 } : {});
    const alone = child(0, 'node-health/down', started(0));
    const d = detect(input(baselineOf(SIZE, figures, { at: NOW - MIN }), [...uptime(range(0, FLEET)), ...deadHost(), alone]));
    expect(d.scopeOf(child(1, 'validator-health/uptime', 0))).toBe('network');
    expect(d.scopeOf(child(7, 'validator-health/uptime', 0))).toBe('group');
    expect(d.incidentOf(child(7, 'node-health/down', 0))?.group).toBe('host=h1');
    expect(d.scopeOf(alone)).toBe('validator');
  });

  it.each([
    ['partial', { at: NOW - MIN, complete: false }],
    ['stale (older than maxAge)', { at: NOW - 21 * MIN }],
    ['from the future by more than maxAge (a clock that stepped)', { at: NOW + 21 * MIN }],
  ])('a %s baseline gives no network verdict: each validator is judged alone or by its group', (_, opts) => {
    const d = detect(input(baselineOf(SIZE, (i) => (dips(i) ? { uptime: 60 } : {}), opts), uptime(range(0, 7))));
    expect(d.incidents.map((x) => x.key)).toEqual(['incident:group:mainnet:host=h0']);
    expect(d.scopeOf(child(6, 'validator-health/uptime', 0))).toBe('validator');
  });

  it('no baseline at all: no network verdict', () => {
    expect(verdicts(input(undefined, uptime([5, 6])))).toEqual([]);
  });

  it('a dip of less than `share` of the network\'s stake is no network incident', () => {
    const baseline = baselineOf(SIZE, (i) => (i % 10 < 3 ? { uptime: 60 } : {}), { at: NOW - MIN });
    expect(verdicts(input(baseline, uptime([0, 1])))).toEqual([]);
  });

  it('benched is bad when high: a validator benched far more than the network\'s p90 is not in the network\'s incident', () => {
    const baseline = baselineOf(SIZE, (i) => (i === 4 ? { benched: 90 } : dips(i) ? { benched: 40 } : {}), { at: NOW - MIN });
    const children = [0, 1, 4].map((i) => child(i, 'validator-health/benched', started(i)));
    expect(detect(input(baseline, children)).incidents.map((x) => [x.key, x.validators.join(' ')])).toEqual([['incident:network:mainnet:validator-health/benched', 'v0 v1']]);
  });
});

describe('detect: fleet groups', () => {
  const down = (is: number[], since: (i: number) => number = started) => is.map((i) => child(i, 'node-health/down', since(i)));

  it('k validators of a group within the window: one incident; fewer, or spread wider than the window: none', () => {
    expect(verdicts(input(undefined, down([5, 6, 7]))).map((v) => v.key)).toEqual(['incident:group:mainnet:host=h1']);
    expect(verdicts(input(undefined, down([5, 6])))).toEqual([]);
    expect(verdicts(input(undefined, down([5, 6, 7], (i) => NOW - i * 6 * MIN)))).toEqual([]);
  });

  it('a group smaller than k is one incident when all of it is bad', () => {
    const inventory = fleetInventory(FLEET).map((v, i): InventoryValidator => ({ ...v, labels: i < 2 ? { host: 'pair' } : {} }));
    expect(verdicts(input(undefined, down([0, 1]), { groups: groupsOf(inventory, ['host']) })).map((v) => [v.key, v.validators])).toEqual([['incident:group:mainnet:host=pair', 'v0 v1']]);
  });

  it('a label on one validator only is no group: its news stays its own', () => {
    const inventory = fleetInventory(FLEET).map((v, i): InventoryValidator => ({ ...v, labels: i === 0 ? { host: 'solo' } : {} }));
    const d = detect(input(undefined, down([0]), { groups: groupsOf(inventory, ['host']), config: { ...CONFIG, k: 2 } }));
    expect(d.incidents).toEqual([]);
    expect(d.scopeOf(child(0, 'node-health/down', 0))).toBe('validator');
  });

  it('the most specific group claims a child: a region is raised only for what its hosts did not claim', () => {
    // Region r0 is v0 and v5; provider p0 is v0 v3 v6 v9.
    expect(verdicts(input(undefined, down(range(5, 10)))).map((v) => v.key)).toEqual(['incident:group:mainnet:host=h1']);
    const d = detect(input(undefined, down([0, 3, 6, 9]), { config: { ...CONFIG, k: 3 } }));
    expect(d.incidents.map((x) => [x.key, x.validators.join(' ')])).toEqual([['incident:group:mainnet:provider=p0', 'v0 v3 v6 v9']]);
  });

  it('a condition still inside its `for` is no incident yet: a blip of five pages no one', () => {
    expect(verdicts(input(undefined, down([5, 6, 7, 8, 9]).map((c) => ({ ...c, state: 'pending' as const }))))).toEqual([]);
  });

  it('info is news, not trouble: it forms no incident', () => {
    expect(verdicts(input(undefined, down([5, 6, 7]).map((c) => ({ ...c, severity: 'info' as const }))))).toEqual([]);
  });

  it('testnet and fuji are one network: one group, one key', () => {
    const inventory = fleetInventory(FLEET, 'fuji').map((v, i) => (i === 6 ? { ...v, network: 'testnet' as const } : v));
    const children = down([5, 6, 7]).map((c, n) => ({ ...c, network: n === 1 ? 'testnet' : 'fuji' }));
    const d = detect(input(undefined, children, { groups: groupsOf(inventory, ['host']), fleet: new Map([['fuji', range(0, FLEET).map(nodeOf)]]) }));
    expect(d.incidents.map((x) => [x.key, x.validators.join(' '), x.ownShare])).toEqual([['incident:group:fuji:host=h1', 'v5 v6 v7', 0.3]]);
  });

  it('keys and member order do not depend on the order alerts come in', () => {
    const figures = (i: number) => (onDeadHost(i) ? { reach: 0, uptime: 20 } : dips(i) ? { uptime: 60 } : {});
    const children = [...uptime(range(0, FLEET)), ...deadHost()];
    const shape = (cs: ChildRef[]) => detect(input(baselineOf(SIZE, figures, { at: NOW - MIN }), cs)).incidents.map((x) => [x.key, x.members.map((m) => `${m.rule}/${m.key}`)]);
    expect(shape([...children].reverse())).toEqual(shape(children));
  });

  it('an incident is as severe as its worst child', () => {
    const cs = down([5, 6, 7]);
    cs[1] = { ...(cs[1] as ChildRef), severity: 'critical' };
    expect(detect(input(undefined, cs)).incidents.map((x) => x.severity)).toEqual(['critical']);
    expect(detect(input(undefined, down([5, 6, 7]))).incidents.map((x) => x.severity)).toEqual(['warning']);
  });
});
