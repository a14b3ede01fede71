import { describe, expect, it } from 'vitest';
import type { Validator } from '../../api/schemas.js';
import { validator } from '../../api/schemas.js';
import { validatorSample, type SampleStatus } from '../../sim/samples.js';
import { validationEnd } from '../validation-end/index.js';
import { spec as validationEndSpec } from '../validation-end/schema.js';
import { PRIMARY_NETWORK } from '../fields.js';
import { observeValidators, type Seen } from '../validators.js';
import { keyDetails } from '../../channels/key-details.js';
import { validatorStatus } from './index.js';
import type { Spec, State } from './schema.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const spec: Spec = { network: 'mainnet', nodeIds: [NODE], subnetId: PRIMARY_NETWORK };
const now = new Date('2026-01-01T00:00:00Z');
const A = { nodeId: NODE, txHash: 'txA', startTimestamp: 1_700_000_000, endTimestamp: 1_720_000_000 };
const B = { nodeId: NODE, txHash: 'txB', startTimestamp: 1_720_000_100, endTimestamp: 1_790_000_000 };

function v(status: SampleStatus | 'exiting', p = A): Validator {
  if (status === 'exiting') return validator.parse({ ...validatorSample.pending(p), validationStatus: 'exiting' });
  return validator.parse(validatorSample[status](p));
}

function run(previous: ReadonlyMap<string, State>, seen: Seen) {
  return validatorStatus.evaluate(previous, [seen], now, spec);
}

function after(periods: Validator[]): Map<string, State> {
  return run(new Map(), periods).states;
}

