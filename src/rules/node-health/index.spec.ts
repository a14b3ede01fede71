import { describe, expect, it } from 'vitest';
import { advance, type ActiveAlert } from '../../alerts/lifecycle.js';
import { NodeApiError, type HealthReport, type NodeApi } from '../../api/node-api.js';
import { validator } from '../../api/schemas.js';
import { activeValidator, completedValidator } from '../../sim/samples.js';
import type { Condition } from '../types.js';
import { isFailed, type Failed } from '../lookup.js';
import type { Seen } from '../validators.js';
import { nodeHealth } from './index.js';
import type { NodeReading, Observation } from './observe.js';
import { spec as specSchema, type State } from './schema.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const OTHER = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const URL_A = 'http://10.0.0.5:9650';
const URL_B = 'http://10.0.0.6:9650';
const START = 1_750_000_000;
const at = (minutes: number) => new Date((START + 86_400 + minutes * 60) * 1000);
const BLS = '0x8f95423f7142d00a48e1014a3de8d28907d420dc33b3052a6dee03a3f2941a393c2351e354704ca66a3fc29870282e15';
const listed = (over: Record<string, unknown> = {}) =>
  validator.parse({ ...activeValidator({ nodeId: NODE, txHash: 'tx1', startTimestamp: START, endTimestamp: START + 180 * 86_400 }), ...over });

const healthy: HealthReport = { healthy: true, checks: [{ name: 'C', contiguousFailures: 0 }, { name: 'diskspace', contiguousFailures: 0 }] };
function reading(over: Partial<NodeReading> = {}): NodeReading {
  return {
    health: healthy,
    identity: { ok: { nodeId: NODE, blsPublicKey: BLS } },
    version: { ok: 'avalanchego/1.14.2' },
    bootstrapped: { P: { ok: true }, X: { ok: true }, C: { ok: true } },
    uptime: { ok: { rewardingStakePercentage: 100, weightedAveragePercentage: 99.5 } },
    peers: { ok: 60 },
    upgrades: { ok: { durango: 1_709_740_800, etna: 1_734_368_400, fortuna: 1_744_124_400, granite: 1_763_568_000, helicon: 1_790_089_200 } },
    ...over,
  };
}
const down = { unreachable: 'ECONNREFUSED' };

/** Evaluates one observation a minute, through the lifecycle as the engine does; returns what each step sent. */
function run(s: ReturnType<typeof specSchema.parse>, observations: Observation[]) {
  let states: ReadonlyMap<string, State> = new Map();
  let active: ActiveAlert[] = [];
  return observations.map((o, i) => {
    const r = nodeHealth.evaluate(states, o, at(i), s);
    states = r.states;
    const next = advance(active, r.conditions ?? [], at(i).getTime(), undefined, (key) => r.resolvedAs?.(key));
    active = next.active;
    return { ...r, sent: next.notifications.map((n) => `${n.status} ${n.severity ?? '-'}: ${n.summary}`) };
  });
}

/** One node's reading, and the service's lists (by node) or why they could not be read. */
const one = (node: Observation['nodes'][string], service?: Record<string, Seen> | Failed): Observation => ({
  nodes: { [NODE]: node },
  ...(service === undefined ? {} : { service: isFailed(service) ? service : new Map(Object.entries(service)) }),
});
const spec = (over: Record<string, unknown> = {}) => specSchema.parse({ urls: { [NODE]: URL_A }, ...over });

