import { describe, expect, it } from 'vitest';
import { delegator } from '../../api/schemas.js';
import { delegatorItem } from '../../sim/samples.js';
import { delegationEnd } from './index.js';
import { spec as specSchema } from './schema.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const d = (tx: string, status = 'active') =>
  delegator.parse(delegatorItem({ txHash: tx, nodeId: NODE, rewardAddresses: ['avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw'], amountDelegated: '25000000000', startTimestamp: 1_700_000_000, endTimestamp: 1_800_000_000 }, status));
const now = new Date(1_750_000_000_000);
const after = new Date(1_800_000_060_000); // past the delegations' end

describe('delegation-end', () => {
  it('accepts P- prefixed reward addresses and compares them bare', () => {
    expect(specSchema.parse({ network: 'mainnet', rewardAddresses: ['P-avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw'] }).rewardAddresses).toEqual(['avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw']);
  });

  it('reports an ended delegation even before its reward is listed', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    const first = delegationEnd.evaluate({}, { active: [d('t1')], completed: {}, failed: {} }, now, s);
    expect(first.alerts).toEqual([]);
    const gone = delegationEnd.evaluate(first.states, { active: [], completed: {}, failed: {} }, after, s);
    expect(gone.alerts.map((a) => [a.summary, a.details['Reward']])).toEqual([[`Delegation of 25 AVAX to ${NODE} ended`, 'not listed yet']]);
    const withReward = delegationEnd.evaluate(first.states, { active: [], completed: { t1: d('t1', 'completed') }, failed: {} }, after, s);
    expect(withReward.alerts[0]?.details['Gross reward']).toMatch(/^[\d.]+ AVAX$/);
  });

  it('one that leaves the active list before its end (a status the service added, e.g. "paused") is never announced as ended', () => {
    for (const spec of [{ nodeIds: [NODE] }, { rewardAddresses: ['avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw'] }]) {
      const s = specSchema.parse({ network: 'mainnet', ...spec });
      const first = delegationEnd.evaluate({}, { active: [d('t1')], completed: {}, failed: {} }, now, s);
      const left = delegationEnd.evaluate(first.states, { active: [], completed: {}, failed: {} }, now, s);
      expect(left.alerts).toEqual([]);
      expect(left.states['t1']).toEqual(first.states['t1']);
      // Past its end it has ended, whatever it was called meanwhile.
      expect(delegationEnd.evaluate(left.states, { active: [], completed: {}, failed: {} }, after, s).alerts.map((a) => a.summary)).toEqual([`Delegation of 25 AVAX to ${NODE} ended`]);
    }
  });

  it('one the service lists completed before its end time has ended, with its reward', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    const first = delegationEnd.evaluate({}, { active: [d('t1')], completed: {}, failed: {} }, now, s);
    const done = delegationEnd.evaluate(first.states, { active: [], completed: { t1: d('t1', 'completed') }, failed: {} }, now, s);
    expect(done.alerts.map((a) => a.details['Gross reward'])).toEqual([expect.stringMatching(/AVAX$/)]);
  });

  it('says nothing of delegations whose node left the rule', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    const first = delegationEnd.evaluate({}, { active: [d('t1')], completed: {}, failed: {} }, now, s);
    const other = specSchema.parse({ network: 'mainnet', nodeIds: ['NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ'] });
    expect(delegationEnd.evaluate(first.states, { active: [], completed: {}, failed: {} }, now, other).alerts).toEqual([]);
  });

  it('does not announce existing delegations on the first read, even with notifyNew', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], notifyNew: true });
    expect(delegationEnd.evaluate({}, { active: [d('t1'), d('t2')], completed: {}, failed: {} }, now, s).alerts).toEqual([]);
  });

  it('a list that failed is not read as "ended": its delegations keep what held, and it is named', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], warnBefore: ['3d'] });
    const soon = { ...d('t1'), endTimestamp: 1_750_000_000 + 86_400 };
    const first = delegationEnd.evaluate({}, { active: [soon], completed: {}, failed: {} }, now, s);
    expect(first.conditions?.map((c) => c.key)).toEqual(['t1']);
    const failing = delegationEnd.evaluate(first.states, { active: [], completed: {}, failed: { [NODE]: 'data API: HTTP 503' } }, now, s);
    expect(failing.alerts).toEqual([]);
    expect(failing.states['t1']).toEqual(first.states['t1']);
    expect(failing.conditions?.map((c) => c.key)).toEqual(['t1']);
    expect(failing.failed).toEqual({ [NODE]: 'data API: HTTP 503' });
  });

  it('an amount the service did not send as a number is shown as unknown, never a crash', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], notifyNew: true });
    const first = delegationEnd.evaluate({}, { active: [d('t1')], completed: {}, failed: {} }, now, s);
    const odd = { ...d('t2'), amountDelegated: '1.5e9' };
    const next = delegationEnd.evaluate(first.states, { active: [d('t1'), odd], completed: {}, failed: {} }, now, s);
    expect(next.alerts.map((a) => a.summary)).toEqual([`New delegation of an unknown amount to ${NODE}, until 2027-01-15T08:00:00Z`]);
    expect(delegationEnd.samples(s, next.states, now).find((g) => g.metric === 'avawatch_delegated_stake_avax')?.value).toBe(25);
  });
});