describe('validator-status evaluation', () => {
  it('takes the first observation as a baseline: no alert', () => {
    const { states, alerts } = run(new Map(), [v('completed', A), v('active', B)]);
    expect(alerts).toEqual([]);
    expect(states.get(NODE)).toEqual({ period: { txHash: 'txB', status: 'active', startTimestamp: B.startTimestamp, endTimestamp: B.endTimestamp }, missing: false });
  });

  it.each([
    ['active', 'completed', 'active → completed'],
    ['pending', 'active', 'pending → active'],
    ['active', 'removed', 'active → removed'],
    ['active', 'exiting', 'active → exiting'],
  ] as const)('reports %s → %s', (from, to, change) => {
    const { alerts } = run(after([v(from)]), [v(to)]);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      status: 'event',
      subject: NODE,
      summary: `${NODE} validation ${change}`,
      labels: { node: NODE, network: 'mainnet', status: to, previous_status: from },
    });
    expect(alerts[0]?.details['Change']).toBe(change);
    expect(alerts[0]?.details['Period ended']).toBe('2024-07-03T09:46:40Z');
  });

  it('reports a new period starting after one completed', () => {
    const { alerts } = run(after([v('active', A)]), [v('completed', A), v('active', B)]);
    expect(alerts.map((a) => a.summary)).toEqual([`${NODE} validation active → active (new validation period)`]);
    expect(alerts[0]?.details['Previous period ended']).toBe('2024-07-03T09:46:40Z');
  });

  it('prefers the active period over a newer pending or completed one', () => {
    const states = after([v('pending', B), v('active', A)]);
    expect(states.get(NODE)?.period?.txHash).toBe('txA');
  });

  it('stays silent when nothing changed', () => {
    const previous = after([v('completed', A), v('active', B)]);
    expect(run(previous, [v('active', B), v('completed', A)]).alerts).toEqual([]);
  });

  it('reports a node the service does not know once, as a warning, on 404 or an empty list', () => {
    const answers: Seen[] = ['not-found', []];
    for (const seen of answers) {
      const first = run(new Map(), seen);
      expect(first.alerts).toHaveLength(1);
      expect(first.alerts[0]).toMatchObject({ severity: 'warning', summary: `${NODE} is not known to the service on mainnet: check the NodeID and network` });
      expect(run(first.states, seen).alerts).toEqual([]);
    }
  });

  it('does not read a node that drops out of the list as removed, and keeps its last period', () => {
    const previous = after([v('active', A)]);
    const gone = run(previous, []);
    expect(gone.alerts.map((a) => a.summary)).toEqual([`${NODE} is no longer listed by the service on mainnet (last seen active)`]);
    expect(gone.states.get(NODE)).toEqual({ period: previous.get(NODE)?.period, missing: true });
    // Listed again unchanged: nothing to say.
    expect(run(gone.states, [v('active', A)]).alerts).toEqual([]);
  });

  it('reports the listing of a node first seen unknown', () => {
    const unknown = run(new Map(), 'not-found').states;
    expect(run(unknown, [v('pending', A)]).alerts.map((a) => a.summary)).toEqual([`${NODE} validation not listed → pending`]);
  });

  it('a completed validation says what it paid; one paid nothing is a critical "ended without a reward"', () => {
    const paid = run(after([v('active', A)]), [v('completed', A)]).alerts[0];
    expect(paid?.severity).toBeUndefined();
    expect(paid?.details).toMatchObject({ 'Validation reward': '118.030412983 AVAX', 'Delegation reward': '7.904551002 AVAX', 'Reward tx': '2sJ6UoPSrqkpdcNWvNFnudjRJdvxVLdXgDaGGD4mfhJm5aULHF' });
    const unpaid = validator.parse({ ...validatorSample.completed(A), rewards: { validationRewardAmount: '0', delegationRewardAmount: '0' } });
    const alert = run(after([v('active', A)]), [unpaid]).alerts[0];
    expect(alert).toMatchObject({ severity: 'critical', summary: `${NODE} validation ended without a reward (active → completed): its uptime was likely under the reward threshold`, labels: { reward: 'none' } });
    expect(alert?.details['Likely cause']).toContain('uptime under the reward threshold');
  });

  it('derives its gauges from state', () => {
    const states = after([v('active', B)]);
    expect(validatorStatus.samples(spec, states, now)).toEqual([
      { metric: 'avawatch_validator_listed', labels: { network: 'mainnet', node_id: NODE }, value: 1 },
      { metric: 'avawatch_validator_status', labels: { network: 'mainnet', node_id: NODE, status: 'active' }, value: 1 },
      { metric: 'avawatch_validator_start_timestamp_seconds', labels: { network: 'mainnet', node_id: NODE }, value: B.startTimestamp },
      { metric: 'avawatch_validator_end_timestamp_seconds', labels: { network: 'mainnet', node_id: NODE }, value: B.endTimestamp },
    ]);
  });

  it("reads the primary network: a node's validation of another subnet is neither a new period nor its end", async () => {
    const L1 = '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM';
    const primary = v('active', B);
    // Same node, another subnet: active, ending in five days, started later than the primary one.
    const other = validator.parse({ ...validatorSample.active({ ...B, txHash: 'txL1', startTimestamp: B.startTimestamp + 10 }), subnetId: L1, endTimestamp: now.getTime() / 1000 + 5 * 86_400 });
    // The lists answer with every subnet's periods of that status (as without a subnetId filter).
    const data = { validatorList: async (_: string, q: { validationStatus: string }) => ({ periods: [other, primary].filter((p) => p.validationStatus === q.validationStatus), broken: [] }) };
    const ctx = { data: { primary: data }, signal: new AbortController().signal, previous: new Map(), now } as never;
    const seen = await observeValidators(spec, ctx);
    const base = validatorStatus.evaluate(new Map(), [[primary]], now, spec);
    expect(validatorStatus.evaluate(base.states, seen, now, spec).alerts).toEqual([]);
    const endSpec = validationEndSpec.parse({ network: 'mainnet', nodeIds: [NODE] });
    expect(validationEnd.evaluate(new Map(), { service: seen }, now, endSpec).conditions).toEqual([]);
    // A rule that names the subnet reads that one.
    const onL1 = await observeValidators({ ...spec, subnetId: L1 }, ctx);
    expect(validationEnd.evaluate(new Map(), { service: onL1 }, now, { ...endSpec, subnetId: L1 }).conditions?.map((c) => c.labels['threshold'])).toEqual(['14d']);
  });
});

