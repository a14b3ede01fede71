import { roughSpan } from '../../base/duration.js';
import { describe, expect, it } from 'vitest';
import { validator } from '../../api/schemas.js';
import { activeValidator } from '../../sim/samples.js';
import { downtimeBudget } from './budget.js';
import { validatorHealth } from './index.js';
import { spec as specSchema, type State } from './schema.js';
import { advance, type ActiveAlert } from '../../alerts/lifecycle.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const DAY = 86_400;
/** 2026-10-01: after Mainnet's Helicon (2026-09-22 15:00 UTC), so 90% is needed. */
const START = Date.parse('2026-10-01T00:00:00Z') / 1000;
const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
const listed = (uptime: number, days: number) => validator.parse({ ...activeValidator({ nodeId: NODE, txHash: 'tx1', startTimestamp: START, endTimestamp: START + days * DAY }), uptimePerformance: uptime });
const after = (days: number) => new Date((START + days * DAY) * 1000);

describe('the downtime budget', () => {
  it('is uptime × elapsed + remaining − requirement × length, on a fixed case', () => {
    // A 100-day validation, 40 days in, at 95% so far, 90% needed:
    //   0.95 × 40 d = 38 d up; 60 d remaining; 0.9 × 100 d = 90 d needed; 38 + 60 − 90 = 8 d.
    const f = downtimeBudget(95, START, START + 100 * DAY, START + 40 * DAY, 90);
    expect(f).toEqual({ budget: 8 * DAY, elapsed: 40 * DAY, remaining: 60 * DAY, length: 100 * DAY, reachable: 98 });
    // Before the start nothing is spent; after the end nothing remains.
    expect(downtimeBudget(95, START, START + 100 * DAY, START - DAY, 90)?.budget).toBe(10 * DAY);
    expect(downtimeBudget(95, START, START + 100 * DAY, START + 200 * DAY, 90)?.budget).toBe(5 * DAY);
    // No reading: a period with no length or one that ends before it starts, an uptime out of 0..100.
    expect(downtimeBudget(95, START, START, START, 90)).toBeUndefined();
    expect(downtimeBudget(95, START, START - DAY, START, 90)).toBeUndefined();
    expect(downtimeBudget(100.5, START, START + DAY, START, 90)).toBeUndefined();
    expect(downtimeBudget(Number.NaN, START, START + DAY, START, 90)).toBeUndefined();
  });

  it('the state, the gauge and the alert all carry the same figure', () => {
    const r = validatorHealth.evaluate(new Map(), { service: [[listed(87, 100)]] }, after(40), s);
    // 0.87 × 40 d = 34.8 d up; 60 d remaining; 90 d needed: 4.8 d = 414,720 s.
    expect(r.states.get(NODE)?.views).toEqual({ service: { uptime: 87, budget: 414_720, kind: 'under', streak: 1, holds: 'under' } });
    const gauge = validatorHealth.samples(s, r.states, after(40)).find((g) => g.metric === 'avawatch_validator_downtime_budget_seconds');
    expect(gauge).toEqual({ metric: 'avawatch_validator_downtime_budget_seconds', labels: { network: 'mainnet', node_id: NODE, view: 'service' }, value: 414_720 });
    expect(roughSpan(414_720)).toBe('4d 19h');
    expect(r.conditions?.[0]?.summary).toBe(`${NODE} uptime 87% is under 90%: 3 points UNDER the 90% this validation needs for its reward; it can be down 4d 19h more and still be paid`);
    expect(r.conditions?.[0]?.details['Downtime budget']).toBe('4d 19h (service)');
  });

  it('critical, said plainly, once the reward cannot be reached; a warning while the budget is short', () => {
    // 40 days in at 84%: 33.6 + 60 − 90 = 3.6 d; at 80%: 32 + 60 − 90 = 2 d; at 70%: 28 + 60 − 90 = −2 d.
    const lost = validatorHealth.evaluate(new Map(), { service: [[listed(70, 100)]] }, after(40), s).conditions?.[0];
    expect([lost?.severity, lost?.tier, lost?.summary]).toEqual([
      'critical',
      'lost',
      `${NODE} can no longer be paid for this validation: uptime 70% so far leaves at most 88% by its end, 2027-01-09T00:00:00Z, under the 90% it needs`,
    ]);
    expect(lost?.details['Downtime budget']).toBe('none (2d over) (service)');
    // Short: 98 days into a 100-day validation at 90.4%: 88.592 + 2 − 90 = 0.592 d, under the 1 d warning.
    const short = validatorHealth.evaluate(new Map(), { service: [[listed(90.4, 100)]] }, after(98), s).conditions?.[0];
    expect([short?.severity, short?.summary]).toEqual(['warning', `${NODE} can be down only 14h 12m more and still be paid for this validation: uptime 90.4%, 90% needed by 2027-01-09T00:00:00Z`]);
    // The share: a 48-hour validation's allowance is 4.8 h; 10% of it (28.8 min) is the warning, under 1 d.
    // At 95% one day in: 0.95 d + 1 d − 1.8 d = 0.15 d = 3.6 h: no warning. At 90.5% with an hour left: 42.535 h + 1 h − 43.2 h = 20.1 min.
    expect(validatorHealth.evaluate(new Map(), { service: [[listed(95, 2)]] }, after(1), s).conditions).toEqual([]);
    const brief = validatorHealth.evaluate(new Map(), { service: [[listed(90.5, 2)]] }, new Date((START + 47 * 3_600) * 1000), s).conditions?.[0];
    expect(brief?.summary).toBe(`${NODE} can be down only 20m more and still be paid for this validation: uptime 90.5%, 90% needed by 2026-10-03T00:00:00Z`);
    // budget: false turns the warning off, not the critical.
    const off = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], budget: false });
    expect(validatorHealth.evaluate(new Map(), { service: [[listed(90.4, 100)]] }, after(98), off).conditions).toEqual([]);
    expect(validatorHealth.evaluate(new Map(), { service: [[listed(70, 100)]] }, after(40), off).conditions?.[0]?.tier).toBe('lost');
    // uptime: false turns every uptime alert off.
    const none = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], uptime: false });
    expect(validatorHealth.evaluate(new Map(), { service: [[listed(70, 100)]] }, after(40), none).conditions).toEqual([]);
  });

  it("the node's own view (info.uptime, its peers') counts beside the service's once it held 3 polls; the worse decides and is named", () => {
    const withApi = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], nodeApis: { [NODE]: 'http://127.0.0.1:9650' } });
    const minute = 1 / 1440;
    const polls = (owns: Array<number | { failed: string }>) => {
      let states: ReadonlyMap<string, State> = new Map();
      return owns.map((own, i) => {
        const r = validatorHealth.evaluate(states, { service: [[listed(95, 100)]], own: { [NODE]: own } }, after(40 + i * minute), withApi);
        states = r.states;
        return r;
      });
    };
    // A node just restarted reads its peers' uptime low for a poll or two (peers not yet connected count as 0): nobody is paged.
    expect(polls([99, 25, 40, 99]).flatMap((r) => r.conditions ?? [])).toEqual([]);
    const low = polls([84, 84, 84, { failed: 'node 127.0.0.1:9650 info.uptime: network error (ECONNREFUSED)' }]);
    expect(low.map((r) => r.conditions?.map((c) => c.severity))).toEqual([[], [], ['critical'], ['critical']]);
    expect(low[2]?.conditions?.[0]?.summary).toBe(`${NODE} uptime 84% (its peers' view (the node's own info.uptime)) is under 90%: 6 points UNDER the 90% this validation needs for its reward; it can be down 3d 14h more and still be paid`);
    expect(low[2]?.conditions?.[0]?.details['Downtime budget']).toBe('7d 23h (service); 3d 14h (node)');
    // Its API not answering: its last view stands, judged as of when it was read (nothing resolves, nothing drifts).
    expect(low[3]?.states.get(NODE)?.own).toEqual({ uptime: 84, at: Math.floor(after(40 + 2 * minute).getTime() / 1000) });
    expect(low[3]?.states.get(NODE)?.views?.node?.budget).toBe(low[2]?.states.get(NODE)?.views?.node?.budget);
  });

  it("an alert resolved while the node's own view is the lower one says that view, each view's figures and the levels", () => {
    const withApi = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], nodeApis: { [NODE]: 'http://127.0.0.1:9650' } });
    let states: ReadonlyMap<string, State> = new Map();
    let active: ActiveAlert[] = [];
    const resolved: Array<{ summary: string; details: Record<string, string> }> = [];
    [84, 84, 84, 94].forEach((own, i) => {
      const t = after(40 + i / 1440);
      const r = validatorHealth.evaluate(states, { service: [[listed(95, 100)]], own: { [NODE]: own } }, t, withApi);
      const next = advance(active, r.conditions ?? [], t.getTime(), undefined, r.resolvedAs);
      [states, active] = [r.states, next.active];
      resolved.push(...next.notifications.filter((n) => n.status === 'resolved'));
    });
    expect(resolved.map((n) => n.summary)).toEqual([`${NODE} uptime is back at 94% (its peers' view (the node's own info.uptime)) (above 91%); it can be down 7d 14h more and still be paid`]);
    expect(resolved[0]?.details).toMatchObject({
      Node: NODE,
      Network: 'mainnet',
      Uptime: "95% (the service's own node's view); 94% (its peers' view (the node's own info.uptime))",
      'Downtime budget': '7d 23h (service); 7d 14h (node)',
      Margin: '+4 points',
      Levels: 'critical under 90%; each left only above it + 1 (hysteresis); a warning while it can be down less than 1d',
    });
  });

  it("a resolution's Levels name the budget warning of a short validation: 10% of its allowance, under a day", () => {
    // A 48-hour validation (90%): its allowance is 4.8 h, the warning 28.8 min. 95% one day in: 3.6 h left (see above).
    const fired = validatorHealth.evaluate(new Map(), { service: [[listed(89, 2)]] }, after(1), s);
    const firing = advance([], fired.conditions ?? [], after(1).getTime());
    const r = validatorHealth.evaluate(fired.states, { service: [[listed(95, 2)]] }, after(1 + 1 / 1440), s);
    const [back] = advance(firing.active, r.conditions ?? [], after(1 + 1 / 1440).getTime(), undefined, r.resolvedAs).notifications;
    expect(back?.details['Levels']).toBe('critical under 90%; each left only above it + 1 (hysteresis); a warning while it can be down less than 28m');
  });

  it("the node's own view, when its API fails, stands only for the same validation and while its API is declared", () => {
    const withApi = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], nodeApis: { [NODE]: 'http://127.0.0.1:9650' } });
    const failed = { failed: 'node 127.0.0.1:9650 info.uptime: network error (ECONNREFUSED)' };
    const first = validatorHealth.evaluate(new Map(), { service: [[listed(95, 100)]], own: { [NODE]: 84 } }, after(40), withApi);
    const views = (r: { states: ReadonlyMap<string, State> }, spec: typeof s) => validatorHealth.samples(spec, r.states, after(41)).filter((g) => g.metric === 'avawatch_validator_downtime_budget_seconds').map((g) => g.labels['view']);
    expect(views(validatorHealth.evaluate(first.states, { service: [[listed(95, 100)]], own: { [NODE]: failed } }, after(41), withApi), withApi)).toEqual(['service', 'node']);
    // A new validation: the last one's view of the node is not this one's.
    const next = validator.parse({ ...activeValidator({ nodeId: NODE, txHash: 'tx2', startTimestamp: START + DAY, endTimestamp: START + 101 * DAY }), uptimePerformance: 95 });
    expect(views(validatorHealth.evaluate(first.states, { service: [[next]], own: { [NODE]: failed } }, after(41), withApi), withApi)).toEqual(['service']);
    // Its API taken out of the rule: no view of it stands.
    expect(views(validatorHealth.evaluate(first.states, { service: [[listed(95, 100)]] }, after(41), s), s)).toEqual(['service']);
  });

  it('past saving is left only above a margin: the service rounding its uptime near the line sends one message, not one a poll', () => {
    let states: ReadonlyMap<string, State> = new Map();
    let active: ActiveAlert[] = [];
    const sent: string[] = [];
    // 170 days into a 180-day validation, 90% needed: 89.4 leaves −0.08 d, 89.45 leaves +0.01 d (under the margin, 1% of 18 d).
    [89.4, 89.45, 89.4, 89.45].forEach((u, i) => {
      const r = validatorHealth.evaluate(states, { service: [[listed(u, 180)]] }, after(170 + i / 1440), s);
      const next = advance(active, r.conditions ?? [], after(170 + i / 1440).getTime());
      [states, active] = [r.states, next.active];
      sent.push(...next.notifications.map((n) => `${n.status} ${n.summary}`));
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(new RegExp(`^firing ${NODE} can no longer be paid for this validation: uptime 89\\.4% so far`));
  });
});