describe('node-health', () => {
  it('a failing health check fires naming the check and its error, and resolves when it passes', () => {
    const disk = { name: 'diskspace', error: 'remaining available disk space percentage (7%) is below warning threshold available space percentage (10%)', contiguousFailures: 3, timeOfFirstFailure: '2026-01-02T10:00:00Z' };
    const failing: HealthReport = { healthy: false, checks: [{ name: 'C', contiguousFailures: 0 }, disk] };
    const steps = run(spec(), [one(reading()), one(reading({ health: failing })), one(reading())]);
    expect(steps[0]?.sent).toEqual([]);
    expect(steps[1]?.sent).toEqual([`firing -: ${NODE}'s health check diskspace fails: ${disk.error} (3 failures in a row since 2026-01-02T10:00:00Z)`]);
    expect(steps[1]?.conditions?.[0]?.labels).toMatchObject({ check: 'health', health_check: 'diskspace', node: NODE });
    expect(steps[1]?.conditions?.[0]?.details).toMatchObject({ Check: 'diskspace', 'Failing since': '2026-01-02T10:00:00Z' });
    expect(steps[2]?.sent).toEqual([`resolved -: ${NODE}'s health check diskspace passes again`]);
  });

  it('a check the node added later is watched by its name; hostile names and errors are cut to size', () => {
    const long = 'x'.repeat(5_000);
    const failing: HealthReport = { healthy: false, checks: [{ name: 'someNewCheck', error: long, contiguousFailures: 1 }] };
    const [step] = run(spec(), [one(reading({ health: failing }))]);
    const c = step?.conditions?.[0] as Condition;
    expect(c.key).toBe(`${NODE}:health:someNewCheck`);
    expect(c.details['Error']?.length).toBe(500);
  });

  it('another NodeID behind the API is critical; a chain not bootstrapped fires per chain', () => {
    const [step] = run(spec(), [one(reading({ identity: { ok: { nodeId: OTHER } }, bootstrapped: { P: { ok: true }, X: { ok: true }, C: { ok: false } } }))]);
    expect(step?.sent).toEqual([
      `firing critical: ${NODE}'s API at 10.0.0.5:9650 answers as ${OTHER}: a node started with another staking key validates nothing`,
      `firing -: ${NODE} is not bootstrapped on the C-chain: it does not validate it until it is`,
    ]);
  });

  it('a BLS key other than the one the service lists for the validation is critical', () => {
    const other = `0x${'ab'.repeat(48)}`;
    const [ok, wrong] = run(spec(), [
      one(reading(), { [NODE]: [listed()] }),
      one(reading({ identity: { ok: { nodeId: NODE, blsPublicKey: other } } }), { [NODE]: [listed()] }),
    ]);
    expect(ok?.sent).toEqual([]);
    expect(wrong?.sent[0]).toMatch(/^firing critical: NodeID-\S+ runs with BLS key 0xababababab…ababab, not the 0x8f95423f71…282e15 its validation registered/);
  });

  it('rewarding stake: a warning under 90%, critical under 80%, with hysteresis; weighted average only as a gauge', () => {
    const stake = (p: number) => one(reading({ uptime: { ok: { rewardingStakePercentage: p, weightedAveragePercentage: 97 } } }));
    const steps = run(spec(), [stake(95), stake(89.5), stake(79), stake(80.5), stake(90.5), stake(91.2)]);
    expect(steps.map((s) => s.sent)).toEqual([
      [],
      [`firing warning: only 89.5% of stake thinks ${NODE} meets the uptime requirement, under 90%: its reward is at risk`],
      [`firing critical: only 79% of stake thinks ${NODE} meets the uptime requirement, under 80%: its reward is at risk`],
      [],
      [`firing warning: only 90.5% of stake thinks ${NODE} meets the uptime requirement, not back above 91% yet: its reward is at risk`],
      [`resolved warning: 91.2% of stake thinks ${NODE} meets the uptime requirement (above 90%)`],
    ]);
    const gauges = nodeHealth.samples(spec(), steps[5]?.states ?? new Map(), at(5));
    expect(gauges.find((g) => g.metric === 'avawatch_node_weighted_uptime_percent')?.value).toBe(97);
  });

  it('rewarding stake at a level exactly is no alert; just under it is: the warning is entered under 85%, not within its hysteresis', () => {
    const stake = (p: number) => one(reading({ uptime: { ok: { rewardingStakePercentage: p, weightedAveragePercentage: 97 } } }));
    const s = spec({ rewardingStake: { warning: 85, critical: 75, hysteresis: 1 } });
    const steps = run(s, [stake(85.5), stake(85), stake(84.99), stake(75), stake(74.99)]);
    expect(steps.map((x) => x.sent)).toEqual([
      [],
      [],
      [`firing warning: only 84.99% of stake thinks ${NODE} meets the uptime requirement, under 85%: its reward is at risk`],
      [],
      [`firing critical: only 74.99% of stake thinks ${NODE} meets the uptime requirement, under 75%: its reward is at risk`],
    ]);
    expect(steps[3]?.conditions?.map((c) => [c.severity, c.labels['threshold']])).toEqual([['warning', 'warning']]);
    expect(steps[4]?.conditions?.map((c) => [c.severity, c.labels['threshold']])).toEqual([['critical', 'critical']]);
  });

  it('version under minVersion fires; few peers fire', () => {
    const [step] = run(spec({ minVersion: '1.14.1', minPeers: 10 }), [one(reading({ version: { ok: 'avalanchego/1.13.2' }, peers: { ok: 3 } }))]);
    expect(step?.sent).toEqual([
      `firing -: ${NODE} runs AvalancheGo 1.13.2, older than the required 1.14.1: upgrade it`,
      `firing -: ${NODE} has 3 peers, under 10`,
    ]);
  });

  it('the API down while the network still sees the node: a warning naming both views; the service losing it too: critical', () => {
    const seen = { [NODE]: [listed({ uptimePerformance: 99.1, validatorHealth: { reachabilityPercent: 100 } })] };
    const lost = { [NODE]: [listed({ uptimePerformance: 99.0, validatorHealth: { reachabilityPercent: 20 } })] };
    const steps = run(spec(), [one(reading(), seen), one(down, seen), one(down, lost), one(reading(), lost)]);
    expect(steps[1]?.sent).toEqual([
      `firing warning: avawatch cannot reach ${NODE}'s API at 10.0.0.5:9650 (ECONNREFUSED) for 0s; the network still sees it (listed active, uptime 99.1%, reachability 100%)`,
    ]);
    expect(steps[2]?.sent).toEqual([`firing critical: ${NODE} is down: its API at 10.0.0.5:9650 does not answer (ECONNREFUSED) and its reachability is 20%, under 80%`]);
    expect(steps[2]?.conditions?.[0]?.labels['view']).toBe('down');
    expect(steps[3]?.sent).toEqual([`resolved critical: ${NODE}'s API at 10.0.0.5:9650 answers again`]);
  });

  it('the service uptime falling since the API went quiet, or no active validation listed, is the node down', () => {
    const up = (u: number) => ({ [NODE]: [listed({ uptimePerformance: u })] });
    const steps = run(spec(), [one(reading(), up(99.5)), one(down, up(99.4)), one(down, up(98.4))]);
    expect(steps[1]?.conditions?.[0]?.severity).toBe('warning');
    expect(steps[2]?.sent[0]).toContain('is down: its API at 10.0.0.5:9650 does not answer (ECONNREFUSED) and its uptime fell from 99.5% to 98.4%');
    const gone = run(spec(), [one(reading(), up(99.5)), one(down, { [NODE]: 'not-found' })]);
    expect(gone[1]?.sent[0]).toContain('and the service lists no active validation of it');
  });

  it('outside: false: an API that does not answer fires at the rule severity, its view unknown', () => {
    const steps = run(spec({ outside: false }), [one(reading()), one(down)]);
    expect(steps[1]?.sent).toEqual([`firing -: avawatch cannot reach ${NODE}'s API at 10.0.0.5:9650 (ECONNREFUSED) for 0s`]);
    expect(steps[1]?.conditions?.map((c) => [c.severity, c.tier, c.labels['check'], c.labels['view'], c.details['The network']])).toEqual([[undefined, undefined, 'api', 'unknown', 'not read (outside: false)']]);
  });

  it('an ended validation is not the network seeing the node: its API down is critical', () => {
    const ended = { [NODE]: [validator.parse(completedValidator({ nodeId: NODE, txHash: 'tx1', startTimestamp: START, endTimestamp: START + 3_600 }))] };
    const steps = run(spec(), [one(reading(), ended), one(down, ended)]);
    expect(steps[1]?.sent).toEqual([`firing critical: ${NODE} is down: its API at 10.0.0.5:9650 does not answer (ECONNREFUSED) and the service lists no active validation of it`]);
    expect(steps[1]?.conditions?.[0]?.labels['view']).toBe('down');
    expect(steps[1]?.conditions?.[0]?.details['The network']).toBe('the service lists no active validation of it');
  });

  it('avawatch_node_api_up: 1 while the API answers, 0 while it does not, 1 again when it answers', () => {
    const s = spec();
    const steps = run(s, [one(reading()), one(down), one(reading())]);
    const up = (i: number) => nodeHealth.samples(s, steps[i]?.states ?? new Map(), at(i)).filter((g) => g.metric === 'avawatch_node_api_up');
    expect([0, 1, 2].map(up)).toEqual([1, 0, 1].map((value) => [{ metric: 'avawatch_node_api_up', labels: { network: 'mainnet', node_id: NODE }, value }]));
  });

  it('both blind (the node and the service): a warning that says nothing tells, never a page', () => {
    const steps = run(spec(), [one(reading(), { [NODE]: [listed()] }), one(down, { failed: 'data API: HTTP 503' })]);
    expect(steps[1]?.sent).toEqual([
      `firing warning: avawatch cannot reach ${NODE}'s API at 10.0.0.5:9650 (ECONNREFUSED) for 0s; the data service did not answer either: nothing tells whether the node is up`,
    ]);
  });

  it('a verdict stands while the service is blind for a poll: no downgrade and back again', () => {
    const lost = { [NODE]: [listed({ validatorHealth: { reachabilityPercent: 20 } })] };
    const steps = run(spec(), [one(reading(), { [NODE]: [listed()] }), one(down, lost), one(down, { failed: 'data API: HTTP 503' }), one(down, lost)]);
    expect(steps[1]?.sent).toHaveLength(1);
    expect(steps[1]?.conditions?.[0]?.severity).toBe('critical');
    expect(steps[2]?.conditions?.[0]?.severity).toBe('critical');
    expect([steps[2]?.sent, steps[3]?.sent]).toEqual([[], []]);
  });

  it('the service blind while the node is healthy reports nothing down', () => {
    const steps = run(spec(), [one(reading(), { [NODE]: [listed()] }), one(reading(), { failed: 'data API: HTTP 503' }), one(reading(), { [NODE]: { failed: 'timeout' } })]);
    expect(steps.flatMap((s) => s.sent)).toEqual([]);
    expect(steps.flatMap((s) => s.conditions ?? [])).toEqual([]);
  });

  it('while the API does not answer, what it said last holds: no check resolves on silence', () => {
    const failing: HealthReport = { healthy: false, checks: [{ name: 'bls', error: 'node has BLS key 0x1, but is registered to the validator set with 0x2', contiguousFailures: 1 }] };
    const steps = run(spec(), [one(reading({ health: failing }), { [NODE]: [listed()] }), one(down, { [NODE]: [listed()] })]);
    expect(steps[1]?.sent.filter((s) => s.startsWith('resolved'))).toEqual([]);
    expect(steps[1]?.conditions?.map((c) => c.labels['check'])).toEqual(['api', 'health']);
  });

  it('an answer that cannot be read fails that node only and keeps its state; the other node is still judged', () => {
    const s = spec({ urls: { [NODE]: URL_A, [OTHER]: URL_B } });
    const first = nodeHealth.evaluate(new Map(), { nodes: { [NODE]: reading({ peers: { ok: 2 } }), [OTHER]: reading({ identity: { ok: { nodeId: OTHER } } }) } }, at(0), s);
    const second = nodeHealth.evaluate(first.states, { nodes: { [NODE]: { failed: '/ext/health: not JSON' }, [OTHER]: reading({ identity: { ok: { nodeId: OTHER } }, peers: { ok: 1 } }) } }, at(1), s);
    expect(second.failed).toEqual({ [NODE]: '/ext/health: not JSON' });
    expect(second.states.get(NODE)).toEqual(first.states.get(NODE));
    expect(second.conditions?.map((c) => c.key)).toEqual([`${NODE}:peers`, `${OTHER}:peers`]);
  });

  it("a figure whose call failed keeps its last value and fails the node; the node's own refusal clears it only when it keeps refusing", () => {
    const s = spec();
    const flaky = reading({ uptime: { error: new NodeApiError('node 10.0.0.5:9650 info.uptime: no answer within 10000 ms', 'unreachable') } });
    const notValidator = reading({ uptime: { error: new NodeApiError("couldn't get node uptime: node is not a validator", 'rpc') } });
    const steps = run(s, [one(reading({ uptime: { ok: { rewardingStakePercentage: 70, weightedAveragePercentage: 70 } } })), one(flaky), one(notValidator), one(notValidator), one(notValidator)]);
    expect(steps[1]?.sent).toEqual([]);
    expect(steps[1]?.states.get(NODE)?.rewardingStake).toBe(70);
    expect(steps[1]?.failed).toEqual({ [NODE]: 'node 10.0.0.5:9650 info.uptime: no answer within 10000 ms' });
    // One refusal, two: the figure stands (and so does its alert).
    expect([steps[2]?.sent, steps[3]?.sent]).toEqual([[], []]);
    expect(steps[3]?.states.get(NODE)?.rewardingStake).toBe(70);
    expect(steps[4]?.states.get(NODE)?.rewardingStake).toBeUndefined();
    expect(steps[4]?.sent).toEqual([`resolved critical: ${NODE} no longer reports the share of stake that would reward it (info.uptime: couldn't get node uptime: node is not a validator)`]);
  });

  it('the info API switched off (404) is said, not a failing rule; its figures go unchecked, never "not bootstrapped"', () => {
    const off = { error: new NodeApiError('node 10.0.0.5:9650 info.getNodeID: HTTP 404: the node does not serve this API (switched off?)', 'off') };
    const infoOff = reading({ identity: off, version: off, uptime: off, upgrades: off, bootstrapped: { P: off, X: off, C: off } });
    const steps = run(spec(), [one(reading()), one(infoOff), one(infoOff), one(infoOff), one(reading())]);
    expect(steps.map((x) => x.failed)).toEqual([{}, {}, {}, {}, {}]);
    expect(steps[1]?.sent).toEqual([
      `firing info: ${NODE}: info API disabled (switched off: /ext/info at 10.0.0.5:9650 answers 404, AvalancheGo's --api-info-enabled=false): its NodeID, version, bootstrapped chains, uptime and upgrades go unchecked; the node is judged by its health API`,
    ]);
    expect(steps[3]?.conditions?.map((c) => c.labels['check'])).toEqual(['api-off']);
    expect(steps[3]?.states.get(NODE)?.bootstrapped).toEqual({});
    expect(steps[4]?.sent).toEqual([`resolved info: ${NODE}'s API at 10.0.0.5:9650 serves /ext/info again`]);
  });

  it('the health API switched off: said, and the node judged by its info API (a chain not bootstrapped still fires)', () => {
    const steps = run(spec(), [one(reading({ health: 'off', bootstrapped: { P: { ok: true }, X: { ok: true }, C: { ok: false } } }))]);
    expect(steps[0]?.failed).toEqual({});
    expect(steps[0]?.conditions?.map((c) => c.labels['check'])).toEqual(['api-off', 'bootstrapped']);
    expect(steps[0]?.sent[0]).toContain(`info: ${NODE}: health API disabled (switched off: /ext/health at 10.0.0.5:9650 answers 404, AvalancheGo's --api-health-enabled=false)`);
    expect(steps[0]?.states.get(NODE)?.unreachableSince).toBeUndefined();
  });

  it('health API switched off while a disk check fails: no disk figure is left to fire on; the check goes unread, never "passes again", and nothing pages', () => {
    const disk: HealthReport = { healthy: false, checks: [{ name: 'diskspace', error: 'remaining available disk space percentage (7%) is below warning threshold available space percentage (10%)', contiguousFailures: 2 }] };
    const off = reading({ health: 'off' });
    const steps = run(spec(), [one(reading({ health: disk })), one(off), one(off), one(off), one(off)]);
    expect(steps[0]?.sent).toEqual([expect.stringMatching(/^firing -: .* health check diskspace fails/)]);
    expect(steps.slice(1).flatMap((x) => x.sent)).toEqual([
      expect.stringMatching(/^firing info: .*: health API disabled/),
      `resolved -: ${NODE}'s health check diskspace is no longer read: its health API is disabled`,
    ]);
    expect(steps[4]?.conditions?.map((c) => [c.labels['check'], c.severity])).toEqual([['api-off', 'info']]);
    expect(steps.map((x) => x.failed)).toEqual([{}, {}, {}, {}, {}]);
  });

  it('a peer count the health answer does not carry (its network check not run yet) holds two answers, then is unknown: never 0, never a failing rule', () => {
    const none = reading({ peers: { unknown: "/ext/health's network check gives no connectedPeers (not run yet?)" } });
    const steps = run(spec({ minPeers: 10 }), [one(reading({ peers: { ok: 3 } })), one(none), one(none), one(none)]);
    expect(steps.map((x) => x.states.get(NODE)?.peers)).toEqual([3, 3, 3, undefined]);
    expect(steps.flatMap((x) => x.sent)).toEqual([`firing -: ${NODE} has 3 peers, under 10`, `resolved -: ${NODE}'s peer count is unknown now (/ext/health's network check gives no connectedPeers (not run yet?))`]);
    expect(steps.map((x) => x.failed)).toEqual([{}, {}, {}, {}]);
    const s = spec();
    expect(nodeHealth.samples(s, steps[3]?.states ?? new Map(), at(3)).map((g) => g.metric)).not.toContain('avawatch_node_peers');
    // Health off: no count of failing checks is made up.
    const off = nodeHealth.evaluate(new Map(), one(reading({ health: 'off' })), at(0), s);
    expect(nodeHealth.samples(s, off.states, at(0)).map((g) => g.metric)).not.toContain('avawatch_node_health_checks_failing');
  });

  it('a failing check one answer leaves out still fails; one left out answer after answer is dropped', () => {
    const failing: HealthReport = { healthy: false, checks: [{ name: 'C', contiguousFailures: 0 }, { name: 'diskspace', error: 'remaining available disk space percentage (7%) is below …', contiguousFailures: 2 }] };
    const without: HealthReport = { healthy: true, checks: [{ name: 'C', contiguousFailures: 0 }] };
    const steps = run(spec(), [one(reading({ health: failing })), one(reading({ health: without })), one(reading({ health: failing })), one(reading({ health: without })), one(reading({ health: without })), one(reading({ health: without }))]);
    expect(steps.map((x) => x.sent.map((t) => t.slice(0, 8)))).toEqual([['firing -'], [], [], [], [], ['resolved']]);
  });

  it('observe reads each node side by side and never asks an unreachable node the rest', async () => {
    const asked: string[] = [];
    // The info replies as the node writes them (json.Float64, json.Uint64 quoted), read by the kind's own schemas.
    const replies: Record<string, unknown> = {
      'info.getNodeID': { nodeID: NODE, nodePOP: null },
      'info.getNodeVersion': { version: 'avalanchego/1.14.2' },
      'info.isBootstrapped': { isBootstrapped: true },
      'info.uptime': { rewardingStakePercentage: '100.0000', weightedAveragePercentage: '100.0000' },
      'info.upgrades': { apricotPhase4MinPChainHeight: 793005, graniteTime: '2025-11-19T16:00:00Z', graniteEpochDuration: 300_000_000_000, heliconTime: '9999-12-01T00:00:00Z', nextTime: 'soon' },
    };
    const api: NodeApi = {
      health: async (base) => {
        asked.push(`${base} health`);
        if (base === URL_B) throw new NodeApiError('10.0.0.6:9650: ECONNREFUSED', 'unreachable');
        return healthy;
      },
      metricsText: async () => '',
      rpc: async (base, path, method, params, schema) => {
        asked.push(`${base} ${path} ${method}${'chain' in params ? ` ${String(params['chain'])}` : ''}`);
        if (!(method in replies)) throw new Error(`not a method node-health reads: ${method}`);
        return schema.parse(replies[method]);
      },
    };
    const s = spec({ urls: { [NODE]: URL_A, [OTHER]: URL_B }, outside: false });
    const o = await nodeHealth.observe(s, { node: api, signal: new AbortController().signal, now: at(0), previous: new Map() } as never);
    expect(o.nodes[OTHER]).toEqual({ unreachable: '10.0.0.6:9650: ECONNREFUSED' });
    expect(asked.filter((a) => a.startsWith(URL_B))).toEqual([`${URL_B} health`]);
    expect(asked.filter((a) => a.startsWith(URL_A)).sort()).toEqual(
      [
        'health',
        '/ext/info info.getNodeID',
        '/ext/info info.getNodeVersion',
        '/ext/info info.uptime',
        '/ext/info info.upgrades',
        ...s.chains.map((c) => `/ext/info info.isBootstrapped ${c}`),
      ]
        .map((a) => `${URL_A} ${a}`)
        .sort(),
    );
    expect(o.nodes[NODE]).toEqual({
      health: healthy,
      identity: { ok: { nodeId: NODE } },
      version: { ok: 'avalanchego/1.14.2' },
      uptime: { ok: { rewardingStakePercentage: 100, weightedAveragePercentage: 100 } },
      // The fake's health answer carries no network check: the count is unknown (never info.peers).
      peers: { unknown: "/ext/health's network check gives no connectedPeers (not run yet?)" },
      // Each `…Time` read by name, 9999 kept (a build that does not schedule it); one that is no time is named but unreadable (-1).
      upgrades: { ok: { granite: 1_763_568_000, helicon: 253_399_622_400, next: -1 } },
      bootstrapped: Object.fromEntries(s.chains.map((c) => [c, { ok: true }])),
    });
    expect(o.service).toBeUndefined();
  });

  it('check: node calls cost no compute units; the outside view is the validator rules\' shared list', () => {
    const s = spec();
    expect(nodeHealth.cost(s).nodeCalls).toBe(8);
    expect(nodeHealth.cost(s).calls.map((c) => c.key)).toEqual([expect.stringContaining('GET /v1/networks/mainnet/validators?')]);
    expect(nodeHealth.cost(spec({ outside: false })).calls).toEqual([]);
  });

  it("its build's upgrade schedule: the next upgrade it schedules as a gauge, and critical when it misses one the network activated", () => {
    const s = spec({ urls: { [NODE]: URL_A }, outside: false });
    const now = new Date('2026-11-28T00:00:00Z');
    const nowS = now.getTime() / 1000;
    const asBuilt = { durango: 1_709_740_800, etna: 1_734_368_400, fortuna: 1_744_124_400, granite: 1_763_568_000, helicon: 1_790_089_200 };
    const ok = nodeHealth.evaluate(new Map(), { nodes: { [NODE]: reading({ upgrades: { ok: { ...asBuilt, next: nowS + 30 * 86_400 } } }) } }, now, s);
    expect(ok.conditions?.filter((c) => c.labels['check'] === 'upgrades')).toEqual([]);
    expect(nodeHealth.samples(s, ok.states, now).filter((g) => g.metric === 'avawatch_node_next_upgrade_timestamp_seconds')).toEqual([
      { metric: 'avawatch_node_next_upgrade_timestamp_seconds', labels: { network: 'mainnet', node_id: NODE, upgrade: 'next' }, value: nowS + 30 * 86_400 },
    ]);
    // A build from before Helicon was scheduled (9999), two months after Mainnet activated it.
    const old = nodeHealth.evaluate(new Map(), { nodes: { [NODE]: reading({ upgrades: { ok: { ...asBuilt, helicon: 253_399_622_400 } } }) } }, now, s);
    expect(old.conditions?.filter((c) => c.labels['check'] === 'upgrades').map((c) => [c.severity, c.summary])).toEqual([
      ['critical', `${NODE}: its build schedules Helicon not at all, while mainnet activated it at 2026-09-22T15:00:00Z: it does not follow the network's rules; upgrade AvalancheGo (or check the network it runs on)`],
    ]);
    expect(nodeHealth.samples(s, old.states, now).filter((g) => g.metric === 'avawatch_node_next_upgrade_timestamp_seconds')).toEqual([]);
  });
});

