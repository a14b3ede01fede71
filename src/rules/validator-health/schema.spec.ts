import { describe, expect, it } from 'vitest';
import { validator } from '../../api/schemas.js';
import { issuesToProblems } from '../../base/issues.js';
import { formatProblem, YamlSource } from '../../base/source.js';
import { activeValidator } from '../../sim/samples.js';
import type { Staker } from '../pchain.js';
import { validatorHealth } from './index.js';
import type { Observation } from './observe.js';
import { spec, type State } from './schema.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';

/** What the operator reads for a rule body written as YAML (after `network` and `nodeIds`): `file:line:col: path: message`. */
function problems(yaml: string): string[] {
  const source = new YamlSource('rules.yaml', `network: mainnet\nnodeIds: [${NODE}]\n${yaml}`, {});
  const parsed = spec.safeParse(source.data);
  return parsed.success ? [] : issuesToProblems(source, parsed.error.issues).map(formatProblem);
}
const rule = (over: Record<string, unknown> = {}) => spec.parse({ network: 'mainnet', nodeIds: [NODE], ...over });

describe('validator-health: the rule as written', () => {
  it('by default: uptime critical under the reward threshold with 1 point of hysteresis, a budget warning under 1 day or 10% of the allowance', () => {
    expect(rule()).toEqual({ network: 'mainnet', nodeIds: [NODE], uptime: { hysteresis: 1 }, budget: { warnBelow: 86_400_000, warnShare: 10 }, rewardUptime: {} });
    // Each key left out of a block takes its default.
    expect(rule({ uptime: { warning: 95 }, budget: { warnShare: 5 } })).toMatchObject({ uptime: { warning: 95, hysteresis: 1 }, budget: { warnBelow: 86_400_000, warnShare: 5 } });
    expect(rule({ budget: { warnBelow: '2h' } }).budget).toEqual({ warnBelow: 7_200_000, warnShare: 10 });
    expect(rule({ uptime: false, budget: false })).toMatchObject({ uptime: false, budget: false });
  });

  it('benched and reachability are off unless set; set empty, above 20% / under 80% for 10 minutes', () => {
    expect(rule()).not.toHaveProperty('benched');
    expect(rule()).not.toHaveProperty('reachability');
    const on = rule({ benched: {}, reachability: {} });
    expect([on.benched, on.reachability]).toEqual([
      { above: 20, for: 600_000 },
      { below: 80, for: 600_000 },
    ]);
    expect(validatorHealth.describe(on)).toContain('benched above 20% for 10m, reachability under 80% for 10m');
  });

  it('the levels at their bounds are accepted: 0% and 100%, hysteresis 0 to 10, critical equal to warning', () => {
    expect(problems('uptime: {warning: 100, critical: 100, hysteresis: 10}\nbudget: {warnShare: 0}\n')).toEqual([]);
    expect(problems('uptime: {warning: 0, critical: 0, hysteresis: 0}\nbudget: {warnShare: 100}\n')).toEqual([]);
    expect(problems('benched: {above: 0}\nreachability: {below: 100}\nrewardUptime: {threshold: 100, heliconThreshold: 0}\n')).toEqual([]);
  });

  it('a wrong type inside a block that may also be `false` is named at its key, not as the block', () => {
    expect(problems('uptime: {critical: x}\n')).toEqual(['rules.yaml:3:20: uptime.critical: expected number, got string "x"']);
    expect(problems('budget: {warnShare: [1]}\n')).toEqual(['rules.yaml:3:21: budget.warnShare: expected number, got a list']);
    // Neither `false` nor a block: the block's own message.
    expect(problems('uptime: yes\n')).toHaveLength(1);
  });

  it('a mistake is named where it was written', () => {
    expect(problems('uptime:\n  warning: 85\n  critical: 90\n')).toEqual(['rules.yaml:5:13: uptime.critical: uptime.critical must not be above uptime.warning']);
    expect(problems('uptime: {critical: 101, hysteresis: 11}\n')).toEqual([
      'rules.yaml:3:20: uptime.critical: Too big: expected number to be <=100',
      'rules.yaml:3:37: uptime.hysteresis: Too big: expected number to be <=10',
    ]);
    expect(problems('uptime: {warning: -1, hysteresis: -0.5}\n')).toEqual([
      'rules.yaml:3:19: uptime.warning: Too small: expected number to be >=0',
      'rules.yaml:3:35: uptime.hysteresis: Too small: expected number to be >=0',
    ]);
    expect(problems('budget: {warnShare: 150}\nminVersion: latest\n')).toEqual(['rules.yaml:3:21: budget.warnShare: Too big: expected number to be <=100', 'rules.yaml:4:13: minVersion: expected a version such as 1.14.1']);
    expect(problems('benched: {above: 120}\nreachability: {below: -5, for: 1h}\nrewardUptime: {threshold: 101}\n')).toEqual([
      'rules.yaml:5:27: rewardUptime.threshold: Too big: expected number to be <=100',
      'rules.yaml:3:18: benched.above: Too big: expected number to be <=100',
      'rules.yaml:4:23: reachability.below: Too small: expected number to be >=0',
    ]);
    expect(problems('uptime: {warn: 90}\n')).toEqual(['rules.yaml:3:10: uptime.warn: unknown key "warn"']);
  });
});

