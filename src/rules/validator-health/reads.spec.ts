import { describe, expect, it } from 'vitest';
import { validator } from '../../api/schemas.js';
import { keyDetails } from '../../channels/key-details.js';
import { activeValidator, completedValidator } from '../../sim/samples.js';
import type { Staker, StakersRead } from '../pchain.js';
import type { Seen } from '../validators.js';
import { validatorHealth } from './index.js';
import type { Observation } from './observe.js';
import { spec as specSchema, type State } from './schema.js';
import { active, active0, at, health, isoAt, NODE, period, run, START } from '../../../test/helpers/health-reads.js';

// validator-health as the rest of avawatch reads it: the engine state, `check` and the page, a
// route, a silence and a grouped line; the service's reads and failures, the P-Chain API's view,
// delegation capacity, each condition in full. Levels and resolutions: index.spec.ts.

describe('validator-health and the engine state', () => {
  it('a validation no longer active has no gauge and no judged period; the nodes keep the rule\'s order', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    const [, done] = run(s, [[active0(95)], [validator.parse(completedValidator(period))]]);
    expect(validatorHealth.samples(s, done?.states ?? new Map(), at(1))).toEqual([]);
    expect(done?.states.get(NODE)).not.toHaveProperty('judged');
    expect(done?.states.get(NODE)).not.toHaveProperty('views');
    const OTHER = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
    expect(validatorHealth.entityOrder?.({ ...s, nodeIds: [OTHER, NODE] })).toEqual([OTHER, NODE]);
  });

  it('never changes `previous` in place (a node unchanged since it completed)', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    const [done] = run(s, [[validator.parse(completedValidator(period))]]);
    const kept = Object.freeze({ ...(done?.states.get(NODE) as State) });
    const next = validatorHealth.evaluate(new Map([[NODE, kept]]), { service: ['unchanged'] }, at(1), s);
    expect(next.states.get(NODE)).toEqual(kept);
    expect(next.states.get(NODE)).not.toBe(kept);
  });
});

