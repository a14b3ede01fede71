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
});
