import { systemClock } from '../base/clock.js';
import type { LoadedRule } from '../config/load.js';
import { ruleKind } from '../rules/registry.js';
import type { BudgetLimits } from '../api/limiter.js';
import { periodMs, runsPerDay } from '../base/schedule.js';

const DAY_MS = 86_400_000;

export interface ApiEstimate {
  api: 'data' | 'metrics';
  perMinute: number;
  perDay: number;
  limits: BudgetLimits;
  over: boolean;
}

export interface BudgetEstimate {
  apis: ApiEstimate[];
  /** Each rule's own spend per day, before calls shared with other rules. */
  rules: Array<{ rule: string; perDay: number; more: string | undefined; sharedWith: string[] }>;
  /** Calls asked by more than one rule, made once. */
  shared: number;
  /** Calls a day to the operators' own nodes (node-health, node-metrics): no compute units. */
  nodeCallsPerDay: number;
}

/**
 * Compute units the rules spend in steady state. Interval rules poll on the clock's
 * multiples of their interval, so a call asked by rules with intervals a and b is made
 * at the union of both tick sets; cron rules add their runs in the day of `from` (default:
 * today on the host's wall, for `check`; the page passes the App's).
 */
export function estimateBudget(rules: readonly LoadedRule[], limits: Record<'data' | 'metrics', BudgetLimits>, from = new Date(systemClock.now())): BudgetEstimate {
  const calls = new Map<string, { api: 'data' | 'metrics'; cu: number; intervals: Set<number>; cronRuns: number; askers: number; by: Set<string> }>();
  const keysOf = new Map<string, string[]>();
  const perRule: BudgetEstimate['rules'] = [];
  let nodeCallsPerDay = 0;
  for (const rule of rules) {
    const cost = ruleKind(rule.kind).cost(rule.spec as never);
    const runs = runsPerDay(rule.schedule, from);
    const period = periodMs(rule.schedule);
    nodeCallsPerDay += runs * (cost.nodeCalls ?? 0);
    perRule.push({ rule: rule.name, perDay: runs * cost.calls.reduce((sum, c) => sum + c.cu, 0), more: cost.more, sharedWith: [] });
    keysOf.set(rule.name, cost.calls.map((c) => c.key));
    for (const c of cost.calls) {
      const entry = calls.get(c.key) ?? { api: c.api, cu: c.cu, intervals: new Set<number>(), cronRuns: 0, askers: 0, by: new Set<string>() };
      entry.askers++;
      entry.by.add(rule.name);
      if (period !== undefined) entry.intervals.add(period);
      else entry.cronRuns += runs;
      calls.set(c.key, entry);
    }
  }
  // Each rule's calls that another rule asks too: made once for both.
  for (const r of perRule) r.sharedWith = [...new Set((keysOf.get(r.rule) ?? []).flatMap((k) => [...(calls.get(k)?.by ?? [])]))].filter((n) => n !== r.rule);
  const perDay = { data: 0, metrics: 0 };
  const unions = new Map<string, number>();
  for (const c of calls.values()) {
    const signature = [...c.intervals].sort((a, b) => a - b).join(',');
    const ticks = unions.get(signature) ?? ticksPerDay([...c.intervals]);
    unions.set(signature, ticks);
    perDay[c.api] += (ticks + c.cronRuns) * c.cu;
  }
  const apis = (['data', 'metrics'] as const).map((api) => {
    const day = Math.round(perDay[api]);
    const minute = Math.round(perDay[api] / 1440);
    return { api, perMinute: minute, perDay: day, limits: limits[api], over: minute > limits[api].perMinute || day > limits[api].perDay };
  });
  return { apis, rules: perRule, shared: [...calls.values()].filter((c) => c.askers > 1).length, nodeCallsPerDay: Math.round(nodeCallsPerDay) };
}

/** Distinct tick times in a day of the union of these intervals (inclusion–exclusion over lcms). */
export function ticksPerDay(intervals: readonly number[]): number {
  // Past a dozen distinct intervals on one call, count them apart (an overestimate).
  if (intervals.length > 12) return intervals.reduce((sum, e) => sum + DAY_MS / e, 0);
  let total = 0;
  const n = intervals.length;
  for (let mask = 1; mask < 1 << n; mask++) {
    let l = 1;
    let bits = 0;
    for (let i = 0; i < n; i++) {
      if (mask & (1 << i)) {
        l = lcm(l, intervals[i] as number);
        bits++;
      }
    }
    total += (bits % 2 === 1 ? 1 : -1) * (DAY_MS / l);
  }
  return total;
}


function lcm(a: number, b: number): number {
  const gcd = (x: number, y: number): number => (y === 0 ? x : gcd(y, x % y));
  return (a / gcd(a, b)) * b;
}
