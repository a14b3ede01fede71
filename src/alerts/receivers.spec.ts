import { describe, expect, it } from 'vitest';
import type { Condition } from '../base/types.js';
import { advance, type ActiveAlert } from './lifecycle.js';
import { planNotifications, type PlanInput } from './receivers.js';
import type { Target } from './route.js';

const MIN = 60_000;
const condition: Condition = { key: 'A', subject: 'A', summary: 'A is low', labels: { node: 'A' }, details: {} };
const target = (receiver: string, repeatMs: number, mutedBy?: string): Target => ({
  receiver,
  groupKey: 'g',
  groupWaitMs: 0,
  groupIntervalMs: 0,
  repeatMs,
  muteTimeIntervals: [],
  ...(mutedBy ? { mutedBy } : {}),
});

/** One evaluation: the lifecycle at `minute`, then who gets what, with `muted` receivers muted. */
function step(active: ActiveAlert[], minute: number, muted: string[] = [], o: { heldFrom?: string[]; holds?: boolean } = {}): { sent: string[]; active: ActiveAlert[] } {
  const now = minute * MIN;
  const life = advance(active, o.holds === false ? [] : [condition], now, { forMs: 0, keepFiringForMs: 0, repeatMs: 10 * MIN, sendResolved: true });
  const input: PlanInput = {
    drafts: life.notifications,
    active: life.active,
    now,
    labelsOf: (d) => d.labels,
    targetsFor: () => [target('slack', 10 * MIN, muted.includes('slack') ? 'silence 1' : undefined), target('email', 30 * MIN, muted.includes('email') ? 'silence 1' : undefined)],
    repeatMs: (t) => t.repeatMs,
    held: (key, receiver) => (key === 'A' && o.heldFrom?.includes(receiver) ? 'held by incident incident:group:mainnet:host=h1' : undefined),
  };
  const plan = planNotifications(input);
  const sent = plan.planned.flatMap((p) => p.targets.map((t) => `${p.draft.reminder ? 'reminder' : p.draft.details['Still firing'] ? 'unmuted' : p.draft.status} ${t.receiver}${t.mutedBy ? ' (muted)' : ''}`));
  return { sent, active: plan.active ?? [] };
}

