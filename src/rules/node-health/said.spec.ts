import { describe, expect, it } from 'vitest';
import { NodeApiError, type HealthReport } from '../../api/node-api.js';
import type { Seen } from '../validators.js';
import { nodeHealth } from './index.js';
import type { Observation } from './observe.js';
import type { State } from './schema.js';
import { at, BLS, down, listed, NODE, of, one, OTHER, reading, run, spec, URL_A, URL_B } from '../../../test/helpers/health-node.js';

// node-health: what the node said, as read (its words quoted and clipped), and edges an
// operator would notice. The checks themselves: index.spec.ts.

describe('node-health: what the node said, as read', () => {
  it('every label an alert carries is declared, and every declared one is used; every gauge sampled is declared with its labels and a help text', () => {
    const failing: HealthReport = { healthy: false, checks: [{ name: 'diskspace', error: 'low', contiguousFailures: 1 }] };
    const steps = run(spec({ minVersion: '1.14.1' }), [
      one(reading({ health: failing, version: { ok: 'avalanchego/1.13.2' }, peers: { ok: 3 }, bootstrapped: { P: { ok: false }, X: { ok: true }, C: { ok: true } }, uptime: { ok: { rewardingStakePercentage: 50, weightedAveragePercentage: 60 } } }), { [NODE]: [listed()] }),
      one(down, { [NODE]: [listed()] }),
    ]);
    const conditions = steps.flatMap((x) => x.conditions ?? []);
    expect(new Set(conditions.flatMap((c) => Object.keys(c.labels)))).toEqual(new Set(nodeHealth.labelNames));
    const details = new Set(conditions.flatMap((c) => Object.keys(c.details)));
    for (const name of nodeHealth.keyDetails ?? []) expect(details.has(name), name).toBe(true);
    const samples = nodeHealth.samples(spec(), steps[0]?.states ?? new Map(), at(0));
    for (const g of samples) {
      const declared = nodeHealth.gauges?.find((d) => d.name === g.metric);
      expect(declared?.labelNames, g.metric).toEqual(['rule', ...Object.keys(g.labels)]);
      expect(declared?.help.length, g.metric).toBeGreaterThan(20);
    }
    expect(new Set(samples.map((g) => g.metric))).toEqual(new Set(nodeHealth.gauges?.map((d) => d.name)));
  });

  it("the node's text cut to size: 64 failing checks at most, names of 120 characters, 64 upgrades; a version that is none is not kept", () => {
    const many: HealthReport = { healthy: false, checks: Array.from({ length: 70 }, (_, i) => ({ name: `check${i}${'n'.repeat(200)}`, error: 'e', contiguousFailures: 1 })) };
    const upgrades = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`u${i}${'x'.repeat(200)}`, 1_900_000_000 + i]));
    const [step] = run(spec(), [one(reading({ health: many, upgrades: { ok: upgrades }, version: { ok: 'banana' } }))]);
    const st = step?.states.get(NODE);
    const names = Object.keys(st?.failing ?? {});
    expect(names).toHaveLength(64);
    expect(names.every((n) => n.length === 120)).toBe(true);
    expect(of(step, 'health')).toHaveLength(64);
    expect(Object.keys(st?.upgrades ?? {})).toHaveLength(64);
    expect(Object.keys(st?.upgrades ?? {}).every((n) => n.length === 120)).toBe(true);
    expect(st?.version).toBeUndefined();
    const [long] = run(spec(), [one(reading({ version: { ok: `avalanchego/1.14.2${'-'.repeat(300)}` } }))]);
    expect(long?.states.get(NODE)?.version).toHaveLength(120);
    const [silent] = run(spec({ outside: false }), [one({ unreachable: 'x'.repeat(2_000) })]);
    expect(silent?.states.get(NODE)?.unreachable).toHaveLength(500);
  });

  it('a NodeID refused again and again is kept (its alert stands); the info API off clears it and its BLS key', () => {
    const refused = { error: new NodeApiError('method not found', 'rpc') };
    const off = { error: new NodeApiError('HTTP 404', 'off') };
    const steps = run(spec(), [one(reading({ identity: { ok: { nodeId: OTHER, blsPublicKey: BLS } } })), one(reading({ identity: refused })), one(reading({ identity: refused })), one(reading({ identity: refused }))]);
    expect(steps.map((x) => x.states.get(NODE)?.nodeId)).toEqual([OTHER, OTHER, OTHER, OTHER]);
    expect(steps.map((x) => x.failed)).toEqual([{}, {}, {}, {}]);
    expect(steps[3]?.states.get(NODE)?.rpcErrors?.['nodeId']).toEqual({ count: 3, error: 'method not found' });
    const gone = run(spec(), [one(reading()), one(reading({ identity: off })), one(reading({ identity: off })), one(reading({ identity: off }))]);
    expect(gone.map((x) => [x.states.get(NODE)?.nodeId, x.states.get(NODE)?.bls])).toEqual([[NODE, BLS], [NODE, BLS], [NODE, BLS], [undefined, undefined]]);
  });

  it('a node that reports no BLS key any more: no key to compare, the key alert resolves', () => {
    const svc = { [NODE]: [listed()] };
    const steps = run(spec(), [one(reading({ identity: { ok: { nodeId: NODE, blsPublicKey: `0x${'ab'.repeat(48)}` } } }), svc), one(reading({ identity: { ok: { nodeId: NODE } } }), svc)]);
    expect(steps[0]?.sent).toHaveLength(1);
    expect(steps[1]?.sent).toEqual([`resolved critical: ${NODE} runs with its validation's BLS key again`]);
    expect(steps[1]?.states.get(NODE)?.bls).toBeUndefined();
  });

  it('a chain the node refuses again and again is not bootstrapped; a refusal between answers starts the count again', () => {
    const refused = { error: new NodeApiError('there is no chain with alias/ID C', 'rpc') };
    const boot = (c: typeof refused | { ok: boolean }) => one(reading({ bootstrapped: { P: { ok: true }, X: { ok: true }, C: c } }));
    const steps = run(spec(), [boot({ ok: true }), boot(refused), boot(refused), boot({ ok: true }), boot(refused), boot(refused), boot(refused)]);
    expect(steps.map((x) => x.states.get(NODE)?.bootstrapped?.['C'])).toEqual([true, true, true, true, true, true, false]);
    expect(steps[6]?.sent).toEqual([`firing -: ${NODE} is not bootstrapped on the C-chain: it does not validate it until it is`]);
    expect(steps[3]?.states.get(NODE)?.rpcErrors).toBeUndefined();
  });

  it('calls that failed fail the node naming the first three; their figures are kept', () => {
    const failed = (m: string) => ({ error: new NodeApiError(m, 'unreachable') });
    const steps = run(spec(), [one(reading()), one(reading({ identity: failed('a'), version: failed('b'), uptime: failed('c'), upgrades: failed('d') }))]);
    expect(steps[1]?.failed).toEqual({ [NODE]: 'a; b; c' });
    expect(steps[1]?.states.get(NODE)).toMatchObject({ nodeId: NODE, version: 'avalanchego/1.14.2', rewardingStake: 100, upgrades: expect.objectContaining({ helicon: 1_790_089_200 }) });
    expect(steps[1]?.states.get(NODE)?.rpcErrors).toBeUndefined();
  });

  it('the info API off for long: its figures go, and the upgrade schedule with them; uptime refusals clear the stake', () => {
    const off = { error: new NodeApiError('HTTP 404', 'off') };
    const infoOff = reading({ identity: off, version: off, uptime: off, upgrades: off, bootstrapped: { P: off, X: off, C: off } });
    const steps = run(spec(), [one(reading()), one(infoOff), one(infoOff), one(infoOff)]);
    expect(steps.map((x) => x.states.get(NODE)?.off)).toEqual([undefined, ['info'], ['info'], ['info']]);
    expect(steps[2]?.states.get(NODE)).toMatchObject({ version: 'avalanchego/1.14.2', rewardingStake: 100, weightedAverage: 99.5 });
    const last = steps[3]?.states.get(NODE);
    expect([last?.version, last?.rewardingStake, last?.weightedAverage, last?.upgrades, last?.nodeId]).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(steps[3]?.states.get(NODE)?.rpcErrors?.['uptime']).toEqual({ count: 3, error: 'HTTP 404' });
    const both = run(spec(), [one(reading({ health: 'off', identity: off }))]);
    expect(both[0]?.states.get(NODE)?.off).toEqual(['health', 'info']);
  });

  it('an uptime answer with a figure out of 0..100 keeps that figure\'s last value, reads the other', () => {
    const uptime = (r: number, w: number) => one(reading({ uptime: { ok: { rewardingStakePercentage: r, weightedAveragePercentage: w } } }));
    const steps = run(spec(), [uptime(95, 99), uptime(94, 150), uptime(-1, 98)]);
    expect(steps.map((x) => [x.states.get(NODE)?.rewardingStake, x.states.get(NODE)?.weightedAverage])).toEqual([
      [95, 99],
      [94, 99],
      [94, 98],
    ]);
  });

  it('a figure the node gives again after refusals is read again, its count gone', () => {
    const refused = { error: new NodeApiError('not a validator', 'rpc') };
    const steps = run(spec(), [one(reading({ uptime: refused })), one(reading())]);
    expect(steps[0]?.states.get(NODE)?.rpcErrors).toEqual({ uptime: { count: 1, error: 'not a validator' } });
    expect(steps[1]?.states.get(NODE)?.rpcErrors).toBeUndefined();
  });

  it('the service not listing a node it was asked for is blind for that node, never "the network does not see it"', () => {
    const s = spec({ urls: { [NODE]: URL_A, [OTHER]: URL_B } });
    const o = (service: Map<string, Seen>): Observation => ({ nodes: { [NODE]: reading(), [OTHER]: down }, service });
    const first = nodeHealth.evaluate(new Map(), o(new Map([[NODE, [listed()]]])), at(0), s);
    expect(of(first, 'api').map((c) => [c.subject, c.severity, c.details['The network']])).toEqual([[OTHER, 'warning', 'unknown: the data service did not answer either']]);
    const failed = nodeHealth.evaluate(new Map(), o(new Map<string, Seen>([[NODE, [listed()]], [OTHER, { failed: 'timeout' }]])), at(0), s);
    expect(of(failed, 'api').map((c) => c.details['The network'])).toEqual(['unknown: the data service did not answer either']);
  });

  it('listed nowhere, as when last seen: no active validation, the silent API is the node down', () => {
    const steps = run(spec(), [one(reading(), { [NODE]: 'unchanged' }), one(down, { [NODE]: 'unchanged' })]);
    expect(steps[1]?.sent).toEqual([`firing critical: ${NODE} is down: its API at 10.0.0.5:9650 does not answer (ECONNREFUSED) and the service lists no active validation of it`]);
    expect(steps[1]?.states.get(NODE)?.outside).toEqual({ active: false });
  });

  it('not found by the service: the period last read is kept, the node marked missing', () => {
    const steps = run(spec(), [one(reading(), { [NODE]: [listed()] }), one(reading(), { [NODE]: 'not-found' }), one(reading(), { [NODE]: [] })]);
    expect(steps[1]?.states.get(NODE)).toMatchObject({ period: steps[0]?.states.get(NODE)?.period, missing: true, outside: { active: false } });
    expect(steps[0]?.states.get(NODE)?.missing).toBe(false);
    expect(steps[2]?.states.get(NODE)?.period).toEqual(steps[0]?.states.get(NODE)?.period);
    expect(run(spec(), [one(reading(), { [NODE]: 'not-found' })])[0]?.states.get(NODE)?.period).toBeNull();
  });
});

