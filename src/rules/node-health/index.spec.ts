import { describe, expect, it } from 'vitest';
import { NodeApiError, type HealthReport, type NodeApi } from '../../api/node-api.js';
import { validator } from '../../api/schemas.js';
import { completedValidator } from '../../sim/samples.js';
import type { Condition } from '../types.js';
import { nodeHealth } from './index.js';
import { at, down, healthy, listed, NODE, one, OTHER, reading, run, spec, START, URL_A, URL_B } from '../../../test/helpers/health-node.js';

// node-health on readings given directly, through the lifecycle as the engine does. What the
// operator reads: operator.spec.ts; what the node said, as read, and edges: said.spec.ts.

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