describe('validator-status: a node the service stops listing', () => {
  it('delisted, relisted, delisted again: each "no longer listed" reaches the operator, labelled for routes and silences', () => {
    const listed = after([v('active', A)]);
    const gone = run(listed, []);
    const back = run(gone.states, [v('active', A)]);
    expect(back.alerts).toEqual([]);
    expect(back.states.get(NODE)?.missing).toBe(false);
    const goneAgain = run(back.states, 'not-found');
    for (const delisted of [gone, goneAgain]) {
      expect(delisted.alerts).toEqual([
        {
          status: 'event',
          severity: 'warning',
          news: 'bad',
          subject: NODE,
          summary: `${NODE} is no longer listed by the service on mainnet (last seen active)`,
          labels: { node: NODE, network: 'mainnet', status: 'not_listed' },
          details: { Node: NODE, Network: 'mainnet', 'Last seen status': 'active' },
        },
      ]);
    }
  });

  it('a mistyped NodeID (never listed): its not-known alert is labelled, and its gauges say "not listed" without failing /metrics', () => {
    const unknown = run(new Map(), 'not-found');
    expect(unknown.alerts[0]).toMatchObject({ labels: { node: NODE, network: 'mainnet', status: 'not_listed' }, details: { 'Last seen status': 'never seen' } });
    expect(validatorStatus.samples(spec, unknown.states, now)).toEqual([{ metric: 'avawatch_validator_listed', labels: { network: 'mainnet', node_id: NODE }, value: 0 }]);
  });
});

