import { describe, expect, it } from 'vitest';
import { advance, type ActiveAlert } from '../../alerts/lifecycle.js';
import { validator } from '../../api/schemas.js';
import { activeValidator, completedValidator, removedValidator } from '../../sim/samples.js';
import type { Seen } from '../validators.js';
import { rewardThreshold, validatorHealth } from './index.js';
import { spec as specSchema, type State } from './schema.js';
import { active, active0, at, health, NODE, period, run, START } from '../../../test/helpers/health-reads.js';

// validator-health on the service's lists: uptime, benched requests, version and the gauges
// against their levels, and what a resolution says. The engine state, the page, a route's view, the
// P-Chain API's view and each condition in full: reads.spec.ts.

describe('validator-health', () => {
  it('uptime, by default: critical under the reward threshold, left only above it + hysteresis; no warning band (the budget warns)', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    const uptimes = [95, 84.5, 79, 80.5, 81.2, 85.5, 86.2];
    const results = run(s, uptimes.map((u) => [active({ uptimePerformance: u })]));
    expect(results.map((r) => r.conditions?.map((c) => `${c.severity}/${c.tier}`))).toEqual([[], [], ['critical/critical'], ['critical/critical'], [], [], []]);
    const critical = results[2]?.conditions?.[0];
    // A day into a 180-day validation at 79%: 0.79 × 86,520 s + 15,465,480 s left − 0.8 × 15,552,000 s = 3,092,230.8 s.
    expect(critical?.summary).toBe(`${NODE} uptime 79% is under 80%: 1 point UNDER the 80% this validation needs for its reward; it can be down 35d 18h more and still be paid`);
    expect(critical?.details['Uptime']).toContain("the service's own node's view");
    expect(critical?.details['Reward threshold']).toBe('80% (the validation started before Helicon (2026-09-22T15:00:00Z on mainnet))');
    expect(critical?.details['Downtime budget']).toBe('35d 18h (service)');
    expect(critical?.details['Levels']).toBe('critical under 80%; each left only above it + 1 (hysteresis); a warning while it can be down less than 1d');
    expect(results[3]?.conditions?.[0]?.summary).toMatch(new RegExp(`^${NODE} uptime 80.5% is not back above 81% yet: 0.5 points above the 80% this validation needs for its reward; it can be down 35d \\d+h more`));
  });

  it('uptime hovering at a level sends one message, not one a poll (hysteresis up and down)', () => {
    const explicit = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], uptime: { warning: 90, critical: 85 } });
    const byDefault = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    for (const [s, level] of [[explicit, 85], [byDefault, 80]] as const) {
      let active: ActiveAlert[] = [];
      const sent: string[] = [];
      const hover = [-0.1, 0.1, -0.1, 0.1, -0.1, 0.1].map((d) => level + d);
      run(s, hover.map((u) => [active0(u)])).forEach((r, i) => {
        const next = advance(active, r.conditions ?? [], at(i).getTime());
        active = next.active;
        sent.push(...next.notifications.map((n) => `${n.status} ${n.severity}: ${n.summary}`));
      });
      expect(sent).toHaveLength(1);
    }
    const first = run(explicit, [[active0(84.9)]])[0]?.conditions?.[0];
    expect([first?.severity, first?.summary]).toEqual(['critical', `${NODE} uptime 84.9% is under 85%: 4.9 points above the 80% this validation needs for its reward; it can be down 35d 20h more and still be paid`]);
    // The band, when set, is a warning of its own.
    const band = run(explicit, [[active0(88)]])[0]?.conditions?.[0];
    expect([band?.severity, band?.summary]).toEqual(['warning', `${NODE} uptime 88% is under 90%: 8 points above the 80% this validation needs for its reward`]);
  });

  it('with no Helicon setting anywhere: a Mainnet validation started 2026-10-01 at 87% is critical (90% needed), one started 2026-09-01 is not (80%); both show their budget', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    const now = new Date('2026-11-28T12:00:00Z');
    const started = (iso: string) => {
      const start = Date.parse(iso) / 1000;
      return validator.parse({ ...activeValidator({ nodeId: NODE, txHash: `tx-${iso}`, startTimestamp: start, endTimestamp: start + 365 * 86_400 }), uptimePerformance: 87 });
    };
    const after = validatorHealth.evaluate(new Map(), { service: [[started('2026-10-01T00:00:00Z')]] }, now, s);
    expect(after.conditions?.map((c) => [c.severity, c.summary])).toEqual([
      // 87% of 58.5 days up (4,397,328 s), 306.5 days left (26,481,600 s), 90% of 365 days needed (28,382,400 s): 2,496,528 s.
      ['critical', `${NODE} uptime 87% is under 90%: 3 points UNDER the 90% this validation needs for its reward; it can be down 28d 21h more and still be paid`],
    ]);
    expect(after.states.get(NODE)?.judged).toMatchObject({ requirement: 90, why: 'ACP-267: the validation started at or after Helicon (2026-09-22T15:00:00Z on mainnet)' });
    expect(after.states.get(NODE)?.views?.service).toMatchObject({ uptime: 87, budget: 2_496_528 });
    const before = validatorHealth.evaluate(new Map(), { service: [[started('2026-09-01T00:00:00Z')]] }, now, s);
    expect(before.conditions).toEqual([]);
    // 87% of 88.5 days up (6,652,368 s), 276.5 days left (23,889,600 s), 80% of 365 days needed (25,228,800 s): 5,313,168 s.
    expect(before.states.get(NODE)?.views?.service).toMatchObject({ uptime: 87, budget: 5_313_168, holds: 'ok' });
    expect(before.states.get(NODE)?.judged?.requirement).toBe(80);
    // rewardUptime.heliconTime still overrides the built-in time.
    const early = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], rewardUptime: { heliconTime: new Date(START * 1000).toISOString() } });
    expect(rewardThreshold(START, early).percent).toBe(90);
    expect(rewardThreshold(START - 1, early).percent).toBe(80);
    // Levels written for 80% still page a Helicon validation under 90%.
    const old = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], uptime: { warning: 90, critical: 85 } });
    const o = validatorHealth.evaluate(new Map(), { service: [[started('2026-10-01T00:00:00Z')]] }, now, old).conditions?.[0];
    expect([o?.severity, o?.details['Levels']]).toEqual(['critical', 'critical under 90% (the reward threshold; uptime.critical 85% is under it); each left only above it + 1 (hysteresis); a warning while it can be down less than 1d']);
  });

  it('benched: one sample is never enough; it fires after `for`, naming the chains, and resolves when it clears', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], benched: { above: 20, for: '3m' } });
    const reads = [0, 45, 45, 45, 45, 0].map((b) => [active(health(b))]);
    const results = run(s, reads);
    expect(results.map((r) => r.conditions?.map((c) => c.labels['check']))).toEqual([[], [], [], [], ['benched'], []]);
    expect(results[4]?.conditions?.[0]?.summary).toBe(`${NODE} is benched on the P/C-chain (P-chain 45%, C-chain 45% of requests) for 3m`);
    // A blip shorter than `for` never fires.
    expect(run(s, [45, 0, 45, 0].map((b) => [active(health(b))])).flatMap((r) => r.conditions)).toEqual([]);
  });

  it('version: fires while older than minVersion, resolves on upgrade; a node that has never reported one is unknown, never old', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], minVersion: '1.14.1', uptime: false });
    const results = run(s, [[active({ avalancheGoVersion: 'avalanche/1.13.2' })], [active({ avalancheGoVersion: 'avalanche/1.14.1' })], [active({ avalancheGoVersion: undefined })]]);
    expect(results.map((r) => r.conditions?.map((c) => c.summary))).toEqual([[`${NODE} runs AvalancheGo 1.13.2, older than the required 1.14.1: upgrade it`], [], []]);
    const version = (r: (typeof results)[number] | undefined) => validatorHealth.samples(s, r?.states ?? new Map(), at(0)).find((g) => g.metric === 'avawatch_validator_version_info')?.labels['version'];
    // Left out once: the last version reported stands.
    expect(results.map(version)).toEqual(['avalanche/1.13.2', 'avalanche/1.14.1', 'avalanche/1.14.1']);
    const never = run(s, [[active({ avalancheGoVersion: undefined })]]);
    expect([never[0]?.conditions, version(never[0])]).toEqual([[], 'unknown']);
  });

  it('an optional field left out for one poll keeps its last value: no alert resolves, none fires again', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], minVersion: '1.14.1', minDelegationCapacity: 1000, reachability: { below: 80, for: '1m' }, uptime: false });
    const low = { avalancheGoVersion: 'avalanche/1.13.2', delegationCapacity: '500000000000', ...health(0, 50) };
    const gone = { avalancheGoVersion: undefined, delegationCapacity: undefined, validatorHealth: undefined };
    const results = run(s, [[active(low)], [active(low)], [active(gone)], [active(low)]]);
    const held = results.map((r) => r.conditions?.map((c) => c.labels['check']));
    expect(held).toEqual([['version', 'delegation-capacity'], ['reachability', 'version', 'delegation-capacity'], ['reachability', 'version', 'delegation-capacity'], ['reachability', 'version', 'delegation-capacity']]);
    expect(results[2]?.conditions?.map((c) => c.summary)).toEqual([
      `${NODE} is reachable 50% of the time, under 80%, for 2m`,
      `${NODE} runs AvalancheGo 1.13.2, older than the required 1.14.1: upgrade it`,
      `${NODE} can take 500 AVAX more delegation, under 1000 AVAX`,
    ]);
  });

  it('a value out of range reads as absent: the last one stands (uptime, reachability, benched, capacity)', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], minDelegationCapacity: 1000, benched: { above: 20, for: '1m' } });
    const fine = { uptimePerformance: 79, delegationCapacity: '500000000000', ...health(45) };
    const odd = [
      { uptimePerformance: 1e308, delegationCapacity: '-5', ...health(-1, 250) },
      { uptimePerformance: -3, delegationCapacity: '9'.repeat(30), ...health(101) },
      { uptimePerformance: 100.5, delegationCapacity: 'lots', ...health(Number.MAX_VALUE) },
    ];
    const results = run(s, [fine, fine, ...odd, fine].map((o) => [active(o)]));
    const summaries = results.map((r) => r.conditions?.map((c) => c.summary.replace(/ for \d+m$/, '').replace(/; it can be down .*/, '')));
    for (const r of summaries.slice(2)) expect(r).toEqual(summaries[1]);
    expect(summaries[1]).toEqual([
      `${NODE} uptime 79% is under 80%: 1 point UNDER the 80% this validation needs for its reward`,
      `${NODE} is benched on the P/C-chain (P-chain 45%, C-chain 45% of requests)`,
      `${NODE} can take 500 AVAX more delegation, under 1000 AVAX`,
    ]);
    const gauges = validatorHealth.samples(s, results[3]?.states ?? new Map(), at(3));
    expect(gauges.filter((g) => /uptime_percent|reachability|capacity/.test(g.metric)).map((g) => g.value)).toEqual([79, 100, 500]);
  });

  it('version: a pre-release is older than its release (1.14.0-rc.3 < 1.14.0), in semver order', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], minVersion: '1.14.0', uptime: false });
    const results = run(s, [[active({ avalancheGoVersion: 'avalanche/1.14.0-rc.3' })], [active({ avalancheGoVersion: 'avalanche/1.14.0' })]]);
    expect(results.map((r) => r.conditions?.map((c) => c.summary))).toEqual([[`${NODE} runs AvalancheGo 1.14.0-rc.3, older than the required 1.14.0: upgrade it`], []]);
    const rc = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], minVersion: '1.14.0-rc.10', uptime: false });
    const versions = ['avalanche/1.14.0-rc.9', 'avalanche/1.14.0-rc.10', 'avalanche/1.14.0-rc.beta', 'avalanchego/1.14.0'];
    const fired = versions.map((v) => run(rc, [[active({ avalancheGoVersion: v })]])[0]?.conditions?.length);
    expect(fired).toEqual([1, 0, 0, 0]);
  });

  it('version: the avalanche/ part of a text that names the Go toolchain first (go1.22.8 avalanche/1.13.0)', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], minVersion: '1.14.0', uptime: false });
    const results = run(s, [[active({ avalancheGoVersion: 'go1.22.8 avalanche/1.13.0' })], [active({ avalancheGoVersion: 'go1.22.8 avalanche/1.14.0' })]]);
    expect(results.map((r) => r.conditions?.map((c) => c.summary))).toEqual([[`${NODE} runs AvalancheGo 1.13.0, older than the required 1.14.0: upgrade it`], []]);
  });

  it('a failed lookup keeps what held: the uptime alert neither resolves nor changes', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    const results = run(s, [[active({ uptimePerformance: 78 })], { failed: 'data API: HTTP 503' }]);
    expect(results[0]?.conditions).toHaveLength(1);
    expect(results[1]?.conditions).toEqual(results[0]?.conditions);
    expect(results[1]?.failed).toEqual({ [NODE]: 'data API: HTTP 503' });
    expect(results[1]?.states.get(NODE)).toEqual(results[0]?.states.get(NODE));
  });

  it('checks only an active validation, and reads a shape it does not expect as absent', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], minVersion: '1.14.1' });
    const done = validator.parse(completedValidator(period));
    expect(run(s, [[done]])[0]?.conditions).toEqual([]);
    const odd = active({ uptimePerformance: { avg: 50 }, validatorHealth: 'n/a', avalancheGoVersion: 7 });
    expect(odd.uptimePerformance).toBeUndefined();
    expect(run(s, [[odd]])[0]?.conditions).toEqual([]);
  });

  it('gauges: uptime, benched per chain, reachability, version, own and delegated stake, capacity and potential reward in AVAX', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    const [r] = run(s, [[active(health(3))]]);
    const names = validatorHealth.samples(s, r?.states ?? new Map(), at(0)).map((g) => `${g.metric}${g.labels['chain'] ? `{${g.labels['chain']}}` : ''}=${g.value}`);
    expect(names).toEqual([
      'avawatch_validator_uptime_percent=99.93',
      // A day into a 180-day validation at 99.93%: 0.9993 × 86,400 + 15,465,600 − 0.8 × 15,552,000 = 3,110,339.52 s.
      'avawatch_validator_downtime_budget_seconds=3110340',
      'avawatch_validator_uptime_requirement_percent=80',
      'avawatch_validator_benched_percent{P}=3',
      'avawatch_validator_benched_percent{X}=0',
      'avawatch_validator_benched_percent{C}=3',
      'avawatch_validator_reachability_percent=100',
      'avawatch_validator_version_info=1',
      'avawatch_validator_stake_avax=2000',
      'avawatch_validator_delegated_avax=51234',
      'avawatch_validator_delegation_capacity_avax=6948766',
      'avawatch_validator_potential_reward_avax=120.49133629',
    ]);
  });
});

