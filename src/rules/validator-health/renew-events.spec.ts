import { describe, expect, it } from 'vitest';
import { validator } from '../../api/schemas.js';
import { keyDetails } from '../../channels/key-details.js';
import { completedValidator } from '../../sim/samples.js';
import type { Staker } from '../pchain.js';
import { AUTHORITY, AVAX, DAY, ended, listed, NODE, polls, read, staker } from '../../../test/helpers/renew-cycle.js';

// validator-health and an auto-renewed validator (ACP-236): what each event and grouped line
// carries, and the uptime alert of a cycle. The cycles themselves: renew.spec.ts.

describe('validator-health and auto-renewed validators: what each event carries', () => {
  const v = staker();

  it('an event names the node, its network, the staking tx, and is labelled check=auto-renew with its change (what routes and silences match)', () => {
    const [, r] = polls([
      { day: 3, o: { service: [[listed(99, v)]], pchain: read(v) } },
      { day: 4, o: { service: [[listed(99, v)]], pchain: read(staker({}, { nextPeriod: 0 })) } },
    ]);
    expect(r?.alerts).toEqual([
      {
        status: 'event',
        subject: NODE,
        summary: `${NODE} will exit at its cycle boundary, 2026-11-15T00:00:00Z: nextPeriod is 0, so it is not restaked; its stake, and this cycle's reward if its uptime holds, are returned then`,
        labels: { node: NODE, network: 'mainnet', check: 'auto-renew', change: 'exit-scheduled' },
        details: { Node: NODE, Network: 'mainnet', 'Staking tx': 'tx1', 'Cycle ends': '2026-11-15T00:00:00Z', 'Next period': '0 (exit)', Was: '14d' },
        news: 'neutral',
      },
    ]);
  });

  it('the share to the 4th decimal, and an authority with no address; an authority first listed, or listed no more, is no change', () => {
    const unlisted = staker({}, { authority: undefined });
    const [, first, second, third] = polls([
      { day: 3, o: { service: [[listed(99, v)]], pchain: read(unlisted) } },
      { day: 4, o: { service: [[listed(99, v)]], pchain: read(staker({}, { compoundShares: 333_333 })) } },
      { day: 5, o: { service: [[listed(99, v)]], pchain: read(staker({}, { compoundShares: 333_333, authority: { threshold: 0, addresses: [] } })) } },
      { day: 6, o: { service: [[listed(99, v)]], pchain: read(staker({}, { compoundShares: 333_333, authority: undefined })) } },
    ]);
    expect(third?.alerts).toEqual([]);
    expect(first?.alerts.map((a) => [a.labels['change'], a.summary, a.details['Auto-compound share'], a.details['Was']])).toEqual([
      ['compound-share', `${NODE} now restakes 33.3333% of each cycle's reward (was 50%)`, '33.3333%', '50%'],
    ]);
    expect(second?.alerts.map((a) => [a.labels['change'], a.severity, a.news, a.details['Validator authority'], a.details['Was']])).toEqual([['authority', undefined, undefined, '0 of (no address)', `1 of ${AUTHORITY.addresses[0]}`]]);
  });

  it('a renewal read without the last reward, or with less stake than before: no reward, restake or payout is made up', () => {
    const bare = staker({ potentialReward: undefined, delegateeReward: undefined });
    const next = staker({ start: bare.end, end: bare.end + 14 * DAY, weight: String(1_990n * AVAX) });
    const [, renewed] = polls([
      { day: 13, o: { service: [[listed(99, bare)]], pchain: read(bare) } },
      { day: 14.01, o: { service: [[listed(99, next)]], pchain: read(next) } },
    ]);
    expect(renewed?.alerts.map((a) => [a.news, a.labels['change'], a.summary])).toEqual([['good', 'renewed', `${NODE} renewed for a new cycle to 2026-11-29T00:00:00Z; stake now 1990 AVAX`]]);
    expect(renewed?.alerts[0]?.details).toEqual({
      Node: NODE,
      Network: 'mainnet',
      'Staking tx': 'tx1',
      'Cycle ended': '2026-11-15T00:00:00Z',
      'Cycle ends': '2026-11-29T00:00:00Z',
      'Delegation fees': '0 AVAX (as last read)',
      Stake: '1990 AVAX',
    });
  });

  it('a renewal that restaked all it earned pays nothing out; one with the whole reward restaked under the cap is no clip', () => {
    const all = staker({ potentialReward: String(40n * AVAX), delegateeReward: String(2n * AVAX) }, { compoundShares: 1_000_000 });
    const next = staker({ start: all.end, end: all.end + 14 * DAY, weight: String(2_042n * AVAX) }, { compoundShares: 1_000_000 });
    const [, renewed] = polls([
      { day: 13, o: { service: [[listed(99, all)]], pchain: read(all) } },
      { day: 14.01, o: { service: [[listed(99, next)]], pchain: read(next) } },
    ]);
    expect(renewed?.alerts.map((a) => [a.labels['change'], a.summary, a.details['Restaked'], a.details['Paid out'], a.details['Capped at']])).toEqual([
      ['renewed', `${NODE} renewed for a new cycle to 2026-11-29T00:00:00Z, rewarded 42 AVAX for the last one (42 AVAX restaked); stake now 2042 AVAX`, '42 AVAX', '0 AVAX', undefined],
    ]);
  });

  it('restaked less than planned under the cap is no clip; exactly as planned up to the cap is none either; more than read (fees came in) pays out nothing said', () => {
    const renewal = (before: Staker, weight: bigint) => {
      const next = staker({ start: before.end, end: before.end + 14 * DAY, weight: String(weight * AVAX) }, { compoundShares: 1_000_000 });
      const [, r] = polls([
        { day: 13, o: { service: [[listed(99, before)]], pchain: read(before) } },
        { day: 14.01, o: { service: [[listed(99, next)]], pchain: read(next) } },
      ]);
      return r?.alerts.map((a) => [a.labels['change'], a.summary.replace(/^.* for the last one/, ''), a.details['Restaked'], a.details['Paid out']]);
    };
    const all = (weight: bigint) => staker({ weight: String(weight * AVAX) }, { compoundShares: 1_000_000 });
    // 40 AVAX reward + 2 AVAX fees, all to be restaked.
    expect(renewal(all(2_000n), 2_030n)).toEqual([['renewed', ' (30 AVAX restaked); stake now 2030 AVAX', '30 AVAX', '12 AVAX']]);
    expect(renewal(all(2_999_958n), 3_000_000n)).toEqual([['renewed', ' (42 AVAX restaked); stake now 3000000 AVAX', '42 AVAX', '0 AVAX']]);
    expect(renewal(all(2_000n), 2_050n)).toEqual([['renewed', ' (50 AVAX restaked); stake now 2050 AVAX', '50 AVAX', undefined]]);
    // Nothing restaked (a share of 0): 0 restaked, the whole reward paid out.
    const none = staker({}, { compoundShares: 0 });
    const next = staker({ start: none.end, end: none.end + 14 * DAY }, { compoundShares: 0 });
    const [, r] = polls([
      { day: 13, o: { service: [[listed(99, none)]], pchain: read(none) } },
      { day: 14.01, o: { service: [[listed(99, next)]], pchain: read(next) } },
    ]);
    expect(r?.alerts.map((a) => [a.summary, a.details['Restaked'], a.details['Paid out']])).toEqual([[`${NODE} renewed for a new cycle to 2026-11-29T00:00:00Z, rewarded 42 AVAX for the last one (0 AVAX restaked); stake now 2000 AVAX`, '0 AVAX', '42 AVAX']]);
  });

  it('clipped at the cap: the details say the cap, what was restaked and what was paid out', () => {
    const near = staker({ weight: String(2_999_990n * AVAX), potentialReward: String(60n * AVAX), delegateeReward: String(4n * AVAX) }, { compoundShares: 1_000_000 });
    const capped = staker({ start: near.end, end: near.end + 14 * DAY, weight: String(3_000_000n * AVAX) }, { compoundShares: 1_000_000 });
    const [, r] = polls([
      { day: 13, o: { service: [[listed(99, near)]], pchain: read(near) } },
      { day: 14.01, o: { service: [[listed(99, capped)]], pchain: read(capped) } },
    ]);
    expect(r?.alerts[0]?.summary).toContain('64 AVAX for the last one; restaking was clipped at the 3000000 AVAX cap: 54 AVAX more than planned was paid out');
    expect(r?.alerts[0]?.details).toMatchObject({ 'Validation reward': '60 AVAX', 'Delegation fees': '4 AVAX (as last read)', Restaked: '10 AVAX', 'Paid out': '54 AVAX', 'Capped at': '3000000 AVAX (MaxValidatorStake)', Stake: '3000000 AVAX' });
  });

  it('boundaries since the last read are counted from the cycle length: one missed cycle is 2, three are 4', () => {
    const count = (cycles: number) => {
      const later = staker({ start: v.end + cycles * 14 * DAY, end: v.end + (cycles + 1) * 14 * DAY });
      const [, r] = polls([
        { day: 13, o: { service: [[listed(99, v)]], pchain: read(v) } },
        { day: 14 * (cycles + 1) + 1, o: { service: [[listed(99, later)]], pchain: read(later) } },
      ]);
      return [r?.alerts[0]?.summary.match(/\((\d+) boundaries/)?.[1], r?.alerts[0]?.details];
    };
    expect(count(1)).toEqual(['2', { Node: NODE, Network: 'mainnet', 'Staking tx': 'tx1', 'Cycle ends': '2026-12-13T00:00:00Z', Stake: '2000 AVAX' }]);
    expect(count(3)?.[0]).toBe('4');
  });

  it('a validator that left with no reward listed by the service, and none read before: said as it left, no figure made up', () => {
    const bare = staker({ potentialReward: undefined });
    const unpaid = validator.parse({ ...completedValidator({ nodeId: NODE, txHash: 'tx1', startTimestamp: bare.start, endTimestamp: bare.end }), rewards: undefined });
    const [, left] = polls([
      { day: 13, o: { service: [[listed(99, bare)]], pchain: read(bare) } },
      { day: 14.01, o: { service: [[unpaid]], pchain: read() } },
    ]);
    expect(left?.alerts).toEqual([
      {
        status: 'event',
        subject: NODE,
        summary: `${NODE} left the validator set at its cycle boundary, 2026-11-15T00:00:00Z, though it was to renew (its exit was not read before the boundary); its stake is returned`,
        labels: { node: NODE, network: 'mainnet', check: 'auto-renew', change: 'exited' },
        details: { Node: NODE, Network: 'mainnet', 'Staking tx': 'tx1', 'Cycle ended': '2026-11-15T00:00:00Z', 'The service lists it': 'completed', 'Uptime last read': '99% (service), 99% (p-chain)' },
        news: 'neutral',
      },
    ]);
    // Removed, its reward never read: "that cycle's reward", no amount.
    const [, removed] = polls([
      { day: 13, o: { service: [[listed(99, bare)]], pchain: read(bare) } },
      { day: 14.01, o: { service: [[ended(0, bare)]], pchain: read() } },
    ]);
    expect(removed?.alerts.map((a) => [a.severity, a.summary])).toEqual([['critical', `${NODE} was removed at its cycle boundary, 2026-11-15T00:00:00Z: it missed the uptime its cycle needed, and that cycle's reward is forfeited; its stake is returned`]]);
  });
});

describe('validator-health and auto-renewed validators: a grouped line', () => {
  it("states the last cycle's validation reward of a renewal, and the next period of an exit", () => {
    const first = staker();
    const second = staker({ start: first.end, end: first.end + 14 * DAY, weight: String(2_021n * AVAX) });
    const results = polls([
      { day: 13, o: { service: [[listed(99, first)]], pchain: read(first) } },
      { day: 14.01, o: { service: [[listed(99, second)]], pchain: read(second) } },
      { day: 15, o: { service: [[listed(99, second)]], pchain: read(staker({ start: second.start, end: second.end, weight: second.weight }, { nextPeriod: 0 })) } },
    ]);
    expect(results.flatMap((r) => r.alerts).map((a) => keyDetails({ kind: 'validator-health', details: a.details, summary: a.summary }))).toEqual([[['Validation reward', '40 AVAX']], [['Next period', '0 (exit)']]]);
  });
});

describe('validator-health and auto-renewed validators: the uptime alert of a cycle', () => {
  it("past saving with its exit scheduled: it will exit without this cycle's reward; the details give the cycle, each view's overrun and the margin", () => {
    const exiting = staker({ potentialReward: undefined }, { nextPeriod: 0 });
    const [, lost] = polls([
      { day: 5, o: { service: [[listed(97, exiting)]], pchain: read(exiting) } },
      { day: 10, o: { service: [[listed(80, exiting)]], pchain: read({ ...exiting, uptime: 80 }) } },
    ]);
    const c = lost?.conditions?.[0];
    expect([c?.severity, c?.tier, c?.labels['threshold'], c?.summary]).toEqual([
      'critical',
      'lost',
      'critical',
      `${NODE} will exit at its cycle boundary, 2026-11-15T00:00:00Z, without this cycle's reward: uptime 80% since the cycle started leaves at most 85.71% by then, under the 90% a cycle needs`,
    ]);
    // 10 days at 80% + 4 days left − 90% of 14 days = −0.6 d = −14 h 24 m.
    expect(c?.details).toMatchObject({
      Uptime: "80% (the service's own node's view; each validator votes on what it saw); 80% (the P-Chain API's node's view)",
      'Downtime budget': 'none (14h 24m over) (service); none (14h 24m over) (p-chain)',
      Margin: '−10 points',
      Cycle: '2026-11-01T00:00:00Z to 2026-11-15T00:00:00Z (10d elapsed, 4d left)',
    });
    expect(c?.details).not.toHaveProperty('Judged period');
    expect(lost?.states.get(NODE)?.uptimeTier).toBe('critical');
  });

  it('short of budget in a cycle, and under the requirement in a cycle: each says "this cycle"', () => {
    const v = staker();
    // 13.5 days at 90.5%: 12.2175 d up + 0.5 d left − 12.6 d = 0.1175 d (2h 49m), under 10% of the 1.4-day allowance (3h 21m).
    const [short] = polls([{ day: 13.5, o: { service: [[listed(90.5, v)]], pchain: read({ ...v, uptime: 90.5 }) } }]);
    expect(short?.conditions?.map((c) => [c.severity, c.summary, c.details['Levels']])).toEqual([
      ['warning', `${NODE} can be down only 2h 49m more and still be paid for this cycle: uptime 90.5%, 90% needed by 2026-11-15T00:00:00Z`, 'critical under 90%; each left only above it + 1 (hysteresis); a warning while it can be down less than 3h 21m'],
    ]);
    // 2 days at 89.5%: 1.79 d up + 12 d left − 12.6 d = 1.19 d.
    const [under] = polls([{ day: 2, o: { service: [[listed(89.5, v)]], pchain: read({ ...v, uptime: 89.5 }) } }]);
    expect(under?.conditions?.map((c) => [c.severity, c.summary])).toEqual([['critical', `${NODE} uptime 89.5% is under 90%: 0.5 points UNDER the 90% this cycle needs for its reward; it can be down 1d 4h more and still be paid`]]);
  });
});
