import { afterEach, describe, expect, it } from 'vitest';
import { type ActiveRow, SqliteStore, type StateStore } from '../store/index.js';
import { firingAlerts } from './view.js';

// What `avawatch alerts` and GET /api/v1/alerts list: the firing alerts of the state file.

let store: StateStore;
afterEach(() => store.close());

function row(key: string, condition: unknown, o: Partial<ActiveRow> = {}): ActiveRow {
  return { key, tier: '', state: 'firing', startedAt: Date.parse('2026-01-05T10:00:00Z'), notifiedAt: null, clearedAt: null, mutedAt: null, mutedReceivers: [], notifiedReceivers: {}, condition, ...o };
}

const condition = (key: string, o: Record<string, unknown> = {}) => ({
  key,
  subject: key,
  severity: 'critical',
  summary: `${key} is not validating`,
  labels: { node: key, network: 'fuji' },
  details: { Uptime: '71%' },
  ...o,
});

async function storeWith(active: Record<string, ActiveRow[]>): Promise<StateStore> {
  store = SqliteStore.open(':memory:');
  for (const [rule, rows] of Object.entries(active)) await store.commitEvaluation(rule, {}, [], 1, rows);
  return store;
}

describe('the firing alerts an operator lists', () => {
  it('shows each with its rule, subject, severity, summary, labels, details, tier and start time', async () => {
    const s = await storeWith({ uptime: [row('NodeID-1', condition('NodeID-1'), { tier: '3d' })] });
    expect(await firingAlerts(s)).toEqual([
      {
        rule: 'uptime',
        key: 'NodeID-1',
        subject: 'NodeID-1',
        severity: 'critical',
        summary: 'NodeID-1 is not validating',
        labels: { node: 'NodeID-1', network: 'fuji' },
        details: { Uptime: '71%' },
        tier: '3d',
        startsAt: '2026-01-05T10:00:00.000Z',
      },
    ]);
  });

  it('a condition without a severity is a warning', async () => {
    const { severity: _, ...plain } = condition('NodeID-1');
    expect((await firingAlerts(await storeWith({ uptime: [row('NodeID-1', plain)] }))).map((a) => a.severity)).toEqual(['warning']);
  });

  it('a rule-failing alert is listed under the rule that fails, not its stored name', async () => {
    const failing = condition('rule', { labels: { alertname: 'rule-failing', rule: 'uptime' }, summary: 'rule uptime fails' });
    const s = await storeWith({ '!rule-failing:uptime': [row('rule', failing)], other: [row('NodeID-2', condition('NodeID-2'))] });
    expect((await firingAlerts(s)).map((a) => `${a.rule} ${a.key}`)).toEqual(['uptime rule', 'other NodeID-2']);
  });

  it('a stored alert that no longer parses is left out; the others are still listed', async () => {
    const s = await storeWith({
      uptime: [row('NodeID-1', { key: 'NodeID-1', subject: 'NodeID-1' }), row('NodeID-2', condition('NodeID-2'))],
    });
    expect((await firingAlerts(s)).map((a) => a.key)).toEqual(['NodeID-2']);
  });

  it('a pending alert (still inside its `for`) is not listed', async () => {
    const s = await storeWith({ uptime: [row('NodeID-1', condition('NodeID-1'), { state: 'pending' })] });
    expect(await firingAlerts(s)).toEqual([]);
  });
});
