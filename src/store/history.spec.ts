import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Store, type NewAlert } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'avawatch-history-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOUR = 3_600_000;
function alert(over: Partial<NewAlert>): NewAlert {
  return { rule: 'status', kind: 'validator-status', status: 'event', severity: 'info', subject: 'NodeID-A', summary: 'x', labels: { node: 'NodeID-A' }, details: {}, targets: [], ...over };
}
const slack = [{ receiver: 'slack', groupKey: 'g', groupWaitMs: 0, groupIntervalMs: 0, repeatMs: 0, muteTimeIntervals: [] }];

describe('history', () => {
  it('reads events and state changes newest first, by validator, without reminders', () => {
    const store = Store.open(join(dir, 'timeline.db'));
    store.commitEvaluation('status', {}, [alert({ summary: 'validation ended without a reward', labels: { node: 'NodeID-A', validator: 'alpha' } })], 1 * HOUR);
    store.commitEvaluation('health', {}, [alert({ rule: 'health', status: 'firing', subject: 'NodeID-B', summary: 'uptime 70%', labels: { node: 'NodeID-B' } })], 2 * HOUR);
    store.commitEvaluation('health', {}, [alert({ rule: 'health', status: 'firing', subject: 'NodeID-B', summary: 'uptime 70%', labels: { node: 'NodeID-B' }, reminder: true })], 3 * HOUR);
    store.commitEvaluation('health', {}, [alert({ rule: 'health', status: 'resolved', subject: 'NodeID-B', summary: 'uptime back at 92%', labels: { node: 'NodeID-B' } })], 4 * HOUR);

    expect(store.timeline({ since: 0 }).map((e) => `${e.status} ${e.summary}`)).toEqual(['resolved uptime back at 92%', 'firing uptime 70%', 'event validation ended without a reward']);
    expect(store.timeline({ since: 0, validator: 'alpha' }).map((e) => e.summary)).toEqual(['validation ended without a reward']);
    expect(store.timeline({ since: 0, validator: 'NodeID-B' })).toHaveLength(2);
    expect(store.timeline({ since: 3 * HOUR }).map((e) => e.summary)).toEqual(['uptime back at 92%']);
    store.close();
  });

  it("reads each node's newest event in a window (a validator's tile shows it), never a state alert, a reminder or an L1 validation's", () => {
    const store = Store.open(join(dir, 'last-events.db'));
    store.commitEvaluation('status', {}, [alert({ summary: 'A ended with a reward', labels: { node: 'NodeID-A', network: 'mainnet' } })], 1 * HOUR);
    store.commitEvaluation('status', {}, [alert({ summary: 'A ended without a reward', severity: 'critical', labels: { node: 'NodeID-A', network: 'mainnet' } })], 2 * HOUR);
    store.commitEvaluation('health', {}, [alert({ rule: 'health', status: 'firing', summary: 'A uptime 70%', labels: { node: 'NodeID-A', network: 'mainnet' } })], 3 * HOUR);
    store.commitEvaluation('status', {}, [alert({ summary: 'A reminder', labels: { node: 'NodeID-A', network: 'mainnet' }, reminder: true })], 4 * HOUR);
    store.commitEvaluation('l1', {}, [alert({ rule: 'l1', summary: 'A L1 balance topped up', labels: { node_id: 'NodeID-A', validation_id: 'v1' } })], 5 * HOUR);
    store.commitEvaluation('end', {}, [alert({ rule: 'end', subject: 'NodeID-B', summary: 'B ended', labels: { node_id: 'NodeID-B', network: 'fuji' } })], 1 * HOUR);
    store.commitEvaluation('end', {}, [alert({ rule: 'end', subject: 'NodeID-B', summary: 'B on mainnet ended', labels: { node_id: 'NodeID-B', network: 'mainnet' } })], 90 * 60_000);

    expect(store.lastEvents(0).map((e) => e.summary)).toEqual(['A ended without a reward', 'B on mainnet ended', 'B ended']);
    expect(store.lastEvents(0)[0]?.severity).toBe('critical');
    // history.keep: an event older than the window leaves the tile.
    expect(store.lastEvents(90 * 60_000).map((e) => e.summary)).toEqual(['A ended without a reward', 'B on mainnet ended']);
    store.close();
  });

  it('keeps samples per series and entity, and prunes what is older than the window but never a notification still waiting', () => {
    const store = Store.open(join(dir, 'samples.db'));
    store.addSamples([
      { series: 'uptime_percent', entity: 'NodeID-A', at: 1 * HOUR, value: 99.1 },
      { series: 'uptime_percent', entity: 'NodeID-A', at: 2 * HOUR, value: 98.7 },
      { series: 'uptime_percent', entity: 'NodeID-B', at: 2 * HOUR, value: 50 },
      { series: 'uptime_percent', entity: 'NodeID-B', at: 3 * HOUR, value: Number.NaN },
    ]);
    expect(store.samples('uptime_percent', 'NodeID-A', 0).map((s) => s.value)).toEqual([99.1, 98.7]);
    expect(Object.fromEntries(store.lastSampleAt('uptime_percent'))).toEqual({ 'NodeID-A': 2 * HOUR, 'NodeID-B': 2 * HOUR });

    store.commitEvaluation('status', {}, [alert({ summary: 'old, sent' })], 1 * HOUR);
    store.commitEvaluation('status', {}, [alert({ summary: 'old, still waiting', targets: slack })], 1 * HOUR);
    store.commitEvaluation('status', {}, [alert({ summary: 'new' })], 5 * HOUR);
    expect(store.pruneHistory(2 * HOUR)).toEqual({ samples: 1, alerts: 1 });
    expect(store.samples('uptime_percent', 'NodeID-A', 0).map((s) => s.value)).toEqual([98.7]);
    expect(store.timeline({ since: 0 }).map((e) => e.summary)).toEqual(['new', 'old, still waiting']);
    expect(store.pendingCount()).toBe(1);
    store.close();
  });

  it('gives a chart at most its points from a window of thousands of samples, keeping the dip and the latest figure', () => {
    const store = Store.open(join(dir, 'chart.db'));
    const MIN = 60_000;
    const many = Array.from({ length: 4320 }, (_, i) => ({ series: 'uptime_percent', entity: 'NodeID-A', at: i * 10 * MIN, value: i === 2000 ? 71.5 : 99 + (i % 7) / 10 }));
    store.addSamples(many);
    const until = 4320 * 10 * MIN;
    const chart = store.samples('uptime_percent', 'NodeID-A', 0, { until, points: 240 });
    expect(chart.length).toBeLessThanOrEqual(241);
    expect(Math.min(...chart.map((s) => s.value))).toBe(71.5);
    expect(chart.at(-1)).toEqual(many.at(-1));
    expect(chart.map((s) => s.at)).toEqual([...chart.map((s) => s.at)].sort((a, b) => a - b));
    // Fewer samples than points: each as it is.
    expect(store.samples('uptime_percent', 'NodeID-A', until - 100 * MIN, { until, points: 240 })).toEqual(many.slice(-10));
    store.close();
  });
});
