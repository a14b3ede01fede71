import { describe, expect, it } from 'vitest';
import { active, alert, to, type Opened } from './contract-fixtures.js';
import type { NewAlert } from './types.js';

// The contract's outbox (contract.ts): claims and leases, outcomes, grouping, what the page reads.

export function outboxContract(store: Opened): void {
  describe('outbox', () => {
    it('hands out due rows per receiver and records the outcome', async () => {
      const s = await store('outcome');
      await s.commitEvaluation('r', {}, [alert], 1_000);
      const [row] = await s.claimDue('slack-a', 1_000, 10, 60_000);
      expect(row?.message).toMatchObject({ rule: 'r', summary: 'changed', labels: { node: 'NodeID-1' }, details: { Change: 'a → b' }, at: new Date(1_000).toISOString() });
      await s.markRetry(row!.id, 5_000, 'HTTP 503', 1_001, true);
      expect(await s.claimDue('slack-a', 4_999, 10, 60_000)).toEqual([]);
      expect(await s.nextDue('slack-a')).toBe(5_000);
      const [again] = await s.claimDue('slack-a', 5_000, 10, 60_000);
      expect(again).toMatchObject({ id: row!.id, attempts: 1, unknownOutcomes: 1, lastError: 'HTTP 503' });
      await s.markSent(row!.id, 5_001);
      expect(await s.nextDue('slack-a')).toBeUndefined();
      const [other] = await s.claimDue('slack-b', 1_000, 10, 60_000);
      await s.markDead(other!.id, 'HTTP 410', 1_002);
      expect((await s.outbox()).map((r) => [r.receiver, r.state, r.attempts, r.lastError])).toEqual([
        ['slack-b', 'dead', 1, 'HTTP 410'],
        ['slack-a', 'sent', 2, 'HTTP 503'],
      ]);
      expect(await s.outboxCounts()).toEqual({ pending: 0, sent: 1, dead: 1, muted: 0 });
      expect(await s.pendingCount()).toBe(0);
    });

    it("keeps a state alert's condition key with its outbox rows (an event has none)", async () => {
      const s = await store('key');
      await s.commitEvaluation('r', {}, [{ ...alert, status: 'firing', conditionKey: 'NodeID-1:uptime' }, alert], 1_000);
      const rows = await s.claimDue('slack-a', 1_000, 10, 60_000);
      expect(rows.map((r) => r.message.conditionKey)).toEqual(['NodeID-1:uptime', undefined]);
      expect('conditionKey' in rows[1]!.message).toBe(false);
    });

    it('keeps one alert per transition: the same news committed again (a second instance in a hand-over) is skipped with its outbox rows; a reminder and a new episode are not', async () => {
      const [a, b] = [await store('transition'), await store('transition')];
      const firing: NewAlert = { ...alert, status: 'firing', conditionKey: 'N', transition: 'firing||1000', summary: 'N fired' };
      const [id] = await a.commitEvaluation('r', {}, [firing], 1_000);
      // The second instance's copy, beside an event: the commit succeeds, and answers the stored alert's id for the copy.
      const ids = await b.commitEvaluation('r', { e: 1 }, [{ ...firing, summary: 'N fired (copy)' }, { ...alert, summary: 'event' }], 1_500);
      expect(ids[0]).toBe(id);
      expect(ids[1]).toBeGreaterThan(id!);
      expect((await b.stateRows('r')).rows).toEqual([{ entity: 'e', state: '1' }]);
      // A reminder of it (no transition), another condition's, the rule-failing kind's and another rule's same key, its resolution, its next episode.
      const later: NewAlert[] = [
        { ...firing, transition: undefined, reminder: true, summary: 'N reminder' },
        { ...firing, conditionKey: 'M', summary: 'M fired' },
        { ...firing, kind: 'rule-failing', summary: 'N failing' },
        { ...firing, rule: 'other', summary: 'other N fired' },
        { ...firing, status: 'resolved', transition: 'resolved||1000', summary: 'N resolved' },
        { ...firing, transition: 'firing||9000', summary: 'N fired again' },
      ];
      const more = await b.commitEvaluation('r', {}, later, 9_000);
      expect(new Set([id, ...ids, ...more]).size).toBe(2 + later.length);
      // ... each once, twice again: nothing more.
      expect(await a.commitEvaluation('r', {}, later.filter((x) => x.transition !== undefined), 9_500)).toEqual(more.slice(1));
      const rows = (await a.outbox()).map((r) => `${r.receiver} ${r.summary}`).sort();
      expect(rows).toEqual(['N fired', 'event', ...later.map((x) => x.summary)].flatMap((x) => [`slack-a ${x}`, `slack-b ${x}`]).sort());
    });

    it('records a target muted at commit with why, never to be claimed', async () => {
      const s = await store('muted-target');
      await s.commitEvaluation('r', {}, [{ ...alert, targets: [to('slack-a', { mutedBy: 'silenced by #3' }), to('slack-b')] }], 1_000);
      expect(await s.claimDue('slack-a', 1_000, 10, 60_000)).toEqual([]);
      expect((await s.outbox('muted')).map((r) => [r.receiver, r.lastError])).toEqual([['slack-a', 'silenced by #3']]);
      expect(await s.outboxCounts()).toEqual({ pending: 1, sent: 0, dead: 0, muted: 1 });
    });

    it('lets one sender hold a row: nobody claims it again until the lease ends or it is released', async () => {
      const daemon = await store('lease');
      const other = await store('lease');
      await daemon.commitEvaluation('r', {}, [{ ...alert, targets: [to('slack-a')] }], 1_000);
      const [row] = await daemon.claimDue('slack-a', 1_000, 10, 60_000);
      expect(row).toBeDefined();
      expect(await daemon.claimDue('slack-a', 1_500, 10, 60_000)).toEqual([]);
      expect(await other.claimDue('slack-a', 2_000, 10, 60_000)).toEqual([]);
      expect((await other.claimDue('slack-a', 61_001, 10, 60_000)).map((r) => r.id)).toEqual([row!.id]); // the holder crashed
      await other.release(row!.id);
      expect((await daemon.claimDue('slack-a', 61_002, 10, 60_000)).map((r) => r.id)).toEqual([row!.id]);
    });

    it('holds a claimed batch of groups for as long as sending them one by one may take', async () => {
      const daemon = await store('batch');
      const other = await store('batch');
      await daemon.commitEvaluation('r', {}, ['g1', 'g2', 'g3'].map((g) => ({ ...alert, subject: g, targets: [to('slack-a', { groupKey: g })] })), 1_000);
      const rows = await daemon.claimDue('slack-a', 1_000, 10, 15_000);
      expect(rows).toHaveLength(3);
      await daemon.extendLease(rows.map((r) => r.id), 1_000 + 3 * 15_000);
      expect(await other.claimDue('slack-a', 20_000, 10, 15_000)).toEqual([]); // past the first lease, the third group is still ours
      expect(await other.claimDue('slack-a', 46_001, 10, 15_000)).toHaveLength(3);
    });

    it('claims at most `limit` rows, oldest first, and skips the groups it is told to (throttled ones)', async () => {
      const s = await store('limit');
      // minWaitMs: never urgent (an urgent row takes even a skipped group along).
      await s.commitEvaluation('r', {}, ['g1', 'g2', 'g3', 'g4'].map((g) => ({ ...alert, severity: 'info', subject: g, targets: [to('slack-a', { groupKey: g, minWaitMs: 0 })] })), 1_000);
      expect((await s.claimDue('slack-a', 1_000, 2, 60_000, ['g1'])).map((r) => r.message.subject)).toEqual(['g2', 'g3']);
      expect((await s.claimDue('slack-a', 1_000, 10, 60_000, ['g1'])).map((r) => r.message.subject)).toEqual(['g4']);
      expect(await s.nextDue('slack-a', ['g1'])).toBe(61_000); // the claimed ones' lease
      expect(await s.nextDue('slack-a')).toBe(1_000);
    });

    it("sends a group's first news and a critical within a second; what follows waits for the group", async () => {
      const s = await store('group-wait');
      const news = (severity: NewAlert['severity'], subject: string): NewAlert => ({ ...alert, severity, subject, targets: [to('slack-a', { groupWaitMs: 30_000, groupIntervalMs: 60_000 })] });
      await s.commitEvaluation('r', {}, [news('info', 'first')], 1_000);
      const first = await s.nextDue('slack-a');
      expect(first).toBeGreaterThan(1_000);
      expect(first).toBeLessThan(2_000);
      const [a] = await s.claimDue('slack-a', first!, 10, 60_000);
      await s.markSent(a!.id, first!);
      await s.commitEvaluation('r', {}, [news('info', 'second')], 2_000);
      expect(await s.nextDue('slack-a')).toBe(32_000);
      expect(await s.claimDue('slack-a', 31_999, 10, 60_000)).toEqual([]);
      const [b] = await s.claimDue('slack-a', 32_000, 10, 60_000);
      expect(b?.message.subject).toBe('second');
      await s.markSent(b!.id, 32_000);
      await s.commitEvaluation('r', {}, [news('critical', 'third')], 40_000);
      const due = await s.nextDue('slack-a');
      expect(due).toBeGreaterThan(40_000);
      expect(due).toBeLessThan(41_000);
      expect((await s.claimDue('slack-a', due!, 10, 60_000)).map((r) => r.message.subject)).toEqual(['third']);
    });

    it("sends the first news of each group one commit brings within a second, and holds what follows it in the same group", async () => {
      const s = await store('group-wait-one-commit');
      const news = (subject: string, groupKey: string): NewAlert => ({ ...alert, severity: 'info', subject, targets: [to('slack-a', { groupKey, groupWaitMs: 30_000, groupIntervalMs: 60_000 })] });
      await s.commitEvaluation('r', {}, [news('g first', 'g'), news('h first', 'h'), news('g second', 'g')], 1_000);
      const due = await s.nextDue('slack-a');
      expect(due).toBeLessThan(2_000);
      // Each group's urgent row takes its group with it: g's two, h's one.
      expect((await s.claimDue('slack-a', due!, 10, 60_000)).map((r) => r.message.subject).sort()).toEqual(['g first', 'g second', 'h first']);
    });

    it('tells per receiver when it last sent, what is pending and dead, and its newest error (not a mute reason)', async () => {
      const s = await store('receivers');
      await s.commitEvaluation('r', {}, [alert, alert, alert, alert], 1_000);
      const a = await s.claimDue('slack-a', 1_000, 10, 60_000);
      const b = await s.claimDue('slack-b', 1_000, 10, 60_000);
      await s.markSent(a[0]!.id, 2_000);
      await s.markSent(a[1]!.id, 3_000);
      await s.markRetry(a[2]!.id, 9_000, 'HTTP 500 (older)', 4_000);
      await s.markDead(a[3]!.id, 'HTTP 404: no such webhook', 5_000);
      await s.muteWaiting(b[0]!, 'silenced by #1', 6_000);
      for (const row of b.slice(1)) await s.release(row.id);
      expect(await s.receiverStats()).toEqual([
        { receiver: 'slack-a', lastSuccess: 3_000, pending: 1, dead: 1, lastError: 'HTTP 404: no such webhook', lastErrorAt: 5_000 },
        { receiver: 'slack-b', lastSuccess: undefined, pending: 3, dead: 0, lastError: undefined, lastErrorAt: undefined },
      ]);
      // What keeps a receiver failing across a restart: its dead rows since it last delivered.
      expect(await s.deadLetters(0)).toEqual([{ receiver: 'slack-a', count: 1, at: 5_000, error: 'HTTP 404: no such webhook' }]);
      expect(await s.deadLetters(5_001)).toEqual([]);
    });

    it('mutes a waiting row: a firing state alert owes it to the receiver when the mute ends, and the rule is read again', async () => {
      const s = await store('mute-waiting');
      const firing: NewAlert = { ...alert, rule: 'ending', status: 'firing', conditionKey: 'N', targets: [to('ops')] };
      await s.commitEvaluation('ending', {}, [firing, { ...firing, status: 'event', conditionKey: undefined }], 1_000, [active('N', { notifiedReceivers: { ops: 1_000 } })]);
      const revision = (await s.stateRows('ending')).revision;
      const [row, ev] = await s.claimDue('ops', 1_000, 10, 60_000);
      await s.muteWaiting(ev!, 'silenced by #2', 2_000);
      expect((await s.stateRows('ending')).revision).toBe(revision); // an event: nothing owed
      await s.muteWaiting(row!, 'silenced by #2', 3_000);
      expect((await s.outbox('muted')).map((r) => r.lastError)).toEqual(['silenced by #2', 'silenced by #2']);
      expect(await s.loadActive('ending')).toEqual([expect.objectContaining({ key: 'N', mutedAt: 3_000, mutedReceivers: ['ops'] })]);
      expect((await s.stateRows('ending')).revision).toBe(revision + 1);
    });
  });
}
