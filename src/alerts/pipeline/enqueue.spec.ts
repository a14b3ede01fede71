import { describe, expect, it } from 'vitest';
import type { AlertDraft, Condition } from '../../base/types.js';
import type { LoadedRule } from '../../config/load.js';
import { advance, IMMEDIATE } from '../lifecycle.js';
import { planNotifications } from '../receivers.js';
import type { Target } from '../route.js';
import { newAlert } from './enqueue.js';

const rule = { name: 'r', kind: 'a-kind', severity: 'warning' } as Pick<LoadedRule, 'name' | 'kind' | 'severity'>;
const c = (tier: string): Condition => ({ key: 'A', subject: 'A', summary: 'A is low', labels: { node: 'A' }, details: {}, tier });
const target = (receiver: string, mutedBy?: string): Target => ({ receiver, groupKey: 'g', groupWaitMs: 0, groupIntervalMs: 0, repeatMs: 0, muteTimeIntervals: [], ...(mutedBy ? { mutedBy } : {}) });

/** The alert rows a commit stores for these drafts, planned as the pipeline plans them: `status: transition`. */
function stored(drafts: readonly AlertDraft[], active: Parameters<typeof planNotifications>[0]['active'], targets: Target[], now: number): string[] {
  const { planned } = planNotifications({ drafts, active, now, labelsOf: (d) => d.labels, targetsFor: () => targets, repeatMs: () => 10 * 60_000 });
  return planned.map(({ draft, labels, targets: to }) => newAlert(rule, draft, labels, to)).map((a) => `${a.status}${a.reminder ? ' reminder' : ''}: ${a.transition ?? 'none'}`);
}

describe('enqueue: the transition an alert row carries', () => {
  it("a state alert's firing, escalation and resolution carry the lifecycle's key; a reminder and an event none", () => {
    const event: AlertDraft = { status: 'event', subject: 'A', summary: 'A changed', labels: {}, details: {} };
    const fired = advance([], [c('warning')], 0, { ...IMMEDIATE, repeatMs: 600_000 });
    expect(stored([...fired.notifications, event], fired.active, [target('ops')], 0)).toEqual(['firing: firing|warning|0', 'event: none']);
    const escalated = advance(fired.active, [c('critical')], 60_000, { ...IMMEDIATE, repeatMs: 600_000 });
    expect(stored(escalated.notifications, escalated.active, [target('ops')], 60_000)).toEqual(['firing: firing|critical|0|warning@0']);
    const reminded = advance(escalated.active, [c('critical')], 660_000, { ...IMMEDIATE, repeatMs: 600_000 });
    expect(stored(reminded.notifications, reminded.active, [target('ops')], 660_000)).toEqual(['firing reminder: none']);
    const resolved = advance(reminded.active, [], 720_000);
    expect(stored(resolved.notifications, resolved.active, [target('ops')], 720_000)).toEqual(['resolved: resolved|critical|0']);
  });

  it('the notification a receiver is owed once its mute ends is no transition: none', () => {
    const fired = advance([], [c('')], 0);
    const muted = planNotifications({ drafts: fired.notifications, active: fired.active, now: 0, labelsOf: (d) => d.labels, targetsFor: () => [target('ops', 'silenced by #1')], repeatMs: () => 0 });
    expect(stored([], muted.active, [target('ops')], 60_000)).toEqual(['firing reminder: none']);
  });
});