describe('validator-health for `check` and the page', () => {
  const OTHER = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
  const everything = specSchema.parse({
    network: 'mainnet',
    nodeIds: [NODE, OTHER],
    uptime: { warning: 90, critical: 85 },
    budget: false,
    pChainApi: 'https://api.avax.network',
    nodeApis: { [NODE]: 'http://10.0.0.1:9650' },
    benched: {},
    reachability: {},
    minVersion: '1.14.1',
    minDelegationCapacity: 1000,
  });

  it('describes what it watches', () => {
    expect(validatorHealth.describe(specSchema.parse({ network: 'mainnet', nodeIds: [NODE] }))).toBe(
      'mainnet, 1 node, uptime critical under the reward threshold (80%, 90% from Helicon), a warning while it can be down less than 1d (or 10% of its allowance) more and still be paid',
    );
    expect(validatorHealth.describe(everything)).toBe(
      'mainnet, 2 nodes, uptime critical under 85% (the reward threshold at least), a warning under 90%, auto-renewed validators read from the P-Chain API and 1 node API(s), benched above 20% for 10m, reachability under 80% for 10m, AvalancheGo ≥ 1.14.1, delegation capacity ≥ 1000 AVAX',
    );
    expect(validatorHealth.describe(specSchema.parse({ network: 'fuji', nodeIds: [NODE], uptime: false, nodeApis: { [NODE]: 'http://10.0.0.1:9650' } }))).toBe('fuji, 1 node, auto-renewed validators read from 1 node API(s)');
    expect(validatorHealth.describe(specSchema.parse({ network: 'fuji', nodeIds: [NODE], budget: { warnBelow: '2h', warnShare: 5 }, uptime: { warning: 95 } }))).toBe(
      'fuji, 1 node, uptime critical under the reward threshold (80%, 90% from Helicon), a warning under 95%, a warning while it can be down less than 2h (or 5% of its allowance) more and still be paid',
    );
  });

  it("its cost: the service's lists, plus free node calls when it reads the P-Chain API (1 + one per 100 nodes) and each node's own API", () => {
    const lists = validatorHealth.cost(specSchema.parse({ network: 'mainnet', nodeIds: [NODE, OTHER] }));
    expect(lists.calls.map((c) => [c.key.split('?')[0], c.cu])).toEqual([['GET /v1/networks/mainnet/validators', 20]]);
    expect(lists.nodeCalls).toBeUndefined();
    expect(validatorHealth.cost(everything).nodeCalls).toBe(1 + 1 + 1);
    const many = Array.from({ length: 101 }, () => NODE);
    expect(validatorHealth.cost({ ...everything, nodeIds: many, nodeApis: undefined }).nodeCalls).toBe(1 + 2);
    expect(validatorHealth.cost({ ...everything, pChainApi: undefined }).nodeCalls).toBe(1 + 1 + 1);
  });

  it('the uptime chart draws the warning band when set and the reward threshold, firm; no other chart gets levels', () => {
    expect(validatorHealth.chartLevels?.(everything, 'avawatch_validator_uptime_percent', START)).toEqual([
      { value: 90, label: 'warning 90%' },
      { value: 80, label: 'reward 80%', firm: true },
    ]);
    const byDefault = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    expect(validatorHealth.chartLevels?.(byDefault, 'avawatch_validator_uptime_percent', Date.parse('2026-10-01T00:00:00Z') / 1000)).toEqual([{ value: 90, label: 'reward 90%', firm: true }]);
    expect(validatorHealth.chartLevels?.(byDefault, 'avawatch_validator_uptime_percent', undefined)).toEqual([{ value: 80, label: 'reward 80%', firm: true }]);
    expect(validatorHealth.chartLevels?.(everything, 'avawatch_validator_reachability_percent', START)).toEqual([]);
    expect(validatorHealth.chartLevels?.({ ...everything, uptime: false }, 'avawatch_validator_uptime_percent', START)).toEqual([]);
  });
});

describe('validator-health reading the service', () => {
  const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], benched: { above: 20, for: '2m' }, reachability: { below: 80, for: '2m' } });
  const gauges = (st: ReadonlyMap<string, State> | undefined) =>
    Object.fromEntries(validatorHealth.samples(s, st ?? new Map(), at(0)).map((g) => [`${g.metric.replace('avawatch_validator_', '')}${g.labels['chain'] ?? ''}${g.labels['version'] ? `=${g.labels['version']}` : ''}`, g.value]));

  it('a new validation starts afresh: what it leaves out is not taken from the last one', () => {
    const next = { ...period, txHash: 'tx2', startTimestamp: START + 3_600 };
    const bare = validator.parse({ ...activeValidator(next), uptimePerformance: undefined, validatorHealth: undefined, avalancheGoVersion: undefined, amountStaked: undefined, amountDelegated: undefined, delegationCapacity: undefined, potentialRewards: undefined });
    const [, fresh] = run(s, [[active(health(45, 50))], [bare]]);
    expect(gauges(fresh?.states)).toEqual({ uptime_requirement_percent: 80, 'version_info=unknown': 1 });
    // The same validation keeps them.
    const [, same] = run(s, [[active(health(45, 50))], [validator.parse({ ...activeValidator(period), uptimePerformance: undefined, validatorHealth: undefined })]]);
    expect(gauges(same?.states)).toMatchObject({ uptime_percent: 99.93, benched_percentP: 45, benched_percentX: 0, benched_percentC: 45, reachability_percent: 50 });
  });

  it('a check held across polls keeps its start: benched and unreachable for `for` fire; a poll without them starts over', () => {
    const sick = (b: number, r: number) => [active(health(b, r))];
    const held = run(s, [sick(45, 50), sick(45, 50), sick(45, 50)]);
    expect(held.map((r) => r.conditions?.map((c) => c.labels['check']))).toEqual([[], [], ['benched', 'reachability']]);
    expect(held[2]?.conditions?.map((c) => c.details['Since'])).toEqual([isoAt(0), isoAt(0)]);
    const broken = run(s, [sick(45, 50), sick(0, 100), sick(45, 50), sick(45, 50)]);
    expect(broken.map((r) => r.conditions?.length)).toEqual([0, 0, 0, 0]);
    // Exactly at the levels is not past them.
    expect(run(s, [sick(20, 80), sick(20, 80), sick(20, 80)]).map((r) => r.conditions?.length)).toEqual([0, 0, 0]);
  });

  it('an amount up to the whole supply (720M AVAX) is a reading; more is none', () => {
    const whole = '720000000000000000';
    const [r] = run(s, [[active({ amountStaked: whole, amountDelegated: '720000000000000001' })]]);
    expect(gauges(r?.states)['stake_avax']).toBe(720_000_000);
    expect(gauges(r?.states)['delegated_avax']).toBeUndefined();
  });
});