describe('validator-status: what each change tells, and what it leaves alone', () => {
  it('says whether a change is good, bad or neutral news', () => {
    const news = (from: Validator[] | 'not-found', to: Validator[]) => run(from === 'not-found' ? run(new Map(), 'not-found').states : after(from), to).alerts.map((a) => a.news);
    expect(news([v('pending')], [v('active')])).toEqual(['good']);
    expect(news([v('active')], [v('removed')])).toEqual(['bad']);
    expect(news([v('active')], [v('completed')])).toEqual(['neutral']);
    expect(news([v('active')], [v('exiting')])).toEqual(['neutral']);
    // Pending: good as a new listing or a new period, neutral as a status change (active → pending).
    expect(news('not-found', [v('pending')])).toEqual(['good']);
    expect(news([v('active', A)], [v('completed', A), v('pending', B)])).toEqual(['good']);
    expect(news([v('active')], [v('pending')])).toEqual(['neutral']);
    // A completed period first listed, or a new one completed, is neutral, not pending's good news.
    expect(news('not-found', [v('completed')])).toEqual(['neutral']);
  });

  it('names the end "Period ends" while it is ahead, "Period ended" from its second on; "Previous period ended" only for a new period', () => {
    const ahead = { ...A, endTimestamp: now.getTime() / 1000 + 1 };
    const atEnd = { ...A, endTimestamp: now.getTime() / 1000 };
    const details = (p: typeof A) => run(after([v('pending', p)]), [v('active', p)]).alerts[0]?.details;
    expect(details(ahead)).toMatchObject({ 'Period ends': '2026-01-01T00:00:01Z' });
    expect(details(ahead)?.['Period ended']).toBeUndefined();
    expect(details(atEnd)).toMatchObject({ 'Period ended': '2026-01-01T00:00:00Z' });
    expect(details(atEnd)?.['Period ends']).toBeUndefined();
    expect(Object.keys(details(A) ?? {})).not.toContain('Previous period ended');
  });

  it('only a completed period says what it paid, and only what the service lists', () => {
    const removedWithRewards = validator.parse({ ...validatorSample.removed(A), rewards: { validationRewardAmount: '0', delegationRewardAmount: '0' } });
    const removed = run(after([v('active')]), [removedWithRewards]).alerts[0];
    expect(removed).toMatchObject({ news: 'bad', summary: `${NODE} validation active → removed` });
    expect(removed?.severity).toBeUndefined();
    expect(Object.keys(removed?.details ?? {})).not.toContain('Validation reward');
    const onlyValidation = validator.parse({ ...validatorSample.completed(A), rewards: { validationRewardAmount: '5000000000' } });
    const paid = run(after([v('active')]), [onlyValidation]).alerts[0];
    expect(paid?.details['Validation reward']).toBe('5 AVAX');
    expect(Object.keys(paid?.details ?? {}).filter((k) => k === 'Delegation reward' || k === 'Reward tx')).toEqual([]);
    // No validation reward listed: nothing is said of a reward, and it is no "ended without a reward".
    const onlyDelegation = validator.parse({ ...validatorSample.completed(A), rewards: { delegationRewardAmount: '7000000000' } });
    const unknown = run(after([v('active')]), [onlyDelegation]).alerts[0];
    expect([unknown?.severity, unknown?.news, unknown?.details['Delegation reward'], unknown?.details['Validation reward']]).toEqual([undefined, 'neutral', '7 AVAX', undefined]);
  });

  it('a completed period that paid nothing is bad news, naming the status it left', () => {
    const unpaid = validator.parse({ ...validatorSample.completed(A), rewards: { validationRewardAmount: '0', delegationRewardAmount: '0' } });
    const fromPending = run(after([v('pending')]), [unpaid]).alerts[0];
    expect(fromPending).toMatchObject({ severity: 'critical', news: 'bad', labels: { node: NODE, network: 'mainnet', status: 'completed', previous_status: 'pending', reward: 'none' } });
    expect(fromPending?.summary).toBe(`${NODE} validation ended without a reward (pending → completed): its uptime was likely under the reward threshold`);
  });

  it('a node whose lookup failed keeps its state and is named failing; no alert, and none later for what it missed', () => {
    const listed = after([v('active')]);
    const failed = run(listed, { failed: 'data API: HTTP 503' });
    expect([failed.alerts, failed.failed]).toEqual([[], { [NODE]: 'data API: HTTP 503' }]);
    expect(failed.states.get(NODE)).toBe(listed.get(NODE));
    expect(run(failed.states, [v('active')]).alerts).toEqual([]);
    // Before its baseline: no state is made up for it.
    expect([...run(new Map(), { failed: 'data API: HTTP 503' }).states.keys()]).toEqual([]);
  });

  it('a node unchanged since the last poll is not looked at again: its state stands, no alert', async () => {
    const listed = after([v('active', B)]);
    const data = { validatorList: async (_: string, q: { validationStatus: string }) => ({ periods: q.validationStatus === 'active' ? [v('active', B)] : [], broken: [] }) };
    const seen = await validatorStatus.observe(spec, { data: { primary: data }, signal: new AbortController().signal, previous: listed, now } as never);
    expect(seen).toEqual(['unchanged']);
    const r = run(listed, 'unchanged');
    expect([r.alerts, r.states.get(NODE)]).toEqual([[], listed.get(NODE)]);
    expect(() => validatorStatus.evaluate(listed, [], now, spec)).toThrow(`no observation for ${NODE}`);
  });

  it('describes itself and its cost for `check`', () => {
    expect(validatorStatus.describe(spec)).toBe('mainnet, 1 node');
    expect(validatorStatus.describe({ ...spec, nodeIds: [NODE, NODE], subnetId: 'L1' })).toBe('mainnet subnet L1, 2 nodes');
    const cost = validatorStatus.cost(spec);
    expect(cost.calls.length).toBeGreaterThan(0);
    expect(cost.calls.every((c) => c.key.startsWith('GET /v1/networks/mainnet/validators'))).toBe(true);
    expect(validatorStatus.entityOrder?.(spec)).toEqual([NODE]);
  });
});

describe('validator-status alerts as receivers see them', () => {
  it('every label its alerts carry is one it declares (what `silence add` and routes can match)', () => {
    const unpaid = validator.parse({ ...validatorSample.completed(A), rewards: { validationRewardAmount: '0', delegationRewardAmount: '0' } });
    const alerts = [run(after([v('active')]), [unpaid]), run(after([v('active')]), []), run(after([v('pending')]), [v('active')])].flatMap((r) => r.alerts);
    const carried = [...new Set(alerts.flatMap((a) => Object.keys(a.labels)))].sort();
    expect(carried).toEqual(['network', 'node', 'previous_status', 'reward', 'status']);
    expect([...validatorStatus.labelNames].sort()).toEqual(carried);
  });

  it("a grouped post's line for a completed validation carries what it paid", () => {
    const alert = run(after([v('active')]), [v('completed')]).alerts[0];
    expect(keyDetails({ kind: 'validator-status', summary: alert?.summary ?? '', details: alert?.details ?? {} })).toEqual([
      ['Validation reward', '118.030412983 AVAX'],
      ['Delegation reward', '7.904551002 AVAX'],
    ]);
  });
});
