import { describe, expect, it } from 'vitest';
import { validator } from '../../api/schemas.js';
import { activeValidator } from '../../sim/samples.js';
import type { Seen } from '../validators.js';
import { validatorHealth } from './index.js';
import { spec as specSchema, type State } from './schema.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const START = 1_750_000_000;
// A day into a 180-day validation (80% needed): the downtime budget is weeks, so it never warns here.
const at = (minutes: number) => new Date((START + 86_400 + minutes * 60) * 1000);
const period = { nodeId: NODE, txHash: 'tx1', startTimestamp: START, endTimestamp: START + 180 * 86_400 };
const listed = (uptime: number): Seen => [validator.parse({ ...activeValidator(period), uptimePerformance: uptime })];

/** The uptime alert over the reads (one a minute): its severity and threshold label, or '-' when none holds. */
function uptimeAlerts(s: ReturnType<typeof specSchema.parse>, uptimes: number[]): string[] {
  let states: ReadonlyMap<string, State> = new Map();
  return uptimes.map((u, i) => {
    const r = validatorHealth.evaluate(states, { service: [listed(u)] }, at(i), s);
    states = r.states;
    const c = r.conditions?.find((x) => x.labels['check'] === 'uptime');
    return c ? `${c.severity}/${c.labels['threshold']}` : '-';
  });
}

/** Each uptime read alone, by a rule that has never seen the node. */
const firstReads = (s: ReturnType<typeof specSchema.parse>, uptimes: number[]) => uptimes.map((u) => uptimeAlerts(s, [u])[0]);

