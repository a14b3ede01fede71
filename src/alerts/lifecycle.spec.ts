import { describe, expect, it } from 'vitest';
import type { Condition } from '../rules/types.js';
import { advance } from './lifecycle.js';

const c = (key: string, tier: string, summary = `${key} ends soon`): Condition => ({
  key,
  subject: key,
  summary,
  labels: { node: key },
  details: { Node: key },
  tier,
});

describe('state alert lifecycle', () => {
  it('fires a new condition once, stays silent while it holds, resolves when it stops', () => {
    const first = advance([], [c('A', '14d')], 1_000);
    expect(first.notifications.map((n) => [n.status, n.subject])).toEqual([['firing', 'A']]);
    const again = advance(first.active, [c('A', '14d')], 2_000);
    expect(again.notifications).toEqual([]);
    expect(again.active[0]?.startedAt).toBe(1_000);
    const gone = advance(again.active, [], 3_000);
    expect(gone.notifications).toEqual([
      { status: 'resolved', subject: 'A', summary: 'resolved: A ends soon', labels: { node: 'A' }, details: { Node: 'A' } },
    ]);
    expect(gone.active).toEqual([]);
  });

  it('fires again when the tier changes (escalation), saying from what to what', () => {
    const first = advance([], [c('A', '14d')], 1_000);
    const escalated = advance(first.active, [c('A', '3d')], 2_000);
    expect(escalated.notifications).toHaveLength(1);
    expect(escalated.notifications[0]).toMatchObject({ status: 'firing', details: { Escalated: '14d → 3d' } });
  });

  it('uses the condition’s own resolved summary when it has one', () => {
    const first = advance([], [{ ...c('A', ''), resolvedSummary: 'A started a new validation period' }], 1);
    expect(advance(first.active, [], 2).notifications[0]?.summary).toBe('A started a new validation period');
  });
});
