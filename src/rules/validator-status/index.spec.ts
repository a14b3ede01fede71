import { describe, expect, it } from 'vitest';
import type { Validator } from '../../api/schemas.js';
import { validator } from '../../api/schemas.js';
import { validatorSample, type SampleStatus } from '../../sim/samples.js';
import { validationEnd } from '../validation-end/index.js';
import { spec as validationEndSpec } from '../validation-end/schema.js';
import { PRIMARY_NETWORK } from '../fields.js';
import { observeValidators, type Seen } from '../validators.js';
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
