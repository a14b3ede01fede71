import { describe, expect, it } from 'vitest';
import { Store, type NewAlert } from './index.js';

const HOUR = 3_600_000;
const T = Date.UTC(2026, 2, 1, 12);
const alert: NewAlert = { rule: 'r', kind: 'k', status: 'event', severity: 'warning', subject: 's', summary: 's changed', labels: {}, details: {}, targets: [{ receiver: 'slack', groupKey: 'g', groupWaitMs: 0, groupIntervalMs: 0 }] };

describe('Store.reanchor', () => {
  it("brings a previous run's steady times that lie ahead of this run's clock back together: a retry due then is due now", () => {
    const store = Store.open(':memory:');
    // The last run's steady clock ran an hour ahead of the wall (its wall stepped back): a row made at T + 1h, retried 5 s later.
    store.commitEvaluation('r', { e: { x: 1 } }, [alert], T + HOUR);
    const [row] = store.claimDue('slack', T + HOUR, 10, 1_000);
    store.markRetry(row!.id, T + HOUR + 5_000, 'HTTP 503', T + HOUR);
    expect(store.claimDue('slack', T + 10_000, 10, 1_000)).toEqual([]);
    expect(store.reanchor(T, 60_000)).toBe(HOUR);
    expect(store.claimDue('slack', T + 5_000, 10, 1_000).map((r) => [r.id, r.createdAt])).toEqual([[row!.id, T]]);
    // Times already behind the clock, or ahead by less than the tolerance, stay as they are.
    expect(store.reanchor(T, 60_000)).toBe(0);
    expect(store.reanchor(T - 30_000, 60_000)).toBe(0);
    store.close();
  });

  it("shifts a firing alert's firing time with its start: \"Fired at\" stays after \"Failing since\"", () => {
    const store = Store.open(':memory:');
    const condition = { key: 'N', subject: 'N', summary: 'N is low', labels: {}, details: {}, firedAt: T + HOUR + 120_000 };
    const row = { key: 'N', tier: '', state: 'firing' as const, startedAt: T + HOUR, notifiedAt: T + HOUR + 120_000, clearedAt: null, mutedAt: null, mutedReceivers: [], notifiedReceivers: {}, condition };
    store.commitEvaluation('r', {}, [], T + HOUR, [row, { ...row, key: 'M', condition: { ...condition, key: 'M', firedAt: undefined } }]);
    expect(store.reanchor(T, 60_000)).toBe(HOUR);
    const [m, n] = store.loadActive('r').sort((a, b) => (a.key < b.key ? -1 : 1));
    expect(n).toMatchObject({ startedAt: T, condition: { firedAt: T + 120_000 } });
    expect(m?.condition).not.toHaveProperty('firedAt');
    store.close();
  });
});
