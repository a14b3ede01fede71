import { describe, expect, it } from 'vitest';
import { P_CHAIN_ENTITY, validatorHealth } from './index.js';
import { at, AVAX, DAY, ended, listed, NODE, polls, read, s, staker, START } from '../../../test/helpers/renew-cycle.js';

// validator-health and an auto-renewed validator (ACP-236): its cycles, renewals and exit.
// What each event carries and the cycle's uptime alert: renew-events.spec.ts.

describe('validator-health and auto-renewed validators (ACP-236)', () => {
  it("judges the current cycle: critical before the boundary once the cycle's budget is gone, naming the boundary", () => {
    const v = staker();
    const [ok, lost] = polls([
      { day: 5, o: { service: [[listed(97, v)]], pchain: read(v) } },
      // 10 days into the 14-day cycle at 80%: 8 d up + 4 d left − 12.6 d needed = −0.6 d.
      { day: 10, o: { service: [[listed(80, v)]], pchain: read(staker({ uptime: 80 })) } },
    ]);
    expect(ok?.conditions).toEqual([]);
    expect(ok?.states.get(NODE)?.judged).toEqual({ start: START, end: START + 14 * DAY, requirement: 90, why: 'ACP-267: the validation started at or after Helicon (2026-09-22T15:00:00Z on mainnet)', cycle: true });
    expect(lost?.conditions?.map((c) => [c.severity, c.summary])).toEqual([
      ['critical', `${NODE} will be removed at its cycle boundary, 2026-11-15T00:00:00Z, and forfeit this cycle's reward (40 AVAX): uptime 80% since the cycle started leaves at most 85.71% by then, under the 90% a cycle needs`],
    ]);
    const gauges = validatorHealth.samples(s, lost?.states ?? new Map(), at(10)).filter((g) => /cycle|next_period|budget/.test(g.metric));
    expect(gauges.map((g) => `${g.metric}{${g.labels['view'] ?? ''}}=${g.value}`)).toEqual([
      'avawatch_validator_downtime_budget_seconds{service}=-51840',
      'avawatch_validator_downtime_budget_seconds{p-chain}=-51840',
      `avawatch_validator_cycle_end_timestamp_seconds{}=${START + 14 * DAY}`,
      `avawatch_validator_next_period_seconds{}=${14 * DAY}`,
    ]);
  });

  it('a renewal is one good-news event with the last cycle\'s reward; the alert of the old cycle does not carry over', () => {
    const first = staker();
    const second = staker({ start: first.end, end: first.end + 14 * DAY, weight: String(2_021n * AVAX), potentialReward: String(41n * AVAX), delegateeReward: '0' });
    const [, renewed] = polls([
      { day: 13, o: { service: [[listed(99, first)]], pchain: read(first) } },
      { day: 14.01, o: { service: [[listed(99, second)]], pchain: read(second) } },
    ]);
    expect(renewed?.alerts.map((a) => [a.news, a.labels['change'], a.summary])).toEqual([
      ['good', 'renewed', `${NODE} renewed for a new cycle to 2026-11-29T00:00:00Z, rewarded 42 AVAX for the last one (21 AVAX restaked); stake now 2021 AVAX`],
    ]);
    expect(renewed?.alerts[0]?.details).toMatchObject({ 'Validation reward': '40 AVAX', 'Delegation fees': '2 AVAX (as last read)', Restaked: '21 AVAX', 'Paid out': '21 AVAX' });
    expect(renewed?.states.get(NODE)?.judged?.start).toBe(first.end);
  });

  it('restaking clipped at the 3M AVAX cap says how much more was paid out', () => {
    const near = staker({ weight: String(2_999_990n * AVAX), potentialReward: String(60n * AVAX), delegateeReward: '0' }, { compoundShares: 1_000_000 });
    const capped = staker({ start: near.end, end: near.end + 14 * DAY, weight: String(3_000_000n * AVAX) }, { compoundShares: 1_000_000 });
    const [, r] = polls([
      { day: 13, o: { service: [[listed(99, near)]], pchain: read(near) } },
      { day: 14.01, o: { service: [[listed(99, capped)]], pchain: read(capped) } },
    ]);
    expect(r?.alerts.map((a) => [a.labels['change'], a.news, a.summary])).toEqual([
      ['capped', 'neutral', `${NODE} renewed for a new cycle to 2026-11-29T00:00:00Z, rewarded 60 AVAX for the last one; restaking was clipped at the 3000000 AVAX cap: 50 AVAX more than planned was paid out; stake now 3000000 AVAX`],
    ]);
  });

  it('nextPeriod 0 is one event (exit scheduled), and the exit at the boundary another, once the service lists it ended', () => {
    const v = staker();
    const exiting = staker({}, { nextPeriod: 0 });
    const results = polls([
      { day: 3, o: { service: [[listed(99, v)]], pchain: read(v) } },
      { day: 4, o: { service: [[listed(99, v)]], pchain: read(exiting) } },
      { day: 5, o: { service: [[listed(99, v)]], pchain: read(exiting) } },
      // Past the boundary the P-Chain API lists it no more, and the service not yet ended: nothing is said but the wait.
      { day: 14.01, o: { service: [[listed(99, v)]], pchain: read() } },
      { day: 14.02, o: { service: [[ended(40, v)]], pchain: read() } },
    ]);
    expect(results.map((r) => r.alerts.map((a) => `${a.labels['change']}: ${a.summary}`))).toEqual([
      [],
      [`exit-scheduled: ${NODE} will exit at its cycle boundary, 2026-11-15T00:00:00Z: nextPeriod is 0, so it is not restaked; its stake, and this cycle's reward if its uptime holds, are returned then`],
      [],
      [],
      [`exited: ${NODE} exited at its cycle boundary, 2026-11-15T00:00:00Z, as scheduled (nextPeriod 0), rewarded 40 AVAX for its last cycle; its stake is returned`],
    ]);
    expect(results[3]?.failed).toEqual({ [`${NODE}:p-chain`]: 'the P-Chain API api.avax.network no longer lists it after its boundary (2026-11-15T00:00:00Z), while the service does not list that validation ended yet' });
    expect(results[4]?.alerts.map((a) => [a.severity, a.news])).toEqual([[undefined, 'neutral']]);
  });

  it('listed no more after a boundary it was to renew at, and ended without a reward by the service: removed, critical, the cycle reward forfeited', () => {
    const v = staker();
    const [, , gone] = polls([
      { day: 3, o: { service: [[listed(99, v)]], pchain: read(v) } },
      { day: 13, o: { service: [[listed(85, v)]], pchain: read(staker({ uptime: 85 })) } },
      { day: 14.01, o: { service: [[ended(0, v)]], pchain: read() } },
    ]);
    expect(gone?.alerts.map((a) => [a.severity, a.labels['change'], a.summary])).toEqual([
      ['critical', 'removed', `${NODE} was removed at its cycle boundary, 2026-11-15T00:00:00Z: it missed the uptime its cycle needed, and that cycle's reward of 40 AVAX is forfeited; its stake is returned`],
    ]);
    expect(gone?.alerts[0]?.details).toMatchObject({ 'Uptime last read': '85% (service), 85% (p-chain)', 'The service lists it': 'completed, validation reward 0 AVAX' });
    // Paid after all (its exit not read before the boundary): said as an exit, never a removal.
    const [, paid] = polls([
      { day: 13, o: { service: [[listed(99, v)]], pchain: read(v) } },
      { day: 14.01, o: { service: [[ended(40, v)]], pchain: read() } },
    ]);
    expect(paid?.alerts.map((a) => [a.severity ?? a.news, a.summary])).toEqual([
      ['neutral', `${NODE} left the validator set at its cycle boundary, 2026-11-15T00:00:00Z, rewarded 40 AVAX for its last cycle, though it was to renew (its exit was not read before the boundary); its stake is returned`],
    ]);
  });

  it('a lagging P-Chain API (an answer from before the last one) repeats nothing', () => {
    const first = staker();
    const second = staker({ start: first.end, end: first.end + 14 * DAY, weight: String(2_021n * AVAX) });
    const results = polls([
      { day: 13, o: { service: [[listed(99, first)]], pchain: read(first) } },
      { day: 14.01, o: { service: [[listed(99, second)]], pchain: read(second) } },
      { day: 14.02, o: { service: [[listed(99, second)]], pchain: read(first) } },
      { day: 14.03, o: { service: [[listed(99, second)]], pchain: read(second) } },
    ]);
    expect(results.map((r) => r.alerts.map((a) => a.labels['change']))).toEqual([[], ['renewed'], [], []]);
  });

  it('the authority and the compound share: an event each when they change', () => {
    const v = staker();
    const changed = staker({}, { compoundShares: 250_000, authority: { threshold: 2, addresses: ['P-avax1aaaa', 'P-avax1bbbb'] } });
    const [, r] = polls([
      { day: 3, o: { service: [[listed(99, v)]], pchain: read(v) } },
      { day: 4, o: { service: [[listed(99, v)]], pchain: read(changed) } },
    ]);
    expect(r?.alerts.map((a) => [a.news ?? 'bad', a.summary])).toEqual([
      ['neutral', `${NODE} now restakes 25% of each cycle's reward (was 50%)`],
      ['bad', `${NODE}'s validator authority changed: it is now 2 of P-avax1aaaa, P-avax1bbbb (was 1 of P-avax1gss39m5sx6jn7wlyzeqzm086yfq2l02xkvmecy); if you did not make this change, check your keys`],
    ]);
  });

  it('bad input: a failed read, an item that does not parse or a node gone before its boundary keep what was known and never say removed', () => {
    const v = staker();
    const results = polls([
      { day: 3, o: { service: [[listed(99, v)]], pchain: read(v) } },
      { day: 4, o: { service: [[listed(99, v)]], pchain: { failed: 'P-Chain API: node api.avax.network platform.getStakingAssetID: it answers for fuji, not mainnet' } } },
      { day: 5, o: { service: [[listed(99, v)]], pchain: { source: 'api.avax.network', stakers: new Map([[NODE, { failed: 'its item does not parse (endTime: its end is not after its start)' }]]) } } },
      { day: 6, o: { service: [[listed(99, v)]], pchain: read() } },
      { day: 7, o: { service: [[listed(99, v)]], pchain: read(v) } },
    ]);
    expect(results.flatMap((r) => r.alerts)).toEqual([]);
    expect(results.map((r) => r.states.get(NODE)?.renew?.end)).toEqual(Array(5).fill(START + 14 * DAY));
    expect(results.map((r) => Object.keys(r.failed ?? {}))).toEqual([[], [P_CHAIN_ENTITY], [`${NODE}:p-chain`], [`${NODE}:p-chain`], []]);
    expect(results[3]?.failed?.[`${NODE}:p-chain`]).toBe('the P-Chain API api.avax.network no longer lists it, before its cycle ends at 2026-11-15T00:00:00Z');
    // A watched node's own API that is down is node-health's to say: no failing entity here.
    const quiet = validatorHealth.evaluate(results[0]?.states ?? new Map(), { service: [[listed(99, v)]], pchain: { failed: 'P-Chain API: node 127.0.0.1:9650 platform.getStakingAssetID: network error (ECONNREFUSED)', nodesDown: true } }, at(4), s);
    expect(quiet.failed).toEqual({});
  });

  it('the next period: an exit called off, and a new length, each one event with what it was', () => {
    const v = staker();
    const results = polls([
      { day: 3, o: { service: [[listed(99, v)]], pchain: read(staker({}, { nextPeriod: 0 })) } },
      { day: 4, o: { service: [[listed(99, v)]], pchain: read(v) } },
      { day: 5, o: { service: [[listed(99, v)]], pchain: read(staker({}, { nextPeriod: 28 * DAY })) } },
    ]);
    expect(results.map((r) => r.alerts.map((a) => [a.labels['change'], a.news, a.summary, a.details['Next period'], a.details['Was']]))).toEqual([
      [],
      [['exit-cancelled', 'good', `${NODE} renews again at its cycle boundary, 2026-11-15T00:00:00Z: its next cycle lasts 14d (the exit is called off)`, '14d', undefined]],
      [['period', 'neutral', `${NODE}'s next cycle will last 28d (was 14d), from its boundary 2026-11-15T00:00:00Z`, '28d', '14d']],
    ]);
  });

  it('several boundaries since the last read (avawatch was down): one renewal, counting them, with the stake now', () => {
    const v = staker();
    const third = staker({ start: v.end + 14 * DAY, end: v.end + 28 * DAY, weight: String(2_050n * AVAX) });
    const [, later] = polls([
      { day: 13, o: { service: [[listed(99, v)]], pchain: read(v) } },
      { day: 29, o: { service: [[listed(99, third)]], pchain: read(third) } },
    ]);
    expect(later?.alerts.map((a) => [a.labels['change'], a.news, a.summary])).toEqual([
      ['renewed', 'good', `${NODE} renewed: its current cycle runs to 2026-12-13T00:00:00Z (2 boundaries since it was last read); stake now 2050 AVAX`],
    ]);
  });

  it('an exit scheduled, and the cycle paid nothing: critical, "without that cycle\'s reward", said as an exit', () => {
    const exiting = staker({}, { nextPeriod: 0 });
    const [, gone] = polls([
      { day: 13, o: { service: [[listed(70, exiting)]], pchain: read(exiting) } },
      { day: 14.01, o: { service: [[ended(0, exiting)]], pchain: read() } },
    ]);
    expect(gone?.alerts.map((a) => [a.severity, a.labels['change'], a.summary])).toEqual([
      ['critical', 'exited', `${NODE} exited at its cycle boundary, 2026-11-15T00:00:00Z, without that cycle's reward of 40 AVAX: its uptime in the cycle was under what it needed; its stake is returned`],
    ]);
  });
});
