import { describe, expect, it } from 'vitest';
import type { Condition } from '../base/types.js';
import { advance, type ActiveAlert, type LifecycleOptions } from './lifecycle.js';

const c = (key: string, tier = '', summary = `${key} is low`): Condition => ({ key, subject: key, summary, labels: { node: key }, details: { Node: key }, tier });
const MIN = 60_000;
const base: LifecycleOptions = { forMs: 0, keepFiringForMs: 0, repeatMs: 0, sendResolved: true };

/** Runs evaluations at the given minutes with the given conditions; returns each step's notifications. */
function walk(o: Partial<LifecycleOptions>, steps: Array<[minute: number, conditions: Condition[]]>): string[][] {
  let active: ActiveAlert[] = [];
  return steps.map(([minute, conditions]) => {
    const r = advance(active, conditions, minute * MIN, { ...base, ...o });
    active = r.active;
    return r.notifications.map((n) => `${n.status} ${n.subject}${n.details['Escalated'] ? ` ${n.details['Escalated']}` : ''}${n.details['Reminder'] ? ' reminder' : ''}`);
  });
}

describe('state alert lifecycle', () => {
  it('fires a new condition once, stays silent while it holds, resolves when it stops', () => {
    expect(walk({}, [[0, [c('A')]], [1, [c('A')]], [2, []]])).toEqual([['firing A'], [], ['resolved A']]);
  });

  it('escalates when the tier changes', () => {
    expect(walk({}, [[0, [c('A', '14d')]], [1, [c('A', '3d')]]])).toEqual([['firing A'], ['firing A 14d → 3d']]);
  });

  it('waits `for` before firing; a condition gone before then never fires nor resolves', () => {
    expect(walk({ forMs: 5 * MIN }, [[0, [c('A'), c('B')]], [3, [c('A'), c('B')]], [4, [c('A')]], [5, [c('A')]], [6, []]])).toEqual([[], [], [], ['firing A'], ['resolved A']]);
  });

  it('`for` counts a poll within half an interval: `for: 2m` polled every minute fires at the 3rd failing poll, though it came a little early', () => {
    // The first failing poll was stamped 230 ms after its minute; the next ones on time.
    const steps: Array<[number, Condition[]]> = [[230 / MIN, [c('A')]], [1, [c('A')]], [2, [c('A')]], [3, [c('A')]]];
    expect(walk({ forMs: 2 * MIN, pollMs: MIN }, steps)).toEqual([[], [], ['firing A'], []]);
    // Half an interval short is not enough: the 2nd poll (1 min in) of a `for: 2m` does not fire.
    expect(walk({ forMs: 2 * MIN, pollMs: MIN }, [[0, [c('A')]], [1, [c('A')]]])).toEqual([[], []]);
  });

  it('a `for` shorter than half the poll interval still takes a second poll that sees the condition', () => {
    expect(walk({ forMs: 10_000, pollMs: MIN }, [[0, [c('A')]], [1, [c('A')]]])).toEqual([[], ['firing A']]);
  });

  it('reminds every repeatInterval while firing, counted from the last notification', () => {
    expect(walk({ repeatMs: 10 * MIN }, [[0, [c('A', '1')]], [9, [c('A', '1')]], [10, [c('A', '1')]], [15, [c('A', '2')]], [24, [c('A', '2')]], [25, [c('A', '2')]]])).toEqual([
      ['firing A'],
      [],
      ['firing A reminder'],
      ['firing A 1 → 2'],
      [],
      ['firing A reminder'],
    ]);
  });

  it('keepFiringFor: a condition that blinks pages once; one that stays away resolves after it', () => {
    expect(walk({ keepFiringForMs: 10 * MIN }, [[0, [c('A')]], [1, []], [2, [c('A')]], [3, []], [12, []], [13, []]])).toEqual([['firing A'], [], [], [], [], ['resolved A']]);
  });

  it('sendResolved: false ends the alert without a resolved notification', () => {
    expect(walk({ sendResolved: false }, [[0, [c('A')]], [1, []], [2, [c('A')]]])).toEqual([['firing A'], [], ['firing A']]);
  });

  it('uses the condition’s own resolved summary', () => {
    const first = advance([], [{ ...c('A'), resolvedSummary: 'A has a new period' }], 1);
    expect(advance(first.active, [], 2).notifications[0]?.summary).toBe('A has a new period');
  });

  it('a condition that stops for a reason the evaluation gives resolves saying that reason, also after keepFiringFor', () => {
    const first = advance([], [{ ...c('A'), resolvedSummary: 'A is back above 86%' }, c('B')], 1);
    const why = (key: string) => (key === 'A' ? { summary: 'A: validation ended; uptime last 84%' } : undefined);
    const ended = advance(first.active, [], 2, base, why);
    expect(ended.notifications.map((n) => n.summary)).toEqual(['A: validation ended; uptime last 84%', 'resolved: B is low']);
    const kept = advance(first.active, [], 2, { ...base, keepFiringForMs: 10 * MIN }, why);
    expect(kept.notifications).toEqual([]);
    expect(advance(kept.active, [], 20 * MIN, { ...base, keepFiringForMs: 10 * MIN }).notifications[0]?.summary).toBe('A: validation ended; uptime last 84%');
  });

  it('a resolved notification states the present, and the firing figures only under "When it fired"', () => {
    const low: Condition = { key: 'N', subject: 'N', summary: 'N uptime 88.5% is under 90%', resolvedSummary: 'N uptime is back above 91%', labels: {}, details: { Node: 'N', Uptime: '88.5%' } };
    const first = advance([], [low], 0);
    const present = () => ({ summary: 'N uptime is back at 92.1% (above 91%)', details: { Node: 'N', Uptime: '92.1%' } });
    const [resolved] = advance(first.active, [], MIN, base, present).notifications;
    expect(resolved?.summary).toBe('N uptime is back at 92.1% (above 91%)');
    expect(resolved?.details).toEqual({ Node: 'N', Uptime: '92.1%', 'When it fired: Uptime': '88.5%', 'Fired at': new Date(0).toISOString() });
  });

  it('a kind that gives no present: its firing figures are only under "When it fired"', () => {
    const first = advance([], [c('A')], 0);
    const [resolved] = advance(first.active, [], MIN).notifications;
    expect(resolved?.summary).toBe('resolved: A is low');
    expect(resolved?.details).toEqual({ 'When it fired: Node': 'A', 'Fired at': new Date(0).toISOString() });
  });
});