describe('validator-health: what a route, a silence and a grouped line read', () => {
  const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], benched: { for: '1m' }, reachability: { for: '1m' }, minVersion: '1.14.1', minDelegationCapacity: 1000 });
  const sick = active({ uptimePerformance: 79, avalancheGoVersion: 'avalanche/1.13.2', delegationCapacity: '500000000000', ...health(45, 50) });

  it('every label its alerts carry is one it declares (a silence on another would mute nothing), and each declared one is carried', () => {
    const conditions = run(s, [[sick], [sick]])[1]?.conditions ?? [];
    const labels = new Set(conditions.flatMap((c) => Object.keys(c.labels)));
    // The auto-renew events carry `change`.
    labels.add('change');
    expect([...labels].filter((l) => !validatorHealth.labelNames.includes(l))).toEqual([]);
    expect(validatorHealth.labelNames.filter((l) => !labels.has(l))).toEqual([]);
    expect(conditions.map((c) => c.labels)).toEqual([
      { node: NODE, network: 'mainnet', check: 'uptime', threshold: 'critical' },
      { node: NODE, network: 'mainnet', check: 'benched', chains: 'P,C' },
      { node: NODE, network: 'mainnet', check: 'reachability' },
      { node: NODE, network: 'mainnet', check: 'version' },
      { node: NODE, network: 'mainnet', check: 'delegation-capacity' },
    ]);
  });

  it("a grouped message's line states each alert's key figure, unless its summary says it already", () => {
    const conditions = run(s, [[sick], [sick]])[1]?.conditions ?? [];
    expect(conditions.map((c) => keyDetails({ kind: 'validator-health', details: c.details, summary: c.summary }))).toEqual([
      [['Uptime', "79% (the service's own node's view; each validator votes on what it saw)"]],
      [],
      [],
      [['Version', 'avalanche/1.13.2']],
      [],
    ]);
  });
});

