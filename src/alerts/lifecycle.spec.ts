import { describe, expect, it } from 'vitest';
import type { Condition } from '../base/types.js';
import { advance, readActive, type ActiveAlert, type LifecycleOptions } from './lifecycle.js';

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

  it('a present is named after the validator its condition was named after (node label), not a NodeID in its text', () => {
    const [A, B] = ['NodeID-A', 'NodeID-B'];
    const named: Condition = { key: A, subject: A, summary: `alpha (${A}) lost ${B}`, labels: { node: A, validator: 'alpha' }, details: { Validator: 'alpha', Node: A } };
    const present = () => ({ summary: `${A} sees ${B} again`, details: { Node: A } });
    const [resolved] = advance(advance([], [named], 0).active, [], MIN, base, present).notifications;
    expect(resolved?.summary).toBe(`alpha (${A}) sees ${B} again`);
    expect(resolved?.details).toMatchObject({ Validator: 'alpha', Node: A });
    expect(resolved?.details['When it fired: Validator']).toBeUndefined();
    // A rule's own `validator` label (the condition not named from the inventory) names nothing.
    const unnamed: Condition = { ...named, summary: `${A} lost ${B}`, details: { Node: A } };
    expect(advance(advance([], [unnamed], 0).active, [], MIN, base, present).notifications[0]?.summary).toBe(`${A} sees ${B} again`);
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

describe('what an operator is told, at wall-clock times (issue 41: mutants that survived)', () => {
  const T0 = Date.parse('2026-11-29T08:00:00.000Z');
  /** Like walk(), at minutes after T0 rather than after the epoch. */
  function walkAt(o: Partial<LifecycleOptions>, steps: Array<[minute: number, conditions: Condition[]]>): Array<Array<{ status: string; details: Record<string, string> }>> {
    let active: ActiveAlert[] = [];
    return steps.map(([minute, conditions]) => {
      const r = advance(active, conditions, T0 + minute * MIN, { ...base, ...o });
      active = r.active;
      return r.notifications.map((n) => ({ status: n.status, details: n.details }));
    });
  }

  it('`for: 5m` on a real clock: a one-poll blip pages no one; five minutes of it do', () => {
    const blip = walkAt({ forMs: 5 * MIN, pollMs: MIN }, [[0, [c('A')]], [1, []], [2, []]]);
    expect(blip).toEqual([[], [], []]);
    const held = walkAt({ forMs: 5 * MIN, pollMs: MIN }, [[0, [c('A')]], [1, [c('A')]], [4, [c('A')]], [5, [c('A')]]]);
    expect(held.map((s) => s.map((n) => n.status))).toEqual([[], [], [], ['firing']]);
    expect(held[3]?.[0]?.details).toMatchObject({ 'Failing since': '2026-11-29T08:00:00.000Z', 'Held for': '5m' });
  });

  it('an alert with no `for` says neither "Failing since" nor "Held for" when it fires', () => {
    expect(walkAt({}, [[0, [c('A')]]])[0]?.[0]?.details).toEqual({ Node: 'A' });
  });

  it('a firing alert stays firing when a reload raises its `for`: no second page when it reaches the new one', () => {
    let active = advance([], [c('A')], T0, { ...base, forMs: 0 }).active;
    const longer = { ...base, forMs: 10 * MIN, pollMs: MIN };
    const sent: string[] = [];
    for (const minute of [1, 5, 10, 11]) {
      const r = advance(active, [c('A')], T0 + minute * MIN, longer);
      active = r.active;
      sent.push(...r.notifications.map((n) => n.status));
    }
    expect(sent).toEqual([]);
    expect(advance(active, [], T0 + 12 * MIN, longer).notifications.map((n) => n.status)).toEqual(['resolved']);
  });

  it('an alert gaining its first tier says it escalated from "firing"', () => {
    const untiered: Condition = { key: 'A', subject: 'A', summary: 'A', labels: {}, details: {} };
    const first = advance([], [untiered], T0);
    expect(advance(first.active, [{ ...untiered, tier: 'critical' }], T0 + MIN).notifications[0]?.details['Escalated']).toBe('firing → critical');
  });

  it('reminders follow each condition’s own interval (the shortest of its receivers)', () => {
    const every = (x: Condition) => (x.key === 'A' ? 10 * MIN : 0);
    const sent = walkAt({ repeatMs: every }, [[0, [c('A'), c('B')]], [10, [c('A'), c('B')]], [60, [c('A'), c('B')]]]);
    expect(sent.map((s) => s.map((n) => `${n.status}${n.details['Reminder'] ? ' reminder' : ''}`))).toEqual([['firing', 'firing'], ['firing reminder'], ['firing reminder']]);
  });

  it('a firing row with no notification time is reminded an interval after it started, not at once', () => {
    const row: ActiveAlert = { key: 'A', tier: '', state: 'firing', startedAt: T0, notifiedAt: null, clearedAt: null, mutedAt: null, mutedReceivers: [], notifiedReceivers: {}, condition: c('A') };
    expect(advance([row], [c('A')], T0 + 5 * MIN, { ...base, repeatMs: 10 * MIN }).notifications).toEqual([]);
    expect(advance([row], [c('A')], T0 + 10 * MIN, { ...base, repeatMs: 10 * MIN }).notifications.map((n) => n.details['Reminder'])).toEqual(['still firing']);
  });

  it('keeps its mutes and the receivers it reached while it holds (a muted receiver is told when the mute ends, once)', () => {
    const row: ActiveAlert = { key: 'A', tier: '', state: 'firing', startedAt: T0, notifiedAt: T0, clearedAt: null, mutedAt: T0, mutedReceivers: ['oncall'], notifiedReceivers: { team: T0 }, condition: { ...c('A'), firedAt: T0 } };
    const [kept] = advance([row], [c('A')], T0 + MIN).active;
    expect(kept).toMatchObject({ mutedAt: T0, mutedReceivers: ['oncall'], notifiedReceivers: { team: T0 } });
  });

  it('a resolved notice of a kind with no details and no present adds no "When it fired" line', () => {
    const bare: Condition = { key: 'A', subject: 'A', summary: 'A is down', labels: {}, details: {} };
    const first = advance([], [bare], T0);
    expect(advance(first.active, [], T0 + MIN).notifications[0]?.details).toEqual({ 'Fired at': '2026-11-29T08:00:00.000Z' });
  });

  it('a row stored before firing times were kept says "Failing since", never a made-up "Fired at"', () => {
    const row: ActiveAlert = { key: 'A', tier: '', state: 'firing', startedAt: T0, notifiedAt: T0, clearedAt: null, mutedAt: null, mutedReceivers: [], notifiedReceivers: {}, condition: c('A') };
    const [resolved] = advance([row], [], T0 + MIN).notifications;
    expect(resolved?.details).toEqual({ 'When it fired: Node': 'A', 'Failing since': '2026-11-29T08:00:00.000Z' });
  });

  it('a resolved notice carries the condition’s news (so it is routed like its firing)', () => {
    const first = advance([], [{ ...c('A'), news: 'bad', severity: 'critical' }], T0);
    expect(advance(first.active, [], T0 + MIN).notifications[0]).toMatchObject({ news: 'bad', severity: 'critical', status: 'resolved' });
  });

  it('a stored row whose condition does not parse is said to be invalid, not read', () => {
    expect(readActive({ key: 'A', tier: '', state: 'firing', startedAt: T0, notifiedAt: T0, clearedAt: null, mutedAt: null, mutedReceivers: [], notifiedReceivers: {}, condition: { key: 'A' } })).toMatchObject({ invalid: expect.stringContaining('subject') });
  });
});

describe("a notification's transition (the store keeps one alert per transition)", () => {
  /** Each step's notifications as `status: transition` (none: a reminder). */
  function transitions(o: Partial<LifecycleOptions>, steps: Array<[minute: number, conditions: Condition[]]>): string[][] {
    let active: ActiveAlert[] = [];
    return steps.map(([minute, conditions]) => {
      const r = advance(active, conditions, minute * MIN, { ...base, ...o });
      active = r.active;
      return r.notifications.map((n) => `${n.status}${n.reminder ? ' reminder' : ''}: ${n.transition ?? 'none'}`);
    });
  }

  it('names its firing, each tier change (a tier that comes back too) and its resolution; a reminder carries none; an episode that starts again later is new', () => {
    const steps: Array<[number, Condition[]]> = [[0, [c('A', 'warning')]], [1, [c('A', 'critical')]], [2, [c('A', 'warning')]], [3, [c('A', 'critical')]], [13, [c('A', 'critical')]], [14, []], [20, [c('A', 'warning')]], [21, []]];
    const all = transitions({ repeatMs: 10 * MIN }, steps);
    expect(all).toEqual([
      ['firing: firing|warning|0'],
      [`firing: firing|critical|0|warning@0`],
      [`firing: firing|warning|0|critical@${MIN}`],
      [`firing: firing|critical|0|warning@${2 * MIN}`],
      ['firing reminder: none'],
      ['resolved: resolved|critical|0'],
      [`firing: firing|warning|${20 * MIN}`],
      [`resolved: resolved|warning|${20 * MIN}`],
    ]);
    const keys = all.flat().filter((n) => !n.endsWith('none'));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('is the same for two instances advancing the same stored state at different moments (the news of a hand-over, committed twice)', () => {
    const pending = advance([], [c('A')], 0, { ...base, forMs: 5 * MIN }).active;
    const [a, b] = [5 * MIN, 5 * MIN + 1_234].map((now) => advance(pending, [c('A')], now, { ...base, forMs: 5 * MIN }).notifications[0]?.transition);
    expect(a).toBe('firing||0');
    expect(b).toBe(a);
    const [ra, rb] = [6 * MIN, 6 * MIN + 987].map((now) => advance(advance(pending, [c('A')], 5 * MIN, { ...base, forMs: 5 * MIN }).active, [], now).notifications[0]?.transition);
    expect(ra).toBe('resolved||0');
    expect(rb).toBe(ra);
  });
});