describe('validator-health uptime levels', () => {
  const bands = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], uptime: { warning: 85, critical: 82 } });

  it('entered just under a level, never at it: the warning under 85%, critical under 82%', () => {
    expect(firstReads(bands, [85.5, 85, 84.99, 82, 81.99])).toEqual(['-', '-', 'warning/warning', 'warning/warning', 'critical/critical']);
  });

  it('each tier is left only above its level + hysteresis (1 point): critical at 83, the warning at 86', () => {
    expect(uptimeAlerts(bands, [81.99, 82.99, 83, 85.99, 86])).toEqual(['critical/critical', 'critical/critical', 'warning/warning', 'warning/warning', '-']);
    // A wider hysteresis holds longer.
    const wide = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], uptime: { warning: 85, critical: 82, hysteresis: 3 } });
    expect(uptimeAlerts(wide, [81, 84.99, 85, 87.99, 88])).toEqual(['critical/critical', 'critical/critical', 'warning/warning', 'warning/warning', '-']);
  });

  it('by default (no band): critical under the reward threshold (80%), not at it; left above 81%', () => {
    const byDefault = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    expect(firstReads(byDefault, [80, 79.99])).toEqual(['-', 'critical/critical']);
    expect(uptimeAlerts(byDefault, [79.99, 80.99, 81])).toEqual(['critical/critical', 'critical/critical', '-']);
  });

  it('`uptime: false` turns uptime alerts off, however low; the uptime gauge still reads it', () => {
    const off = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], uptime: false });
    expect(uptimeAlerts(off, [50, 10, 0])).toEqual(['-', '-', '-']);
    const r = validatorHealth.evaluate(new Map(), { service: [listed(50)] }, at(0), off);
    expect(validatorHealth.samples(off, r.states, at(0)).find((g) => g.metric === 'avawatch_validator_uptime_percent')?.value).toBe(50);
  });

  it('the requirement can be set per rule (rewardUptime), each said in "Reward threshold"; one equal to the built-in says nothing more', () => {
    const parse = (over: Record<string, unknown>) => specSchema.parse({ network: 'mainnet', nodeIds: [NODE], ...over });
    const first = (s: ReturnType<typeof specSchema.parse>, u: number) => validatorHealth.evaluate(new Map(), { service: [listed(u)] }, at(0), s).conditions?.find((c) => c.labels['check'] === 'uptime');
    const before = 'the validation started before Helicon (2026-09-22T15:00:00Z on mainnet)';
    // Before Helicon (80% built in), raised to 85%: 84.99 is critical, and it says why.
    const raised = first(parse({ rewardUptime: { threshold: 85, heliconThreshold: 95 } }), 84.99);
    expect([raised?.severity, raised?.details['Reward threshold']]).toEqual(['critical', `85% (${before}; set to 85% by rewardUptime.threshold)`]);
    expect(first(parse({ rewardUptime: { threshold: 85 } }), 85)).toBeUndefined();
    // heliconThreshold is for a validation started after Helicon only.
    expect(first(parse({ rewardUptime: { heliconThreshold: 95 } }), 84.99)).toBeUndefined();
    expect(first(parse({ rewardUptime: { threshold: 80 } }), 79.99)?.details['Reward threshold']).toBe(`80% (${before})`);
    // After Helicon (START is Helicon here): 90% built in, 95% set.
    const helicon = new Date(START * 1000).toISOString();
    const after = first(parse({ upgrades: { helicon }, rewardUptime: { heliconThreshold: 95 } }), 94.99);
    expect([after?.severity, after?.details['Reward threshold']]).toEqual(['critical', `95% (ACP-267: the validation started at or after Helicon (${helicon.replace('.000Z', 'Z')} on mainnet, overridden); set to 95% by rewardUptime.heliconThreshold)`]);
    // The config's upgrades.helicon and the rule's older rewardUptime.heliconTime both move Helicon.
    expect(first(parse({ upgrades: { helicon } }), 89.99)?.details['Reward threshold']).toMatch(/^90% \(ACP-267/);
    expect(first(parse({ rewardUptime: { heliconTime: helicon } }), 89.99)?.details['Reward threshold']).toMatch(/^90% \(ACP-267/);
  });

  it('"Levels" says the critical level was raised to the requirement only when uptime.critical is under it', () => {
    const levels = (critical: number) => validatorHealth.evaluate(new Map(), { service: [listed(70)] }, at(0), specSchema.parse({ network: 'mainnet', nodeIds: [NODE], uptime: { critical } })).conditions?.[0]?.details['Levels'];
    const rest = 'each left only above it + 1 (hysteresis); a warning while it can be down less than 1d';
    expect(levels(75)).toBe(`critical under 80% (the reward threshold; uptime.critical 75% is under it); ${rest}`);
    expect(levels(80)).toBe(`critical under 80%; ${rest}`);
    expect(levels(85)).toBe(`critical under 85%; ${rest}`);
  });

  it('no band: a budget warning whose budget came back resolves, even with the uptime inside the critical hysteresis', () => {
    // The last day and a half of a 180-day validation (80% needed): at 80.2% the budget is 15.77 h (a warning, under 1 d);
    // a minute later at 80.6% it is 1.37 d (over 1.1 d): no warning, and 80.6% is no band to hold.
    const end = START + 180 * 86_400;
    const s = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
    let states: ReadonlyMap<string, State> = new Map();
    const seen = [80.2, 80.6].map((u, i) => {
      const r = validatorHealth.evaluate(states, { service: [listed(u)] }, new Date((end - 1.5 * 86_400 + i * 60) * 1000), s);
      states = r.states;
      return r.conditions?.map((c) => `${c.severity}/${c.summary.split(':')[0]}`);
    });
    expect(seen).toEqual([[`warning/${NODE} can be down only 15h 46m more and still be paid for this validation`], []]);
  });

  it('the firing alert states the judged period, the margin and, with the budget warning off, levels and a resolved text without it', () => {
    const noBudget = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], budget: false });
    const c = validatorHealth.evaluate(new Map(), { service: [listed(79.5)] }, at(0), noBudget).conditions?.[0];
    expect(c?.resolvedSummary).toBe(`${NODE} uptime is back above 81%`);
    expect(c?.details).toMatchObject({
      Margin: '−0.5 points',
      'Judged period': '2025-06-15T15:06:40Z to 2025-12-12T15:06:40Z (1d elapsed, 179d left)',
      Levels: 'critical under 80%; each left only above it + 1 (hysteresis)',
    });
  });

  it('inside the warning band\'s hysteresis the warning says it is not back above the band yet', () => {
    const band = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], uptime: { warning: 90 } });
    let states: ReadonlyMap<string, State> = new Map();
    const summaries = [89, 90.5].map((u, i) => {
      const r = validatorHealth.evaluate(states, { service: [listed(u)] }, at(i), band);
      states = r.states;
      return r.conditions?.map((c) => `${c.severity}: ${c.summary}`);
    });
    expect(summaries).toEqual([
      [`warning: ${NODE} uptime 89% is under 90%: 9 points above the 80% this validation needs for its reward`],
      [`warning: ${NODE} uptime 90.5% is not back above 91% yet: 10.5 points above the 80% this validation needs for its reward`],
    ]);
  });
  it('a state written before tiers were kept (uptimeFiring) is read as a warning: inside the band\'s hysteresis it still holds', () => {
    const band = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], uptime: { warning: 90 } });
    const first = validatorHealth.evaluate(new Map(), { service: [listed(89)] }, at(0), band);
    const { uptimeTier, ...rest } = first.states.get(NODE) as State;
    expect(uptimeTier).toBe('warning');
    const legacy = new Map([[NODE, { ...rest, uptimeFiring: true }]]);
    const next = validatorHealth.evaluate(legacy, { service: [listed(90.5)] }, at(1), band);
    expect(next.conditions?.map((c) => `${c.severity}: ${c.summary}`)).toEqual([`warning: ${NODE} uptime 90.5% is not back above 91% yet: 10.5 points above the 80% this validation needs for its reward`]);
    // Written back as a tier.
    expect(next.states.get(NODE)).toMatchObject({ uptimeTier: 'warning' });
    expect(next.states.get(NODE)).not.toHaveProperty('uptimeFiring');
  });
});