describe("validator-health: the P-Chain API's view and an auto-renewed validator's cycle", () => {
  const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], pChainApi: 'https://api.avax.network' });
  const staker = (over: Partial<Staker> = {}): Staker => ({ txId: 'tx1', nodeId: NODE, start: period.startTimestamp, end: period.endTimestamp, weight: '2000000000000', uptime: 93, ...over });
  const stakers = (list: Staker[], node?: string): StakersRead => ({ source: 'api.avax.network', ...(node ? { node } : {}), stakers: new Map(list.map((v) => [v.nodeId, v])) });
  /** Each poll's budget gauges by view, and the cycle gauges. */
  function gaugesOver(polls: Array<Observation['pchain'] | 'none'>, service = (_poll: number): Seen => [active0(95)]) {
    let states: ReadonlyMap<string, State> = new Map();
    return polls.map((pchain, i) => {
      const o: Observation = { service: [service(i)], ...(pchain === 'none' ? {} : { pchain }) };
      states = validatorHealth.evaluate(states, o, at(i), s).states;
      return validatorHealth
        .samples(s, states, at(i))
        .filter((g) => /budget|cycle|next_period/.test(g.metric))
        .map((g) => `${g.metric.replace('avawatch_validator_', '')}${g.labels['view'] ? `{${g.labels['view']}}` : ''}`);
    });
  }

  it("another node's view counts; the node's own answer about itself does not; a failed read keeps it; it is gone once the API lists it no more or is left out", () => {
    expect(gaugesOver([stakers([staker()], NODE), stakers([staker()]), { failed: 'P-Chain API: HTTP 503' }, stakers([]), stakers([staker()]), 'none'])).toEqual([
      ['downtime_budget_seconds{service}'],
      ['downtime_budget_seconds{service}', 'downtime_budget_seconds{p-chain}'],
      ['downtime_budget_seconds{service}', 'downtime_budget_seconds{p-chain}'],
      ['downtime_budget_seconds{service}'],
      ['downtime_budget_seconds{service}', 'downtime_budget_seconds{p-chain}'],
      ['downtime_budget_seconds{service}'],
    ]);
  });

  it("the node's own view, when its API fails, stands for the same cycle only", () => {
    const withApi = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], pChainApi: 'https://api.avax.network', nodeApis: { [NODE]: 'http://10.0.0.1:9650' } });
    const first = staker({ start: START + 86_400, end: START + 15 * 86_400, autoRenew: { nextPeriod: 14 * 86_400, compoundShares: 0, authority: undefined } });
    const next = { ...first, start: first.end, end: first.end + 14 * 86_400 };
    const failed = { failed: 'node 10.0.0.1:9650 info.uptime: network error (ECONNREFUSED)' };
    let states: ReadonlyMap<string, State> = new Map();
    const views = ([first, first, next] as const).map((cycle, i) => {
      states = validatorHealth.evaluate(states, { service: [[active0(95)]], pchain: stakers([cycle]), own: { [NODE]: i === 0 ? 92 : failed } }, at(i), withApi).states;
      return Object.keys(states.get(NODE)?.views ?? {});
    });
    expect(views).toEqual([
      ['node', 'p-chain'],
      ['node', 'p-chain'],
      ['p-chain'],
    ]);
  });

  it("the cycle's gauges while the P-Chain API lists this very validation as auto-renewed; not once it lists it without autoRenew, nor for another validation", () => {
    const renewing = staker({ start: START + 86_400, end: START + 15 * 86_400, autoRenew: { nextPeriod: 14 * 86_400, compoundShares: 0, authority: undefined } });
    const cycle = ['cycle_end_timestamp_seconds', 'next_period_seconds'];
    expect(gaugesOver([stakers([renewing]), stakers([staker()])]).map((g) => g.filter((m) => cycle.includes(m)))).toEqual([cycle, []]);
    // The service lists a new validation while the API answers no more: the cycle it knew is of the last one.
    const tx2 = validator.parse(activeValidator({ ...period, txHash: 'tx2', startTimestamp: START + 3_600 }));
    const polls = gaugesOver([stakers([renewing]), { failed: 'P-Chain API: HTTP 503' }], (i) => [i === 0 ? active0(95) : tx2]);
    expect(polls.map((g) => g.filter((m) => cycle.includes(m)))).toEqual([cycle, []]);
  });
});

describe('validator-health while the service cannot be read', () => {
  it('what held holds as of its last sample: a check not yet past its `for` does not fire on time alone, and one firing keeps its text', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], uptime: false, benched: { above: 20, for: '3m' }, reachability: { below: 80, for: '1m' } });
    const failed = { failed: 'data API: HTTP 503' };
    const results = run(s, [[active(health(45, 50))], [active(health(45, 50))], failed, failed, failed, failed]);
    expect(results.map((r) => r.conditions?.map((c) => c.summary))).toEqual([
      [],
      [`${NODE} is reachable 50% of the time, under 80%, for 1m`],
      ...Array(4).fill([`${NODE} is reachable 50% of the time, under 80%, for 1m`]),
    ]);
    expect(results.at(-1)?.failed).toEqual({ [NODE]: 'data API: HTTP 503' });
  });
});