describe('validator-health resolved texts', () => {
  /** What a receiver gets over the reads (one a minute): each notification's status and summary. */
  function notices(s: ReturnType<typeof specSchema.parse>, reads: Seen[]): string[] {
    let states: ReadonlyMap<string, State> = new Map();
    let alerts: ActiveAlert[] = [];
    const out: string[] = [];
    reads.forEach((read, i) => {
      const r = validatorHealth.evaluate(states, { service: [read] }, at(i), s);
      const next = advance(alerts, r.conditions ?? [], at(i).getTime(), undefined, r.resolvedAs);
      [states, alerts] = [r.states, next.active];
      out.push(...next.notifications.map((n) => `${n.status}: ${n.summary}`));
    });
    return out;
  }

  it('an alert whose validation ended resolves saying so, with the last figure: never "back above"', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], minVersion: '1.14.1' });
    const low = active({ uptimePerformance: 78, avalancheGoVersion: 'avalanche/1.13.2' });
    expect(notices(s, [[low], [validator.parse(completedValidator(period))]])).toEqual([
      `firing: ${NODE} uptime 78% is under 80%: 2 points UNDER the 80% this validation needs for its reward; it can be down 35d 18h more and still be paid`,
      `firing: ${NODE} runs AvalancheGo 1.13.2, older than the required 1.14.1: upgrade it`,
      `resolved: ${NODE}: validation ended (completed); uptime last 78%, under the 80% it needed for its reward`,
      `resolved: ${NODE}: validation ended (completed); AvalancheGo 1.13.2 last`,
    ]);
    const warning = [active({ uptimePerformance: 79.5 })];
    const uptimeOnly = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    expect(notices(uptimeOnly, [warning, 'not-found']).at(-1)).toBe(`resolved: ${NODE}: validation is no longer listed by the service; uptime last 79.5%, under the 80% it needed for its reward`);
    const next = validator.parse(activeValidator({ ...period, txHash: 'tx2', startTimestamp: START + 86_400 }));
    expect(notices(uptimeOnly, [warning, [validator.parse(completedValidator(period)), next]]).at(-1)).toBe(`resolved: ${NODE}: validation tx1 ended (its current period is tx2 now); uptime last 79.5%, under the 80% it needed for its reward`);
    // Still active and back up: that is "back above", with the budget read now.
    expect(notices(uptimeOnly, [warning, [active({ uptimePerformance: 99 })]]).at(-1)).toBe(`resolved: ${NODE} uptime is back at 99% (above 81%); it can be down 35d 23h more and still be paid`);
  });

  it('a recovered check resolves with the figure read now; the firing one only under "When it fired"', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], minVersion: '1.14.1' });
    const first = validatorHealth.evaluate(new Map(), { service: [[active({ uptimePerformance: 79.5, avalancheGoVersion: 'avalanche/1.13.2' })]] }, at(0), s);
    const fired = advance([], first.conditions ?? [], at(0).getTime());
    const r = validatorHealth.evaluate(first.states, { service: [[active({ uptimePerformance: 92.1, avalancheGoVersion: 'avalanche/1.14.2' })]] }, at(1), s);
    const [uptime, version] = advance(fired.active, r.conditions ?? [], at(1).getTime(), undefined, r.resolvedAs).notifications;
    expect(uptime?.summary).toBe(`${NODE} uptime is back at 92.1% (above 81%); it can be down 35d 22h more and still be paid`);
    expect(uptime?.severity).toBe('critical');
    expect(uptime?.details).toMatchObject({ Uptime: "92.1% (the service's own node's view)", Margin: '+12.1 points', 'When it fired: Uptime': "79.5% (the service's own node's view; each validator votes on what it saw)", 'When it fired: Margin': '−0.5 points' });
    // The levels and the threshold have not moved: said once, not again under "When it fired" (issue 38).
    expect(uptime?.details['Levels']).toBe(fired.notifications[0]?.details['Levels']);
    expect(Object.keys(uptime?.details ?? {}).filter((k) => /^When it fired: (Levels|Reward threshold)$/.test(k))).toEqual([]);
    expect(version?.summary).toBe(`${NODE} runs AvalancheGo 1.14.2 now (1.14.1 or newer required)`);
    expect(version?.details).toMatchObject({ Version: 'avalanche/1.14.2', 'When it fired: Version': 'avalanche/1.13.2' });
  });


  it('benched, reachability and delegation capacity resolve with the figure read now, and the level they are judged by', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], uptime: false, benched: { above: 20, for: '1m' }, reachability: { below: 80, for: '1m' }, minDelegationCapacity: 1000 });
    const bad = active({ delegationCapacity: '500000000000', ...health(45, 50) });
    const good = active({ delegationCapacity: '2500000000000', ...health(2, 97.5) });
    expect(notices(s, [[bad], [bad], [good]]).filter((n) => n.startsWith('resolved'))).toEqual([
      `resolved: ${NODE} is no longer benched (P-chain 2%, X-chain 0%, C-chain 2% of requests)`,
      `resolved: ${NODE} is reachable again: 97.5% (at least 80%)`,
      `resolved: ${NODE} can take 2500 AVAX more delegation again (at least 1000 AVAX)`,
    ]);
    const [, , now] = run(s, [[bad], [bad], [good]]);
    expect([`${NODE}:benched`, `${NODE}:reachability`, `${NODE}:delegation-capacity`].map((key) => now?.resolvedAs?.(key)?.details)).toEqual([
      { Node: NODE, Network: 'mainnet', Benched: 'P-chain 2%, X-chain 0%, C-chain 2%' },
      { Node: NODE, Network: 'mainnet', Reachability: '97.5%' },
      { Node: NODE, Network: 'mainnet', 'Delegation capacity': '2500 AVAX' },
    ]);
  });

  it('an uptime alert resolved while the uptime is still inside its hysteresis says the figure, not "back above"', () => {
    // The last day and a half of a 180-day validation: a budget warning at 80.2%, gone at 80.6% (under 81%).
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    const end = START + 180 * 86_400;
    let states: ReadonlyMap<string, State> = new Map();
    let alerts: ActiveAlert[] = [];
    const out: string[] = [];
    [80.2, 80.6].forEach((u, i) => {
      const t = new Date((end - 1.5 * 86_400 + i * 60) * 1000);
      const r = validatorHealth.evaluate(states, { service: [[active0(u)]] }, t, s);
      const next = advance(alerts, r.conditions ?? [], t.getTime(), undefined, r.resolvedAs);
      [states, alerts] = [r.states, next.active];
      out.push(...next.notifications.map((n) => `${n.status}: ${n.summary}`));
    });
    expect(out.at(-1)).toBe(`resolved: ${NODE} uptime is 80.6% now; it can be down 1d 8h more and still be paid`);
  });

  it("every check resolves when the validation ends, each with its last figure; an uptime at the reward threshold is not under it", () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], uptime: { critical: 85 }, minVersion: '1.14.1', benched: { above: 20, for: '1m' }, reachability: { below: 80, for: '1m' }, minDelegationCapacity: 1000 });
    // X-chain 10%: under the 20% level, so not named.
    const sick = { validatorHealth: { reachabilityPercent: 50, benchedPChainRequestsPercent: 45, benchedXChainRequestsPercent: 10, benchedCChainRequestsPercent: 45 } };
    const bad = active({ uptimePerformance: 80, avalancheGoVersion: 'avalanche/1.13.2', delegationCapacity: '500000000000', ...sick });
    const last = ['uptime last 80%', 'benched last on the P/C-chain', 'reachability last 50%', 'AvalancheGo 1.13.2 last', 'delegation capacity last 500 AVAX'];
    const ended = (status: string) => [validator.parse({ ...removedValidator(period), validationStatus: status })];
    expect(notices(s, [[bad], [bad], ended('removed')]).filter((n) => n.startsWith('resolved'))).toEqual(last.map((l) => `resolved: ${NODE}: validation ended (removed); ${l}`));
    expect(notices(s, [[bad], [bad], ended('exiting')]).filter((n) => n.startsWith('resolved'))).toEqual(last.map((l) => `resolved: ${NODE}: validation is no longer active (exiting); ${l}`));
  });

  it('a node first not listed (a NodeID not yet registered), then listed under its level: its alert fires, nothing is said ended', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    expect(notices(s, ['not-found', [active0(70)]])).toEqual([`firing: ${NODE} uptime 70% is under 80%: 10 points UNDER the 80% this validation needs for its reward; it can be down 35d 16h more and still be paid`]);
  });

  it('back exactly at its level + hysteresis is back: with no hysteresis, 80% resolves an alert under 80% at +0 points', () => {
    const none = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], uptime: { hysteresis: 0 } });
    expect(notices(none, [[active0(79)], [active0(80)]]).at(-1)).toBe(`resolved: ${NODE} uptime is back at 80% (above 80%); it can be down 35d 19h more and still be paid`);
    const [first] = run(none, [[active0(79)]]);
    const back = validatorHealth.evaluate(first?.states ?? new Map(), { service: [[active0(80)]] }, at(1), none);
    expect(back.resolvedAs?.(`${NODE}:uptime`)?.details?.['Margin']).toBe('+0 points');
    const band = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], uptime: { warning: 90 } });
    expect(notices(band, [[active0(88)], [active0(91)]]).at(-1)).toBe(`resolved: ${NODE} uptime is back at 91% (above 91%); it can be down 35d 21h more and still be paid`);
  });

  it('a node taken out of the rule resolves with the text kept from when it fired', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    const first = validatorHealth.evaluate(new Map(), { service: [[active0(79)]] }, at(0), s);
    const fired = advance([], first.conditions ?? [], at(0).getTime());
    const OTHER = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
    const r = validatorHealth.evaluate(first.states, { service: [[validator.parse(activeValidator({ ...period, nodeId: OTHER }))]] }, at(1), { ...s, nodeIds: [OTHER] });
    const [gone] = advance(fired.active, r.conditions ?? [], at(1).getTime(), undefined, r.resolvedAs).notifications;
    expect([gone?.status, gone?.summary]).toEqual(['resolved', `${NODE} uptime is back above 81% and it can be down 1d or more`]);
  });

  it('quote no figure of the moment the alert fired (the resolved text is the one kept from then)', () => {
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    const [r] = run(s, [[active({ uptimePerformance: 79.5 })]]);
    expect(r?.conditions?.[0]?.resolvedSummary).toBe(`${NODE} uptime is back above 81% and it can be down 1d or more`);
  });
});
