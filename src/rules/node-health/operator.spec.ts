import { describe, expect, it } from 'vitest';
import { NodeApiError, type HealthReport } from '../../api/node-api.js';
import { nodeHealth } from './index.js';
import { at, BLS, down, listed, NODE, of, one, OTHER, reading, run, spec, URL_A, URL_B } from '../../../test/helpers/health-node.js';

// node-health: what the operator reads of each check (severity, labels, summary and details).
// The checks themselves: index.spec.ts; what the node said, as read: said.spec.ts.

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
