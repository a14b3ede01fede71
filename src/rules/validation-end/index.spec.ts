import { describe, expect, it } from 'vitest';
import { validator } from '../../api/schemas.js';
import { validatorSample } from '../../sim/samples.js';
import { advance, type ActiveAlert } from '../../alerts/lifecycle.js';
import { validationEnd } from './index.js';
import { spec as specSchema, type State } from './schema.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const spec = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
const DAY = 86_400;
const END = 1_800_000_000;
const period = { nodeId: NODE, txHash: 'tx1', startTimestamp: END - 365 * DAY, endTimestamp: END };
const active = [validator.parse(validatorSample.active(period))];

/** Evaluates at `daysLeft` before the end and runs the lifecycle, as the engine does. */
function at(daysLeft: number, seen = active, prev: ReadonlyMap<string, State> = new Map(), firing: ActiveAlert[] = []) {
  const now = new Date((END - daysLeft * DAY) * 1000);
  const result = validationEnd.evaluate(prev, [seen], now, spec);
  const life = advance(firing, result.conditions ?? [], now.getTime(), undefined, result.resolvedAs);
  return { ...result, ...life };
}

describe('validation-end', () => {
  it('is quiet before the largest threshold', () => {
    expect(at(15).conditions).toEqual([]);
  });

  it('fires inside 14d, escalates at 3d and 1d, and again when the period has ended', () => {
    const a = at(13.5);
    expect(a.notifications.map((n) => [n.status, n.summary])).toEqual([['firing', `${NODE} validation ends in 13d12h (2027-01-15T08:00:00Z)`]]);
    expect(a.notifications[0]?.labels).toEqual({ node: NODE, network: 'mainnet', threshold: '14d' });
    expect(at(10, active, a.states, a.active).notifications).toEqual([]);
    const b = at(2.5, active, a.states, a.active);
    expect(b.notifications.map((n) => n.labels['threshold'])).toEqual(['3d']);
    const c = at(0.5, active, b.states, b.active);
    expect(c.notifications.map((n) => n.details['Escalated'])).toEqual(['3d → 1d']);
    const done = [validator.parse(validatorSample.completed(period))];
    const d = at(-0.25, done, c.states, c.active);
    expect(d.notifications.map((n) => n.summary)).toEqual([`${NODE} validation ended 6h ago (2027-01-15T08:00:00Z) and no new period has started`]);
  });

  it('resolves when a new validation period starts', () => {
    const a = at(1);
    const next = validatorSample.active({ ...period, txHash: 'tx2', startTimestamp: END + 60, endTimestamp: END + 180 * DAY });
    const b = at(-1, [validator.parse(validatorSample.completed(period)), validator.parse(next)], a.states, a.active);
    expect(b.notifications.map((n) => [n.status, n.summary])).toEqual([['resolved', `${NODE} has a new validation period: the end warning is resolved`]]);
    // The period now, and the one that was ending only as it was then.
    expect(b.notifications[0]?.details).toMatchObject({ 'Period ends': '2027-07-14T08:00:00Z', Status: 'active', 'Staking tx': 'tx2', 'When it fired: Staking tx': 'tx1' });
  });

  it('resolves when the next period is registered, saying it is pending', () => {
    const a = at(1);
    const next = validatorSample.pending({ ...period, txHash: 'tx2', startTimestamp: END + 60, endTimestamp: END + 180 * DAY });
    const b = at(0.5, [validator.parse(next)], a.states, a.active);
    expect(b.notifications.map((n) => n.summary)).toEqual([`${NODE} has its next validation period registered (pending, ends 2027-07-14T08:00:00Z): the end warning is resolved`]);
  });

  it('keeps firing, not resolving, when the node drops out of the list', () => {
    const a = at(1);
    const b = at(0.9, [], a.states, a.active);
    expect(b.notifications).toEqual([]);
    expect(b.active).toHaveLength(1);
  });

  it('sorts and dedupes warnBefore', () => {
    expect(specSchema.parse({ network: 'fuji', nodeIds: [NODE], warnBefore: ['1d', '7d', '1d'] }).warnBefore).toEqual([604_800_000, 86_400_000]);
  });
});