describe('notifications per receiver', () => {
  it('each receiver is reminded on its own repeatInterval', () => {
    let active: ActiveAlert[] = [];
    const sent: string[][] = [];
    for (const minute of [0, 10, 20, 30]) {
      const r = step(active, minute);
      active = r.active;
      sent.push(r.sent);
    }
    expect(sent).toEqual([['firing slack', 'firing email'], ['reminder slack'], ['reminder slack'], ['reminder slack', 'reminder email']]);
  });

  it('a receiver muted when it fired is notified when its mute ends, and only it', () => {
    const first = step([], 0, ['email']);
    expect(first.sent).toEqual(['firing slack', 'firing email (muted)']);
    expect(first.active[0]?.mutedReceivers).toEqual(['email']);
    const stillMuted = step(first.active, 1, ['email']);
    expect(stillMuted.sent).toEqual([]);
    const free = step(stillMuted.active, 2);
    expect(free.sent).toEqual(['unmuted email']);
    expect(free.active[0]?.mutedReceivers).toEqual([]);
    expect(step(free.active, 3).sent).toEqual([]);
  });

  it('held by an incident: recorded, not sent, to the receivers it reaches; owed when it ends; its resolution never held', () => {
    const first = step([], 0, [], { heldFrom: ['slack'] });
    expect(first.sent).toEqual(['firing slack (muted)', 'firing email']);
    // Still held: nothing; the incident over: slack gets it now.
    expect(step(first.active, 1, [], { heldFrom: ['slack'] }).sent).toEqual([]);
    const over = step(first.active, 2);
    expect(over.sent).toEqual(['unmuted slack']);
    // Resolved while its incident still fires: the resolution reaches every receiver.
    expect(step(first.active, 3, [], { heldFrom: ['slack', 'email'], holds: false }).sent).toEqual(['resolved slack', 'resolved email']);
  });

  it('leaves its input unchanged', () => {
    const first = step([], 0, ['email']);
    const before = JSON.stringify(first.active);
    step(first.active, 2);
    expect(JSON.stringify(first.active)).toBe(before);
  });

  it('the notice after a mute says since when it was muted; that time is the first mute’s, kept while any receiver is owed', () => {
    const first = step([], 0, ['slack', 'email']);
    expect(first.active[0]?.mutedAt).toBe(0);
    const emailFree = step(first.active, 5, ['slack']);
    expect(emailFree.sent).toEqual(['unmuted email']);
    expect(emailFree.active[0]).toMatchObject({ mutedAt: 0, mutedReceivers: ['slack'] });
    const plan = planNotifications({
      drafts: [],
      active: emailFree.active,
      now: 7 * MIN,
      labelsOf: (d) => d.labels,
      targetsFor: () => [target('slack', 10 * MIN), target('email', 30 * MIN)],
      repeatMs: (t) => t.repeatMs,
    });
    expect(plan.planned.map((p) => [p.draft.details['Still firing'], p.targets.map((t) => t.receiver)])).toEqual([['muted since 1970-01-01T00:00:00.000Z; the mute has ended', ['slack']]]);
    expect(plan.active?.[0]).toMatchObject({ mutedAt: null, mutedReceivers: [] });
  });

  it('a receiver told after its mute is reminded an interval after that, not after the firing it missed', () => {
    let active = step([], 0, ['email']).active;
    active = step(active, 5).active; // email told now
    const sent = [10, 20, 30, 40].map((minute) => {
      const r = step(active, minute);
      active = r.active;
      return r.sent;
    });
    expect(sent).toEqual([['reminder slack'], ['reminder slack'], ['reminder slack'], ['reminder slack', 'reminder email']]);
  });

  it('a receiver with no repeatInterval is never reminded', () => {
    const plan = (now: number, active: ActiveAlert[] | undefined, drafts: PlanInput['drafts']) =>
      planNotifications({ drafts, active, now, labelsOf: (d) => d.labels, targetsFor: () => [target('slack', 0)], repeatMs: (t) => t.repeatMs });
    const first = advance([], [condition], 0, { forMs: 0, keepFiringForMs: 0, repeatMs: 10 * MIN, sendResolved: true });
    const fired = plan(0, first.active, first.notifications);
    const later = advance(fired.active ?? [], [condition], 60 * MIN, { forMs: 0, keepFiringForMs: 0, repeatMs: 10 * MIN, sendResolved: true });
    expect(later.notifications.map((n) => n.reminder)).toEqual([true]);
    expect(plan(60 * MIN, later.active, later.notifications).planned.flatMap((p) => p.targets)).toEqual([]);
  });

  it('a muted receiver is not counted as told: its reminder clock starts when it is told', () => {
    const first = step([], 0, ['email']);
    expect(first.active[0]?.notifiedReceivers).toEqual({ slack: 0 });
  });

  it('an alert resolved while a receiver was muted owes it nothing more', () => {
    const first = step([], 0, ['email']);
    const resolved = step(first.active, 1, ['email'], { holds: false });
    expect(resolved.sent).toEqual(['resolved slack', 'resolved email (muted)']);
    expect(step(resolved.active, 2, [], { holds: false }).sent).toEqual([]);
  });

  it('an event (no condition) goes to every target and changes no state; a kind with no state alerts plans its drafts alone', () => {
    const event = { status: 'firing' as const, subject: 'N', summary: 'N changed', labels: { node: 'N' }, details: {} };
    const plan = planNotifications({ drafts: [event], active: undefined, now: 0, labelsOf: (d) => d.labels, targetsFor: () => [target('slack', 10 * MIN), target('email', 0, 'silence 1')], repeatMs: (t) => t.repeatMs, held: () => 'held' });
    expect(plan.active).toBeUndefined();
    expect(plan.planned.map((p) => p.targets.map((t) => `${t.receiver}${t.mutedBy ? ` (${t.mutedBy})` : ''}`))).toEqual([['slack', 'email (silence 1)']]);
  });

  it('a silence’s reason stays when an incident would also hold it', () => {
    const first = step([], 0, ['slack'], { heldFrom: ['slack'] });
    const plan = planNotifications({
      drafts: [],
      active: first.active,
      now: MIN,
      labelsOf: (d) => d.labels,
      targetsFor: () => [target('slack', 10 * MIN, 'silence 1')],
      repeatMs: (t) => t.repeatMs,
      held: () => 'held by incident i',
    });
    expect(plan.planned).toEqual([]);
    const life = advance(first.active, [{ ...condition, tier: 'critical' }], 2 * MIN, { forMs: 0, keepFiringForMs: 0, repeatMs: 0, sendResolved: true });
    const escalated = planNotifications({ drafts: life.notifications, active: life.active, now: 2 * MIN, labelsOf: (d) => d.labels, targetsFor: () => [target('slack', 10 * MIN, 'silence 1'), target('email', 0)], repeatMs: (t) => t.repeatMs, held: () => 'held by incident i' });
    expect(escalated.planned[0]?.targets.map((t) => `${t.receiver}: ${t.mutedBy}`)).toEqual(['slack: silence 1', 'email: held by incident i']);
  });
});