describe('validator-health: delegation capacity at its level', () => {
  it('exactly at its minimum is not under it; a nAVAX less is', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], uptime: false, minDelegationCapacity: 1000 });
    const held = ['1000000000000', '999999999999'].map((c) => run(s, [[active({ delegationCapacity: c })]])[0]?.conditions?.map((x) => x.summary));
    expect(held).toEqual([[], [`${NODE} can take 999.999999999 AVAX more delegation, under 1000 AVAX`]]);
  });
});

describe('validator-health: each condition in full', () => {
  it('benched, reachability and delegation capacity: their summary, the text kept for their resolution, and every detail', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], uptime: false, benched: { for: '1m' }, reachability: { for: '1m' }, minDelegationCapacity: 1000 });
    const sick = active({ delegationCapacity: '500000000000', validatorHealth: { reachabilityPercent: 50, benchedPChainRequestsPercent: 45, benchedXChainRequestsPercent: 0, benchedCChainRequestsPercent: 0 } });
    const conditions = run(s, [[sick], [sick]])[1]?.conditions ?? [];
    const base = { Node: NODE, Network: 'mainnet', 'Validation ends': '2025-12-12T15:06:40Z', 'Staking tx': 'tx1' };
    expect(conditions.map((c) => [c.summary, c.resolvedSummary, c.details])).toEqual([
      [`${NODE} is benched on the P-chain (P-chain 45% of requests) for 1m`, `${NODE} is no longer benched`, { ...base, Benched: 'P-chain 45%', Since: '2025-06-16T15:06:40Z', Level: 'above 20% for 1m' }],
      [`${NODE} is reachable 50% of the time, under 80%, for 1m`, `${NODE} is reachable again (at least 80%)`, { ...base, Reachability: '50%', Since: '2025-06-16T15:06:40Z' }],
      [`${NODE} can take 500 AVAX more delegation, under 1000 AVAX`, `${NODE} has 1000 AVAX or more of delegation capacity again`, { ...base, 'Delegation capacity': '500 AVAX', Minimum: '1000 AVAX' }],
    ]);
  });

  it('the warning band: its levels, a margin of +0 at the requirement, "not back above" at the level itself, and back above the band + hysteresis', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], uptime: { warning: 90 } });
    const [first, again] = run(s, [[active0(80)], [active0(90)]]);
    const c = first?.conditions?.[0];
    expect([c?.severity, c?.summary, c?.resolvedSummary, c?.details['Margin'], c?.details['Levels']]).toEqual([
      'warning',
      `${NODE} uptime 80% is under 90%: 0 points above the 80% this validation needs for its reward`,
      `${NODE} uptime is back above 91% and it can be down 1d or more`,
      '+0 points',
      'warning under 90%, critical under 80%; each left only above it + 1 (hysteresis); a warning while it can be down less than 1d',
    ]);
    expect(again?.conditions?.map((x) => x.summary)).toEqual([`${NODE} uptime 90% is not back above 91% yet: 10 points above the 80% this validation needs for its reward`]);
  });

  it('critical, then exactly at the level: "not back above" it yet', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    const [, at80] = run(s, [[active0(79)], [active0(80)]]);
    expect(at80?.conditions?.map((x) => x.summary.split(':')[0])).toEqual([`${NODE} uptime 80% is not back above 81% yet`]);
  });

  it('a new validation starts with no hysteresis from the last one', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    const next = validator.parse({ ...activeValidator({ ...period, txHash: 'tx2', startTimestamp: START + 3_600 }), uptimePerformance: 80.5 });
    const [, fresh] = run(s, [[active0(79)], [next]]);
    expect(fresh?.conditions).toEqual([]);
  });
});