/** What each step holds for one check: severity, labels, summary and details as an operator reads them. */
const of = (step: { conditions?: Condition[] } | undefined, check: string) => step?.conditions?.filter((c) => c.labels['check'] === check) ?? [];

describe('node-health: what the operator reads', () => {
  it('an API silent for minutes: the alert says for how long, since when, why and what the network sees; its labels route it', () => {
    const seen = { [NODE]: [listed({ uptimePerformance: 99.1, validatorHealth: { reachabilityPercent: 100 } })] };
    const steps = run(spec(), [one(reading(), seen), one(down, seen), one(down, seen), one({ unreachable: 'ETIMEDOUT' }, seen), one(reading(), seen)]);
    const [api] = of(steps[3], 'api');
    expect(api?.summary).toBe(`avawatch cannot reach ${NODE}'s API at 10.0.0.5:9650 (ETIMEDOUT) for 2m; the network still sees it (listed active, uptime 99.1%, reachability 100%)`);
    expect(api?.labels).toEqual({ node: NODE, network: 'mainnet', check: 'api', view: 'seen' });
    expect([api?.key, api?.subject, api?.severity, api?.tier]).toEqual([`${NODE}:api`, NODE, 'warning', 'warning']);
    expect(api?.details).toEqual({
      Node: NODE,
      API: '10.0.0.5:9650',
      Error: 'ETIMEDOUT',
      'Not answering since': new Date(at(1)).toISOString().replace('.000Z', 'Z'),
      'The network': 'listed active, uptime 99.1%, reachability 100%',
    });
    expect(steps[4]?.sent).toEqual([`resolved warning: ${NODE}'s API at 10.0.0.5:9650 answers again`]);
    expect(steps[4]?.states.get(NODE)?.unreachableSince).toBeUndefined();
  });

  it('the service uptime a little lower since the API went quiet: still a warning naming both figures; one point lower: critical', () => {
    const up = (u: number) => ({ [NODE]: [listed({ uptimePerformance: u, validatorHealth: { reachabilityPercent: 80 } })] });
    const steps = run(spec(), [one(reading(), up(99.5)), one(down, up(99.5)), one(down, up(98.51)), one(down, up(98.5))]);
    expect(of(steps[1], 'api')[0]?.details['The network']).toBe('listed active, uptime 99.5%, reachability 80%');
    expect([of(steps[2], 'api')[0]?.severity, of(steps[2], 'api')[0]?.details['The network']]).toEqual(['warning', 'listed active, uptime 98.51% (99.5% when the API stopped answering), reachability 80%']);
    expect(steps[3]?.sent).toEqual([`firing critical: ${NODE} is down: its API at 10.0.0.5:9650 does not answer (ECONNREFUSED) and its uptime fell from 99.5% to 98.5%`]);
  });

  it('the uptime kept when the API went quiet is the one before that poll, not the poll that found it silent', () => {
    const up = (u: number) => ({ [NODE]: [listed({ uptimePerformance: u })] });
    const steps = run(spec(), [one(reading(), up(99.5)), one(down, up(98.5))]);
    expect(steps[1]?.sent).toEqual([`firing critical: ${NODE} is down: its API at 10.0.0.5:9650 does not answer (ECONNREFUSED) and its uptime fell from 99.5% to 98.5%`]);
    // First read of the service with the API already silent: its uptime then is the reference.
    const first = run(spec(), [one(down, up(99.5)), one(down, up(99))]);
    expect(first[0]?.states.get(NODE)?.uptimeAtLoss).toBe(99.5);
    expect(of(first[1], 'api')[0]?.severity).toBe('warning');
  });

  it('a listed figure this answer leaves out keeps its value only for the same validation', () => {
    const withFigures = listed({ uptimePerformance: 99.5, validatorHealth: { reachabilityPercent: 90 } });
    const { uptimePerformance: _u, validatorHealth: _h, ...bare } = withFigures;
    const steps = run(spec(), [one(reading(), { [NODE]: [withFigures] }), one(reading(), { [NODE]: [bare as typeof withFigures] }), one(reading(), { [NODE]: [{ ...bare, txHash: 'tx2' } as typeof withFigures] })]);
    expect(steps.map((x) => x.states.get(NODE)?.outside)).toEqual([
      { active: true, uptime: 99.5, reachability: 90, bls: BLS },
      { active: true, uptime: 99.5, reachability: 90, bls: BLS },
      { active: true, bls: BLS },
    ]);
  });

  it('reachability exactly at downBelow still sees the node; just under it is the node down', () => {
    const reach = (r: number) => ({ [NODE]: [listed({ validatorHealth: { reachabilityPercent: r } })] });
    const steps = run(spec({ outside: { downBelow: 50 } }), [one(reading(), reach(100)), one(down, reach(50)), one(down, reach(49.5))]);
    expect(of(steps[1], 'api').map((c) => [c.severity, c.labels['view']])).toEqual([['warning', 'seen']]);
    expect(steps[2]?.sent).toEqual([`firing critical: ${NODE} is down: its API at 10.0.0.5:9650 does not answer (ECONNREFUSED) and its reachability is 49.5%, under 50%`]);
  });

  it('the API silent before the service was ever read: a warning that nothing tells yet, labelled unknown', () => {
    const steps = run(spec(), [one(down)]);
    expect(of(steps[0], 'api').map((c) => [c.severity, c.labels['view'], c.details['The network'], c.summary])).toEqual([
      ['warning', 'unknown', 'unknown: the service has not been read yet', `avawatch cannot reach ${NODE}'s API at 10.0.0.5:9650 (ECONNREFUSED) for 0s; the data service did not answer either: nothing tells whether the node is up`],
    ]);
  });

  it('another NodeID and a BLS key: details name both; the key is compared without case or 0x', () => {
    const upper = `0X${BLS.slice(2).toUpperCase()}`;
    const svc = { [NODE]: [listed({ blsCredentials: { publicKey: upper, proofOfPossession: '0x00' } })] };
    const same = run(spec(), [one(reading(), svc)]);
    expect(of(same[0], 'bls-key')).toEqual([]);
    const short = '0xabc';
    const steps = run(spec(), [one(reading({ identity: { ok: { nodeId: OTHER, blsPublicKey: short } } }), { [NODE]: [listed()] }), one(reading(), { [NODE]: [listed()] })]);
    expect(of(steps[0], 'node-id').map((c) => [c.severity, c.details])).toEqual([['critical', { Node: NODE, API: '10.0.0.5:9650', Expected: NODE, Reported: OTHER }]]);
    expect(of(steps[0], 'bls-key').map((c) => [c.severity, c.summary, c.details])).toEqual([
      ['critical', `${NODE} runs with BLS key 0xabc, not the 0x8f95423f71…282e15 its validation registered: it cannot sign warp messages as the validator`, { Node: NODE, API: '10.0.0.5:9650', 'Node reports': short, 'Validation registered': BLS }],
    ]);
    expect(steps[1]?.sent).toEqual([`resolved critical: ${NODE}'s API answers with its own NodeID again`, `resolved critical: ${NODE} runs with its validation's BLS key again`]);
  });

  it('a check failing once, without a time of first failure: "1 failure in a row", no "since"', () => {
    const failing: HealthReport = { healthy: false, checks: [{ name: 'network', error: 'not connected', contiguousFailures: 1 }] };
    const [step] = run(spec(), [one(reading({ health: failing }))]);
    expect(of(step, 'health').map((c) => [c.summary, c.details, c.labels])).toEqual([
      [`${NODE}'s health check network fails: not connected (1 failure in a row)`, { Node: NODE, API: '10.0.0.5:9650', Check: 'network', Error: 'not connected' }, { node: NODE, network: 'mainnet', check: 'health', health_check: 'network' }],
    ]);
  });

  it('a chain not bootstrapped: labelled by chain, an L1 chain named by id; resolved when it is', () => {
    // Starts with C and ends with X: an id, never an alias.
    const L1 = 'Cq9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1QX';
    const s = spec({ chains: ['P', L1] });
    const steps = run(s, [one(reading({ bootstrapped: { P: { ok: false }, [L1]: { ok: false } } })), one(reading({ bootstrapped: { P: { ok: true }, [L1]: { ok: true } } }))]);
    expect(of(steps[0], 'bootstrapped').map((c) => [c.key, c.labels['chain'], c.details['Chain'], c.summary])).toEqual([
      [`${NODE}:bootstrapped:P`, 'P', 'P-chain', `${NODE} is not bootstrapped on the P-chain: it does not validate it until it is`],
      [`${NODE}:bootstrapped:${L1}`, L1, `chain ${L1}`, `${NODE} is not bootstrapped on the chain ${L1}: it does not validate it until it is`],
    ]);
    expect(steps[1]?.sent).toEqual([`resolved -: ${NODE} is bootstrapped on the P-chain again`, `resolved -: ${NODE} is bootstrapped on the chain ${L1} again`]);
  });

  it('rewarding stake: its details, and the resolved alert giving the share now', () => {
    const stake = (p: number, w = 97) => one(reading({ uptime: { ok: { rewardingStakePercentage: p, weightedAveragePercentage: w } } }));
    const steps = run(spec(), [stake(85, 96.123), stake(95)]);
    expect(of(steps[0], 'rewarding-stake').map((c) => c.details)).toEqual([
      { Node: NODE, API: '10.0.0.5:9650', 'Rewarding stake': '85%', 'Weighted average uptime': '96.12%', Levels: 'warning under 90%, critical under 80%' },
    ]);
    expect(of(steps[0], 'rewarding-stake')[0]?.resolvedSummary).toBe(`85% of stake thinks ${NODE} meets the uptime requirement (above 90%)`);
    expect(steps[1]?.sent).toEqual([`resolved warning: 95% of stake thinks ${NODE} meets the uptime requirement (above 90%)`]);
    expect(steps[1]?.resolvedAs?.(`${NODE}:rewarding-stake`)).toEqual({ summary: `95% of stake thinks ${NODE} meets the uptime requirement (above 90%)`, details: { 'Rewarding stake': '95%' } });
    expect(run(spec({ rewardingStake: false }), [stake(10)]).flatMap((x) => x.conditions ?? [])).toEqual([]);
  });

  it('peers: one is "1 peer"; exactly the minimum is no alert; resolved with the count now', () => {
    const peers = (n: number) => one(reading({ peers: { ok: n } }));
    const steps = run(spec({ minPeers: 5 }), [peers(1), peers(5)]);
    expect(of(steps[0], 'peers').map((c) => [c.summary, c.resolvedSummary, c.details])).toEqual([
      [`${NODE} has 1 peer, under 5`, `${NODE} has 5 peers or more again`, { Node: NODE, API: '10.0.0.5:9650', Peers: '1', Minimum: '5' }],
    ]);
    expect(steps[1]?.sent).toEqual([`resolved -: ${NODE} has 5 peers now`]);
    expect(run(spec({ minPeers: false }), [peers(0)]).flatMap((x) => x.conditions ?? [])).toEqual([]);
  });

  it('a version fixed resolves saying the version it runs now', () => {
    const steps = run(spec({ minVersion: '1.14.1' }), [one(reading({ version: { ok: 'avalanchego/1.13.2' } })), one(reading())]);
    expect(steps[1]?.sent).toEqual([`resolved -: ${NODE} runs avalanchego/1.14.2 now`]);
  });

  it('both APIs switched off: one notice saying nothing of the node is checked, resolved naming both', () => {
    const off = { error: new NodeApiError('HTTP 404', 'off') };
    const both = reading({ health: 'off', identity: off, version: off, uptime: off, upgrades: off, bootstrapped: { P: off, X: off, C: off } });
    const steps = run(spec(), [one(both), one(reading())]);
    expect(of(steps[0], 'api-off').map((c) => [c.severity, c.news, c.summary, c.details])).toEqual([
      [
        'info',
        'neutral',
        `${NODE}: health API disabled and info API disabled: its API at 10.0.0.5:9650 answers 404 on both /ext/health and /ext/info (switched off, or the URL is not the node's): nothing of the node is checked`,
        { Node: NODE, API: '10.0.0.5:9650', 'Switched off': '/ext/health, /ext/info' },
      ],
    ]);
    expect(steps[1]?.sent).toEqual([`resolved info: ${NODE}'s API at 10.0.0.5:9650 serves /ext/health and /ext/info again`]);
  });

  it('the API silent while an API was switched off: only "cannot reach", no notice of it', () => {
    const steps = run(spec({ outside: false }), [one(reading({ health: 'off' })), one(down)]);
    expect(steps[1]?.conditions?.map((c) => c.labels['check'])).toEqual(['api']);
  });

  it('gauges: each figure the node gave, by its labels', () => {
    const s = spec();
    const failing: HealthReport = { healthy: false, checks: [{ name: 'diskspace', error: 'low', contiguousFailures: 1 }, { name: 'C', error: 'stuck', contiguousFailures: 1 }] };
    const [step] = run(s, [one(reading({ health: failing, identity: { ok: { nodeId: OTHER } }, bootstrapped: { P: { ok: true }, X: { ok: false }, C: { ok: true } }, uptime: { ok: { rewardingStakePercentage: 88, weightedAveragePercentage: 97.5 } }, peers: { ok: 42 } }))]);
    const labels = { network: 'mainnet', node_id: NODE };
    expect(nodeHealth.samples(s, step?.states ?? new Map(), at(0))).toEqual([
      { metric: 'avawatch_node_api_up', labels, value: 1 },
      { metric: 'avawatch_node_health_checks_failing', labels, value: 2 },
      { metric: 'avawatch_node_health_check_failing', labels: { ...labels, check: 'diskspace' }, value: 1 },
      { metric: 'avawatch_node_health_check_failing', labels: { ...labels, check: 'C' }, value: 1 },
      { metric: 'avawatch_node_bootstrapped', labels: { ...labels, chain: 'P' }, value: 1 },
      { metric: 'avawatch_node_bootstrapped', labels: { ...labels, chain: 'X' }, value: 0 },
      { metric: 'avawatch_node_bootstrapped', labels: { ...labels, chain: 'C' }, value: 1 },
      { metric: 'avawatch_node_id_match', labels, value: 0 },
      { metric: 'avawatch_node_version_info', labels: { ...labels, version: 'avalanchego/1.14.2' }, value: 1 },
      { metric: 'avawatch_node_rewarding_stake_percent', labels, value: 88 },
      { metric: 'avawatch_node_weighted_uptime_percent', labels, value: 97.5 },
      { metric: 'avawatch_node_peers', labels, value: 42 },
      { metric: 'avawatch_node_next_upgrade_timestamp_seconds', labels: { ...labels, upgrade: 'granite' }, value: 1_763_568_000 },
    ]);
    const healthyNow = run(s, [one(reading())]);
    const samples = nodeHealth.samples(s, healthyNow[0]?.states ?? new Map(), at(0));
    expect(samples.filter((g) => g.metric.startsWith('avawatch_node_health_check'))).toEqual([{ metric: 'avawatch_node_health_checks_failing', labels, value: 0 }]);
    expect(samples.find((g) => g.metric === 'avawatch_node_id_match')?.value).toBe(1);
  });

  it('describe: what the rule checks, in words', () => {
    expect(nodeHealth.describe(spec({ minVersion: '1.14.1' }))).toBe(
      "mainnet, 1 node's own API: health checks, bootstrapped on P/X/C, NodeID, BLS key, AvalancheGo ≥ 1.14.1, rewarding stake warning under 90%, critical under 80%, peers ≥ 10, an API that does not answer is judged with the service's view",
    );
    expect(nodeHealth.describe(spec({ urls: { [NODE]: URL_A, [OTHER]: URL_B }, outside: false, rewardingStake: false, minPeers: false, chains: ['P'] }))).toBe(
      "mainnet, 2 nodes' own APIs: health checks, bootstrapped on P, NodeID, an API that does not answer fires at the rule severity",
    );
  });

  it('cost: the service asked for the listed NodeIDs and the urls\' nodes together', () => {
    const s = spec({ urls: { [NODE]: URL_A }, nodeIds: [OTHER], chains: ['P'] });
    expect(nodeHealth.cost(s).nodeCalls).toBe(6);
    const [call] = nodeHealth.cost(s).calls;
    expect(call?.key).toContain(OTHER);
    expect(call?.key).toContain(NODE);
  });
});

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
