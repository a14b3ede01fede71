import { describe, expect, it } from 'vitest';
import { validator } from '../../api/schemas.js';
import { validatorSample } from '../../sim/samples.js';
import { advance, type ActiveAlert } from '../../alerts/lifecycle.js';
import { validationEnd } from './index.js';
import { largestThreshold, spec as specSchema, thresholdsFor, type State } from './schema.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const spec = specSchema.parse({ network: 'mainnet', nodeIds: [NODE] });
const DAY = 86_400;
const END = 1_800_000_000;
const period = { nodeId: NODE, txHash: 'tx1', startTimestamp: END - 365 * DAY, endTimestamp: END };
const active = [validator.parse(validatorSample.active(period))];

/** Evaluates at `daysLeft` before the end and runs the lifecycle, as the engine does. */
function at(daysLeft: number, seen = active, prev: ReadonlyMap<string, State> = new Map(), firing: ActiveAlert[] = []) {
  const now = new Date((END - daysLeft * DAY) * 1000);
  const result = validationEnd.evaluate(prev, { service: [seen] }, now, spec);
  const life = advance(firing, result.conditions ?? [], now.getTime(), undefined, result.resolvedAs);
  return { ...result, ...life };
}

describe('validation-end', () => {
  it('is quiet before the largest threshold', () => {
    expect(at(15).conditions).toEqual([]);
  });

  it('fires inside 14d, escalates at 3d and 1d, and again when the period has ended', () => {
    const a = at(13.5);
    expect(a.notifications.map((n) => [n.status, n.summary])).toEqual([['firing', `${NODE} validation ends within 14d, at 2027-01-15T08:00:00Z`]]);
    expect(a.notifications[0]?.labels).toEqual({ node: NODE, network: 'mainnet', threshold: '14d' });
    expect(at(10, active, a.states, a.active).notifications).toEqual([]);
    const b = at(2.5, active, a.states, a.active);
    expect(b.notifications.map((n) => n.labels['threshold'])).toEqual(['3d']);
    const c = at(0.5, active, b.states, b.active);
    expect(c.notifications.map((n) => n.details['Escalated'])).toEqual(['3d → 1d']);
    const done = [validator.parse(validatorSample.completed(period))];
    const d = at(-0.25, done, c.states, c.active);
    expect(d.notifications.map((n) => n.summary)).toEqual([`${NODE} validation ended 2027-01-15T08:00:00Z and no new period has started`]);
  });

  it('a summary read minutes after its evaluation is still true: times as they are, none counted from the evaluation (issue 38)', () => {
    const done = [validator.parse(validatorSample.completed(period))];
    // Evaluated 2 minutes after the end; delivered (or evaluated again) 6 minutes later.
    const minute = 60 / DAY;
    for (const [ago, later] of [[-2 * minute, -8 * minute], [2.5, 2.5 - 6 * minute]] as const) {
      const seen = ago < 0 ? done : active;
      const summaries = [ago, later].map((d) => at(d, seen).conditions?.[0]?.summary);
      expect(summaries[0]).toBeDefined();
      expect(summaries[1]).toBe(summaries[0]);
      expect(summaries[0]).not.toMatch(/\bago\b|\bin \d/);
    }
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

  it('sorts and dedupes warnBefore, each resolved against the period', () => {
    const list = specSchema.parse({ network: 'fuji', nodeIds: [NODE], warnBefore: ['1d', '7d', '1d'] }).warnBefore;
    expect(thresholdsFor(list, 365 * DAY).map((t) => t.ms)).toEqual([604_800_000, 86_400_000]);
    const bad = specSchema.safeParse({ network: 'fuji', nodeIds: [NODE], warnBefore: ['0%', '150%', { share: '2%', min: '3d', max: '1h' }] });
    expect(bad.success ? [] : bad.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([
      'warnBefore.0: a share is more than 0% and at most 100%',
      'warnBefore.1: a share is more than 0% and at most 100%',
      'warnBefore.2.min: min must not be above max',
    ]);
  });
});

describe('validation-end, validations of any length', () => {
  // The shipped profile's thresholds (rules/validation-end.yaml).
  const shares = specSchema.parse({ network: 'mainnet', nodeIds: [NODE], warnBefore: [{ share: '10%', max: '14d' }, { share: '2%', min: '1h', max: '3d' }, { share: '1%', min: '30m', max: '1d' }] });
  const HOUR = 3_600;
  const short = (end: number) => [validator.parse(validatorSample.active({ nodeId: NODE, txHash: 'tx48', startTimestamp: end - 48 * HOUR, endTimestamp: end }))];
  const evalAt = (seen: ReturnType<typeof short>, s: typeof spec, nowS: number) => validationEnd.evaluate(new Map(), { service: [seen] }, new Date(nowS * 1000), s).conditions ?? [];

  it('a 48-hour validation is warned within its last share, not at its start', () => {
    // A 48-hour validation: 10% = 4h48m, 2% = 57.6 min (floored at 1h), 1% = 28.8 min (floored at 30m).
    expect(thresholdsFor(shares.warnBefore, 48 * HOUR).map((t) => t.ms / 60_000)).toEqual([288, 60, 30]);
    // The fixed 14d/3d/1d fire at its very start; the shares only in its last 4h48m.
    expect(evalAt(short(END), spec, END - 47 * HOUR).map((c) => c.labels['threshold'])).toEqual(['3d']);
    expect(evalAt(short(END), shares, END - 47 * HOUR)).toEqual([]);
    expect(evalAt(short(END), shares, END - 5 * HOUR)).toEqual([]);
    const warned = evalAt(short(END), shares, END - 4 * HOUR);
    expect(warned.map((c) => [c.labels['threshold'], c.summary, c.details['Threshold set']])).toEqual([['4h48m', `${NODE} validation ends within 4h48m, at 2027-01-15T08:00:00Z`, '10% (at most 14d)']]);
    expect(evalAt(short(END), shares, END - 45 * 60).map((c) => c.labels['threshold'])).toEqual(['1h']);
    // A year-long validation keeps 14d, 3d and 1d.
    expect(thresholdsFor(shares.warnBefore, 365 * DAY).map((t) => t.ms / 86_400_000)).toEqual([14, 3, 1]);
    // The quick bound every node is first held to is the largest of the list, for any length.
    const lists = [shares.warnBefore, spec.warnBefore, specSchema.parse({ network: 'mainnet', nodeIds: [NODE], warnBefore: ['5%', '2h', { share: '50%', min: '3d' }] }).warnBefore];
    for (const list of lists) for (const length of [0, 3_600, 48 * HOUR, 14 * DAY, 365 * DAY]) expect(largestThreshold(list, length)).toBe(thresholdsFor(list, length)[0]?.ms ?? 0);
  });

  it('an auto-renewed validator is not warned at a boundary it renews at; with nextPeriod 0 it is, and the cycle is the period', () => {
    const cycleStart = END - 14 * DAY;
    const listed = [validator.parse(validatorSample.active({ nodeId: NODE, txHash: 'tx1', startTimestamp: cycleStart, endTimestamp: END }))];
    const staker = (nextPeriod: number) => ({ txId: 'tx1', nodeId: NODE, start: cycleStart, end: END, weight: '2000000000000', autoRenew: { nextPeriod, compoundShares: 0, authority: undefined } });
    const pchain = (nextPeriod: number) => ({ source: 'api.avax.network', stakers: new Map([[NODE, staker(nextPeriod)]]) });
    const now = new Date((END - DAY / 2) * 1000);
    const renewing = validationEnd.evaluate(new Map(), { service: [listed], pchain: pchain(14 * DAY) }, now, shares);
    expect(renewing.conditions).toEqual([]);
    expect(renewing.states.get(NODE)?.renew).toEqual({ txId: 'tx1', start: cycleStart, end: END, nextPeriod: 14 * DAY });
    const exiting = validationEnd.evaluate(renewing.states, { service: [listed], pchain: pchain(0) }, now, shares);
    // A 14-day cycle: 2% is 6h43m, 1% is 3h21m36s; 12 hours left is inside 10% (1d9h36m).
    expect(exiting.conditions?.map((c) => [c.labels['threshold'], c.summary])).toEqual([['1d9h36m', `${NODE} auto-renewed validation exits at its cycle boundary within 1d9h36m, at 2027-01-15T08:00:00Z`]]);
    // The P-Chain API not answering keeps what it said last: no warning appears on a gap.
    const gap = validationEnd.evaluate(renewing.states, { service: [listed], pchain: { failed: 'P-Chain API: HTTP 502' } }, now, shares);
    expect(gap.conditions).toEqual([]);
    // A warning that fired before the validator was known to renew resolves saying it renews.
    const fired = advance([], validationEnd.evaluate(new Map(), { service: [listed] }, now, shares).conditions ?? [], now.getTime());
    const later = validationEnd.evaluate(new Map(), { service: [listed], pchain: pchain(14 * DAY) }, now, shares);
    const [resolved] = advance(fired.active, later.conditions ?? [], now.getTime(), undefined, later.resolvedAs).notifications;
    expect(resolved?.summary).toBe(`${NODE} renews at its cycle boundary, 2027-01-15T08:00:00Z (auto-renewed; its next cycle lasts 14d): the end warning is resolved`);
  });
});