describe('validator-health: what it keeps across a restart', () => {
  const OTHER = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
  const DAY = 86_400;
  const START = Date.parse('2026-11-01T00:00:00Z') / 1000;
  // Parsed in the test, not when the file loads: a schema broken on purpose (mutation testing) fails the test, not the file.
  const everything = () => rule({ nodeIds: [NODE, OTHER], uptime: { warning: 95 }, benched: { for: '1m' }, reachability: { for: '1m' }, pChainApi: 'https://api.avax.network', nodeApis: { [NODE]: 'http://10.0.0.1:9650' } });
  /** NODE: auto-renewed, in the band under 95% by all three views, benched and unreachable; OTHER: plainly validating, under its 90%. */
  const poll = (service: number, pchain: number, own: number): Observation => {
    const cycle = { start: START, end: START + 14 * DAY };
    const staker: Staker = { txId: 'tx1', nodeId: NODE, ...cycle, weight: '2000000000000', potentialReward: '40000000000', delegateeReward: '0', uptime: pchain, autoRenew: { nextPeriod: 14 * DAY, compoundShares: 500_000, authority: { threshold: 1, addresses: ['P-avax1gss39m5sx6jn7wlyzeqzm086yfq2l02xkvmecy'] } } };
    const sick = { reachabilityPercent: 50, benchedPChainRequestsPercent: 45, benchedXChainRequestsPercent: 0, benchedCChainRequestsPercent: 0 };
    const mine = validator.parse({ ...activeValidator({ nodeId: NODE, txHash: 'tx1', startTimestamp: cycle.start, endTimestamp: cycle.end }), uptimePerformance: service, validatorHealth: sick });
    const other = validator.parse({ ...activeValidator({ nodeId: OTHER, txHash: 'tx2', startTimestamp: START, endTimestamp: START + 180 * DAY }), uptimePerformance: 85 });
    return { service: [[mine], [other]], pchain: { source: 'api.avax.network', stakers: new Map([[NODE, staker]]) }, own: { [NODE]: own } };
  };
  const at = (days: number) => new Date((START + days * DAY) * 1000);
  /** The states as the engine reads them back from the state file: JSON, then the kind's state schema. */
  const restarted = (states: ReadonlyMap<string, State>) => new Map([...states].map(([node, st]) => [node, validatorHealth.state.parse(JSON.parse(JSON.stringify(st)))]));

  it('every figure, view and tier is read back as it was written, and the next poll says what it would have said without the restart', () => {
    const s = everything();
    const first = validatorHealth.evaluate(new Map(), poll(94, 93, 92), at(5), s);
    const second = validatorHealth.evaluate(first.states, poll(94, 93, 92), at(5.001), s);
    expect(second.conditions?.map((c) => `${c.subject} ${c.labels['check']} ${c.severity ?? ''}`)).toEqual([`${NODE} uptime warning`, `${NODE} benched `, `${NODE} reachability `, `${OTHER} uptime critical`]);
    const kept = restarted(second.states);
    expect(kept).toEqual(second.states);
    expect(kept.get(NODE)).toMatchObject({ uptimeTier: 'warning', own: { uptime: 92 }, pchainUptime: 93, renew: { txId: 'tx1', nextPeriod: 14 * DAY }, judged: { start: START, cycle: true }, benched: { P: 45 } });
    expect(Object.keys(kept.get(NODE)?.views ?? {})).toEqual(['service', 'node', 'p-chain']);
    expect(kept.get(OTHER)?.uptimeTier).toBe('critical');
    // A view of the node's peers counts only after three polls in a row: the streak survives the restart.
    const next = poll(94, 93, 70);
    const went = validatorHealth.evaluate(second.states, next, at(5.002), s);
    const back = validatorHealth.evaluate(kept, next, at(5.002), s);
    expect(back.conditions).toEqual(went.conditions);
    expect(back.alerts).toEqual(went.alerts);
    expect(back.states).toEqual(went.states);
  });

  it("a state row that is not one (another kind's, a broken one) is refused, never read as \"nothing known\"", () => {
    const parses = (st: Record<string, unknown>) => validatorHealth.state.safeParse(st).success;
    expect(parses({ period: null })).toBe(true);
    const broken = [{ uptimeTier: 'page' }, { views: { service: { uptime: 80 } } }, { judged: { start: 1 } }, { own: { uptime: 90 } }, { renew: { txId: 'tx1' } }, { benched: { P: '45' } }];
    expect(broken.filter((st) => parses({ period: null, ...st }))).toEqual([]);
    expect(parses({ missing: true })).toBe(false);
  });
});
