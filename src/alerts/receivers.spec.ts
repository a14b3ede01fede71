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
});