describe('node-health: edges an operator would notice', () => {
  it('listed active with no figures: the silent API is a warning that says just that', () => {
    const { uptimePerformance: _u, validatorHealth: _h, ...bare } = listed();
    const svc = { [NODE]: [bare as ReturnType<typeof listed>] };
    const steps = run(spec(), [one(reading(), svc), one(down, svc)]);
    expect(of(steps[1], 'api').map((c) => [c.severity, c.details['The network']])).toEqual([['warning', 'listed active']]);
  });

  it('the BLS key listed without 0x, the node\'s with it: the same key', () => {
    const svc = { [NODE]: [listed({ blsCredentials: { publicKey: BLS.slice(2), proofOfPossession: '0x00' } })] };
    expect(of(run(spec(), [one(reading(), svc)])[0], 'bls-key')).toEqual([]);
    const twenty = `0x${'c'.repeat(18)}`;
    const [step] = run(spec(), [one(reading({ identity: { ok: { nodeId: NODE, blsPublicKey: twenty } } }), { [NODE]: [listed()] })]);
    expect(of(step, 'bls-key')[0]?.summary).toContain(`runs with BLS key ${twenty}, not`);
  });

  it('rewarding stake leaves a tier only at its level plus the hysteresis; at the level itself it is "not back above"', () => {
    const stake = (p: number) => one(reading({ uptime: { ok: { rewardingStakePercentage: p, weightedAveragePercentage: 97 } } }));
    const steps = run(spec(), [stake(79), stake(81), stake(90), stake(91)]);
    expect(steps.map((x) => of(x, 'rewarding-stake').map((c) => [c.severity, c.summary]))).toEqual([
      [['critical', `only 79% of stake thinks ${NODE} meets the uptime requirement, under 80%: its reward is at risk`]],
      [['warning', `only 81% of stake thinks ${NODE} meets the uptime requirement, under 90%: its reward is at risk`]],
      [['warning', `only 90% of stake thinks ${NODE} meets the uptime requirement, not back above 91% yet: its reward is at risk`]],
      [],
    ]);
  });

  it('what a resolved peers or version alert says now carries the figure as a detail', () => {
    const steps = run(spec({ minVersion: '1.14.1', minPeers: 5 }), [one(reading({ version: { ok: 'avalanchego/1.13.2' }, peers: { ok: 1 } })), one(reading())]);
    expect(steps[1]?.resolvedAs?.(`${NODE}:peers`)).toEqual({ summary: `${NODE} has 60 peers now`, details: { Peers: '60' } });
    expect(steps[1]?.resolvedAs?.(`${NODE}:version`)).toEqual({ summary: `${NODE} runs avalanchego/1.14.2 now`, details: { Version: 'avalanchego/1.14.2' } });
    expect(steps[1]?.resolvedAs?.(`${NODE}:bootstrapped:C`)).toBeUndefined();
  });

  it("upgrades: one scheduled at another time is named with both times; one not yet activated, one unreadable, or an empty answer is no alert; fixed, it resolves", () => {
    const s = spec({ outside: false });
    const now = new Date('2026-11-28T00:00:00Z');
    const asBuilt = { durango: 1_709_740_800, etna: 1_734_368_400, fortuna: 1_744_124_400, granite: 1_763_568_000, helicon: 1_790_089_200 };
    const evalAt = (upgrades: Record<string, number>, t = now) => nodeHealth.evaluate(new Map(), { nodes: { [NODE]: reading({ upgrades: { ok: upgrades } }) } }, t, s);
    const late = evalAt({ ...asBuilt, granite: 1_763_568_000 + 86_400 });
    expect(of(late, 'upgrades').map((c) => [c.severity, c.summary, c.resolvedSummary, c.details])).toEqual([
      [
        'critical',
        `${NODE}: its build schedules Granite at 2025-11-20T16:00:00Z, while mainnet activated it at 2025-11-19T16:00:00Z: it does not follow the network's rules; upgrade AvalancheGo (or check the network it runs on)`,
        "its build's upgrade schedule matches the network's again",
        { Node: NODE, API: '10.0.0.5:9650', Granite: 'the node: 2025-11-20T16:00:00Z; mainnet: 2025-11-19T16:00:00Z' },
      ],
    ]);
    const { helicon: _h, ...noHelicon } = asBuilt;
    expect(of(evalAt(noHelicon), 'upgrades')[0]?.details).toMatchObject({ Helicon: 'the node: not at all; mainnet: 2026-09-22T15:00:00Z' });
    // Before Helicon activated, a build without it is not yet wrong; at the second it activates, it is.
    const helicon = 1_790_089_200;
    expect(of(evalAt(noHelicon, new Date((helicon - 1) * 1000)), 'upgrades')).toEqual([]);
    expect(of(evalAt(noHelicon, new Date(helicon * 1000)), 'upgrades')).toHaveLength(1);
    expect(of(evalAt({ ...asBuilt, helicon: -1 }), 'upgrades')).toEqual([]);
    expect(of(evalAt({}), 'upgrades')).toEqual([]);
  });

  it('the next upgrade gauge: the earliest still ahead, never one at this very second', () => {
    const s = spec({ outside: false });
    const t = 1_900_000_000;
    const states = (upgrades: Record<string, number>) => new Map([[NODE, { upgrades } as State]]);
    const next = (upgrades: Record<string, number>) => nodeHealth.samples(s, states(upgrades), new Date(t * 1000)).filter((g) => g.metric === 'avawatch_node_next_upgrade_timestamp_seconds').map((g) => [g.labels['upgrade'], g.value]);
    expect(next({ a: t + 20, b: t + 10, c: t + 10 })).toEqual([['b', t + 10]]);
    expect(next({ now: t, past: t - 1 })).toEqual([]);
  });
  it('health API switched off while a check fails: the check held aside is still counted, then no count at all', () => {
    const s = spec();
    const disk: HealthReport = { healthy: false, checks: [{ name: 'diskspace', error: 'low', contiguousFailures: 2 }] };
    const steps = run(s, [one(reading({ health: disk })), one(reading({ health: 'off' })), one(reading({ health: 'off' })), one(reading({ health: 'off' }))]);
    const failingGauges = (i: number) => nodeHealth.samples(s, steps[i]?.states ?? new Map(), at(i)).filter((g) => g.metric.startsWith('avawatch_node_health_check')).map((g) => [g.metric, g.value]);
    expect([1, 2, 3].map(failingGauges)).toEqual([
      [
        ['avawatch_node_health_checks_failing', 1],
        ['avawatch_node_health_check_failing', 1],
      ],
      [
        ['avawatch_node_health_checks_failing', 1],
        ['avawatch_node_health_check_failing', 1],
      ],
      [],
    ]);
  });
});