describe('what a firing and a resolved notice say of time and of then (issue 38)', () => {
  const forTwo: LifecycleOptions = { ...base, forMs: 2 * MIN };
  const T0 = Date.parse('2026-11-28T15:00:00.770Z');

  it('"Held for" is a whole span, not "2m59s770ms", for a first poll stamped 230 ms late', () => {
    const first = advance([], [c('A')], T0, forTwo);
    const second = advance(first.active, [c('A')], T0 + MIN - 230, forTwo);
    const fired = advance(second.active, [c('A')], T0 + 3 * MIN - 230, forTwo).notifications[0];
    expect(fired?.details['Held for']).toBe('3m');
  });

  it('"Fired at" is when it passed for:, and "Failing since" when it began to hold', () => {
    let active = advance([], [c('A')], T0, forTwo).active;
    active = advance(active, [c('A')], T0 + MIN, forTwo).active;
    const firing = advance(active, [c('A')], T0 + 2 * MIN, forTwo);
    expect(firing.notifications[0]?.details['Failing since']).toBe('2026-11-28T15:00:00.770Z');
    active = advance(firing.active, [c('A')], T0 + 3 * MIN, forTwo).active;
    const [resolved] = advance(active, [], T0 + 5 * MIN, forTwo).notifications;
    expect(resolved?.details).toMatchObject({ 'Failing since': '2026-11-28T15:00:00.770Z', 'Fired at': '2026-11-28T15:02:00.770Z' });
    const reminder = advance(active, [c('A')], T0 + 70 * MIN, { ...forTwo, repeatMs: 60 * MIN }).notifications[0];
    expect(reminder?.details['Fired at']).toBe('2026-11-28T15:02:00.770Z');
  });

  it('a resolved notice repeats no detail unchanged since the firing, and says so when none changed', () => {
    const low: Condition = { ...c('N'), details: { Validator: 'alpha', Node: 'N', Uptime: '88.5%', Failure: 'HTTP 503' } };
    const first = advance([], [low], 0);
    const present = (uptime: string, more = {}) => () => ({ summary: 'N uptime is back', details: { Validator: 'alpha', Node: 'N', Uptime: uptime, ...more } });
    const [changed] = advance(first.active, [], MIN, base, present('92.1%')).notifications;
    // The figure that changed, and the one not read again (what was wrong), are of then.
    expect(Object.keys(changed?.details ?? {})).toEqual(['Validator', 'Node', 'Uptime', 'When it fired: Uptime', 'When it fired: Failure', 'Fired at']);
    const [same] = advance(first.active, [], MIN, base, present('88.5%', { Failure: 'HTTP 503' })).notifications;
    expect(same?.details).toEqual({ Validator: 'alpha', Node: 'N', Uptime: '88.5%', Failure: 'HTTP 503', 'When it fired': 'the details above are unchanged', 'Fired at': new Date(0).toISOString() });
  });
});