describe('the downtime budget: hysteresis and the view named', () => {
  it('a budget warning is left only 10% above where it entered (1 d: 1.1 d); read at 1.05 d with no warning held, it is none', () => {
    // 98 days into a 100-day validation (90% needed): the budget is 0.98 × u − 88 days.
    const uptimes = [90.4, 90.87, 90.97, 90.87];
    let states: ReadonlyMap<string, State> = new Map();
    const held = uptimes.map((u, i) => {
      const r = validatorHealth.evaluate(states, { service: [[listed(u, 100)]] }, after(98 + i / 1440), s);
      states = r.states;
      return r.conditions?.map((c) => `${c.severity} ${c.summary.split(':')[0]}`);
    });
    expect(held).toEqual([[`warning ${NODE} can be down only 14h 12m more and still be paid for this validation`], [`warning ${NODE} can be down only 1d 1h more and still be paid for this validation`], [], []]);
  });

  it('two views saying the same: the one with less budget is named', () => {
    const withApi = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], nodeApis: { [NODE]: 'http://127.0.0.1:9650' } });
    let states: ReadonlyMap<string, State> = new Map();
    let last;
    for (let i = 0; i < 3; i++) {
      last = validatorHealth.evaluate(states, { service: [[listed(86, 100)]], own: { [NODE]: 85 } }, after(40 + i / 1440), withApi);
      states = last.states;
    }
    expect(last?.conditions?.map((c) => c.summary)).toEqual([`${NODE} uptime 85% (its peers' view (the node's own info.uptime)) is under 90%: 5 points UNDER the 90% this validation needs for its reward; it can be down 3d 23h more and still be paid`]);
  });

  it('two views saying the same, the service\'s the lower: the service\'s is named, not the one read after it', () => {
    const withApi = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], nodeApis: { [NODE]: 'http://127.0.0.1:9650' } });
    let states: ReadonlyMap<string, State> = new Map();
    const named = [0, 1, 2].map((i) => {
      const r = validatorHealth.evaluate(states, { service: [[listed(85, 100)]], own: { [NODE]: 86 } }, after(40 + i / 1440), withApi);
      states = r.states;
      return r.conditions?.map((c) => c.summary.split(':')[0]);
    });
    expect(named.at(-1)).toEqual([`${NODE} uptime 85% is under 90%`]);
  });
});

describe('the downtime budget: leaving "past saving"', () => {
  // 170 days into a 180-day validation, 90% needed: the budget is 1.7 × u − 152 days; the margin is 1% of the 18-day allowance (4h 19m).
  const over = (uptimes: number[]) => {
    let states: ReadonlyMap<string, State> = new Map();
    return uptimes.map((u, i) => {
      const r = validatorHealth.evaluate(states, { service: [[listed(u, 180)]] }, after(170 + i / 1440), s);
      states = r.states;
      return r.conditions?.map((c) => `${c.tier} ${c.summary.split(':')[0]}`);
    });
  };

  it('past the margin (4h 49m of budget) it is under the requirement again, no longer lost', () => {
    expect(over([89.4, 89.53])).toEqual([[`lost ${NODE} can no longer be paid for this validation`], [`critical ${NODE} uptime 89.53% is under 90%`]]);
  });

  it('a first read inside the margin (1h 33m of budget) is under the requirement, not lost', () => {
    expect(over([89.45])).toEqual([[`critical ${NODE} uptime 89.45% is under 90%`]]);
  });
});
