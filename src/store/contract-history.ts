import { describe, expect, it } from 'vitest';
import { event, HOUR, to, type Opened } from './contract-fixtures.js';

// The contract's history (contract.ts): the timeline, the tiles' last events, samples, pruning.

export function historyContract(store: Opened): void {
  describe('history', () => {
    it('reads events and state changes newest first, by validator, without reminders', async () => {
      const s = await store('timeline');
      await s.commitEvaluation('status', {}, [event({ summary: 'validation ended without a reward', labels: { node: 'NodeID-A', validator: 'alpha' } })], 1 * HOUR);
      await s.commitEvaluation('health', {}, [event({ rule: 'health', status: 'firing', subject: 'NodeID-B', summary: 'uptime 70%', labels: { node: 'NodeID-B' } })], 2 * HOUR);
      await s.commitEvaluation('health', {}, [event({ rule: 'health', status: 'firing', subject: 'NodeID-B', summary: 'uptime 70%', labels: { node: 'NodeID-B' }, reminder: true })], 3 * HOUR);
      await s.commitEvaluation('health', {}, [event({ rule: 'health', status: 'resolved', subject: 'NodeID-B', summary: 'uptime back at 92%', labels: { node: 'NodeID-B' } })], 4 * HOUR);

      expect((await s.timeline({ since: 0 })).map((e) => `${e.status} ${e.summary}`)).toEqual(['resolved uptime back at 92%', 'firing uptime 70%', 'event validation ended without a reward']);
      expect((await s.timeline({ since: 0, validator: 'alpha' })).map((e) => e.summary)).toEqual(['validation ended without a reward']);
      expect(await s.timeline({ since: 0, validator: 'NodeID-B' })).toHaveLength(2);
      expect((await s.timeline({ since: 3 * HOUR })).map((e) => e.summary)).toEqual(['uptime back at 92%']);
      expect((await s.timeline({ since: 0, limit: 1 })).map((e) => e.summary)).toEqual(['uptime back at 92%']);
    });

    it("reads each node's newest event in a window (a validator's tile shows it), never a state alert, a reminder or an L1 validation's", async () => {
      const s = await store('last-events');
      await s.commitEvaluation('status', {}, [event({ summary: 'A ended with a reward', labels: { node: 'NodeID-A', network: 'mainnet' } })], 1 * HOUR);
      await s.commitEvaluation('status', {}, [event({ summary: 'A ended without a reward', severity: 'critical', labels: { node: 'NodeID-A', network: 'mainnet' } })], 2 * HOUR);
      await s.commitEvaluation('health', {}, [event({ rule: 'health', status: 'firing', summary: 'A uptime 70%', labels: { node: 'NodeID-A', network: 'mainnet' } })], 3 * HOUR);
      await s.commitEvaluation('status', {}, [event({ summary: 'A reminder', labels: { node: 'NodeID-A', network: 'mainnet' }, reminder: true })], 4 * HOUR);
      await s.commitEvaluation('l1', {}, [event({ rule: 'l1', summary: 'A L1 balance topped up', labels: { node_id: 'NodeID-A', validation_id: 'v1' } })], 5 * HOUR);
      await s.commitEvaluation('end', {}, [event({ rule: 'end', subject: 'NodeID-B', summary: 'B ended', labels: { node_id: 'NodeID-B', network: 'fuji' } })], 1 * HOUR);
      await s.commitEvaluation('end', {}, [event({ rule: 'end', subject: 'NodeID-B', summary: 'B on mainnet ended', labels: { node_id: 'NodeID-B', network: 'mainnet' } })], 90 * 60_000);

      expect((await s.lastEvents(0)).map((e) => e.summary)).toEqual(['A ended without a reward', 'B on mainnet ended', 'B ended']);
      expect((await s.lastEvents(0))[0]?.severity).toBe('critical');
      // history.keep: an event older than the window leaves the tile.
      expect((await s.lastEvents(90 * 60_000)).map((e) => e.summary)).toEqual(['A ended without a reward', 'B on mainnet ended']);
    });

    it('keeps samples per series and entity, and prunes what is older than the window but never a notification still waiting', async () => {
      const s = await store('samples');
      await s.addSamples([
        { series: 'uptime_percent', entity: 'NodeID-A', at: 1 * HOUR, value: 99.1 },
        { series: 'uptime_percent', entity: 'NodeID-A', at: 2 * HOUR, value: 98.7 },
        { series: 'uptime_percent', entity: 'NodeID-B', at: 2 * HOUR, value: 50 },
        { series: 'uptime_percent', entity: 'NodeID-B', at: 3 * HOUR, value: Number.NaN },
      ]);
      expect((await s.samples('uptime_percent', 'NodeID-A', 0)).map((x) => x.value)).toEqual([99.1, 98.7]);
      expect(Object.fromEntries(await s.lastSampleAt('uptime_percent'))).toEqual({ 'NodeID-A': 2 * HOUR, 'NodeID-B': 2 * HOUR });

      await s.commitEvaluation('status', {}, [event({ summary: 'old, sent' })], 1 * HOUR);
      await s.commitEvaluation('status', {}, [event({ summary: 'old, still waiting', targets: [to('slack')] })], 1 * HOUR);
      await s.commitEvaluation('status', {}, [event({ summary: 'new' })], 5 * HOUR);
      expect(await s.pruneHistory(2 * HOUR)).toEqual({ samples: 1, alerts: 1 });
      expect((await s.samples('uptime_percent', 'NodeID-A', 0)).map((x) => x.value)).toEqual([98.7]);
      expect((await s.timeline({ since: 0 })).map((e) => e.summary)).toEqual(['new', 'old, still waiting']);
      expect(await s.pendingCount()).toBe(1);
    });

    it('prunes a large history in steps of at most `limit` rows', async () => {
      const s = await store('prune-steps');
      await s.addSamples(Array.from({ length: 5 }, (_, i) => ({ series: 'x', entity: 'e', at: i, value: i })));
      expect(await s.pruneHistory(10, 2)).toEqual({ samples: 2, alerts: 0 });
      expect(await s.pruneHistory(10, 2)).toEqual({ samples: 2, alerts: 0 });
      expect(await s.pruneHistory(10, 2)).toEqual({ samples: 1, alerts: 0 });
    });

    it('gives a chart at most its points from a window of thousands of samples, keeping the dip and the latest figure', async () => {
      const s = await store('chart');
      const MIN = 60_000;
      const many = Array.from({ length: 4320 }, (_, i) => ({ series: 'uptime_percent', entity: 'NodeID-A', at: i * 10 * MIN, value: i === 2000 ? 71.5 : 99 + (i % 7) / 10 }));
      await s.addSamples(many);
      const until = 4320 * 10 * MIN;
      const chart = await s.samples('uptime_percent', 'NodeID-A', 0, { until, points: 240 });
      expect(chart.length).toBeLessThanOrEqual(241);
      expect(Math.min(...chart.map((x) => x.value))).toBe(71.5);
      expect(chart.at(-1)).toEqual(many.at(-1));
      expect(chart.map((x) => x.at)).toEqual([...chart.map((x) => x.at)].sort((a, b) => a - b));
      // Fewer samples than points: each as it is.
      expect(await s.samples('uptime_percent', 'NodeID-A', until - 100 * MIN, { until, points: 240 })).toEqual(many.slice(-10));
    });
  });
}
