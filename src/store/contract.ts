import { afterEach, describe, expect, it } from 'vitest';
import { StateConflictError } from './errors.js';
import { StateDiff, type ActiveRow, type NewAlert, type OutboxTarget, type StateStore } from './types.js';

// The behaviour every StateStore must have, as vitest blocks. An implementation's spec runs it:
//
//   storeContract('SqliteStore', (place) => SqliteStore.open(join(dir, `${place}.db`)));   // sqlite.spec.ts
//   storeContract('PostgresStore', (place) => PostgresStore.open(url, { schema: place }));  // the next one
//
// `open(place)` gives a store over the state called `place`: empty the first time, and the
// same state when opened again under that name (a second process beside the daemon, or a
// restart). Each test uses its own place. What only one implementation has (SQLite's file,
// WAL, its schema version) is tested in that implementation's spec, not here.

export type OpenStore = (place: string) => StateStore | Promise<StateStore>;

const HOUR = 3_600_000;

const to = (receiver: string, over: Partial<OutboxTarget> = {}): OutboxTarget => ({ receiver, groupKey: 'g', groupWaitMs: 0, groupIntervalMs: 0, ...over });

const alert: NewAlert = {
  rule: 'r',
  kind: 'a-kind',
  status: 'event',
  severity: 'critical',
  subject: 'NodeID-1',
  summary: 'changed',
  labels: { node: 'NodeID-1' },
  details: { Change: 'a → b' },
  targets: [to('slack-a'), to('slack-b')],
};

function event(over: Partial<NewAlert>): NewAlert {
  return { rule: 'status', kind: 'a-kind', status: 'event', severity: 'info', subject: 'NodeID-A', summary: 'x', labels: { node: 'NodeID-A' }, details: {}, targets: [], ...over };
}

function active(key: string, over: Partial<ActiveRow> = {}): ActiveRow {
  return { key, tier: '', state: 'firing', startedAt: 1_000, notifiedAt: 1_000, clearedAt: null, mutedAt: null, mutedReceivers: [], notifiedReceivers: {}, condition: { key }, ...over };
}

/** The rule's states by entity, parsed. */
function states(store: StateStore, rule: string): Record<string, unknown> {
  return Object.fromEntries(store.stateRows(rule).rows.map((r) => [r.entity, JSON.parse(r.state) as unknown]));
}

export function storeContract(name: string, open: OpenStore): void {
  describe(`${name}: the StateStore contract`, () => {
    const opened: StateStore[] = [];
    afterEach(() => {
      for (const s of opened.splice(0)) s.close();
    });
    const store = async (place: string): Promise<StateStore> => {
      const s = await open(place);
      opened.push(s);
      return s;
    };

    describe('states', () => {
      it('commits states and alerts together, replaces the rule state set, and bumps the revision at each commit', async () => {
        const s = await store('states');
        expect(s.stateRows('r')).toEqual({ rows: [], revision: 0 });
        s.commitEvaluation('r', { a: 1, b: 2 }, [alert], 1);
        s.commitEvaluation('r', { b: 3 }, [], 2);
        expect(states(s, 'r')).toEqual({ b: 3 });
        expect(s.stateRows('r').revision).toBe(2);
        expect(s.pendingCount()).toBe(2);
      });

      it('keeps what was committed when opened again', async () => {
        const s = await store('reopen');
        s.commitEvaluation('r', { 'NodeID-1': { s: 1 } }, [alert], 1_000);
        s.close();
        const again = await store('reopen');
        expect(states(again, 'r')).toEqual({ 'NodeID-1': { s: 1 } });
        expect(again.pendingCount()).toBe(2);
      });

      it('rolls back the whole evaluation when a write fails', async () => {
        const s = await store('rollback');
        s.commitEvaluation('r', { a: 1 }, [], 1, [active('k')]);
        const bad = { ...alert, summary: null as unknown as string };
        expect(() => s.commitEvaluation('r', { a: 2 }, [bad], 2, [])).toThrow();
        expect(states(s, 'r')).toEqual({ a: 1 });
        expect(s.loadActive('r').map((a) => a.key)).toEqual(['k']);
        expect(s.pendingCount()).toBe(0);
        expect(s.stateRows('r').revision).toBe(1);
      });

      it('refuses a commit made from states another process has replaced since, writing nothing of it', async () => {
        const daemon = await store('revision');
        const once = await store('revision');
        daemon.commitEvaluation('r', { a: 1 }, [], 1_000);
        const read = daemon.stateRows('r');
        expect(read.revision).toBe(1);
        once.commitEvaluation('r', { a: 2 }, [alert], 2_000, undefined, once.stateRows('r').revision); // once --send got there first
        expect(() => daemon.commitEvaluation('r', { a: 2 }, [alert], 3_000, undefined, read.revision)).toThrow(StateConflictError);
        expect(daemon.outbox('pending')).toHaveLength(2); // the first commit's two targets only
        expect(daemon.stateRows('r')).toEqual({ rows: [{ entity: 'a', state: '2' }], revision: 2 });
      });

      it('writes only what changed, unless another process wrote since: then the whole set as it stands', async () => {
        const daemon = await store('diff');
        const other = await store('diff');
        daemon.commitEvaluation('r', { a: 1, b: 2 }, [], 1_000);
        const version = daemon.dataVersion();
        daemon.commitEvaluation('r', new StateDiff([['b', '3']], ['a'], { version, all: new Map([['b', '3']]) }), [], 2_000);
        expect(states(daemon, 'r')).toEqual({ b: 3 });
        other.commitEvaluation('r', { b: 3, x: 9 }, [], 3_000); // `once` beside the daemon
        expect(daemon.dataVersion()).not.toBe(version);
        daemon.commitEvaluation('r', new StateDiff([], [], { version, all: new Map([['b', '4']]) }), [], 4_000);
        expect(states(daemon, 'r')).toEqual({ b: 4 });
      });

      it('names the rules it holds state or alerts of, and forgets a removed rule without losing what it queued', async () => {
        const s = await store('prune-rule');
        s.commitEvaluation('kept', { a: 1 }, [], 1_000);
        s.commitEvaluation('gone', { a: 1 }, [alert], 1_000, [active('k')]);
        s.commitEvaluation('alerts-only', {}, [], 1_000, [active('k')]);
        expect(s.ruleNames().sort()).toEqual(['alerts-only', 'gone', 'kept']);
        s.pruneRule('gone', 'alerts-only');
        expect(s.ruleNames()).toEqual(['kept']);
        expect(s.stateRows('gone').rows).toEqual([]);
        expect(s.loadActive('gone')).toEqual([]);
        expect(s.pendingCount()).toBe(2);
      });
    });

    describe('state alerts', () => {
      it("keeps each rule's state alerts as committed, and lists the firing ones oldest first", async () => {
        const s = await store('active');
        const muted = active('m', { startedAt: 500, mutedAt: 900, mutedReceivers: ['ops'], notifiedReceivers: { ops: 800 }, clearedAt: 950, tier: '7d', condition: { key: 'm', firedAt: 600 } });
        s.commitEvaluation('a', {}, [], 1_000, [active('x'), active('p', { state: 'pending', notifiedAt: null })]);
        s.commitEvaluation('b', {}, [], 1_000, [muted]);
        expect(s.loadActive('b')).toEqual([muted]);
        expect(s.activeAlerts().map((a) => `${a.rule}/${a.key}`)).toEqual(['b/m', 'a/x']);
        s.commitEvaluation('a', {}, [], 2_000); // no `active`: the state alerts stay
        expect(s.loadActive('a')).toHaveLength(2);
        s.commitEvaluation('a', {}, [], 3_000, []);
        expect(s.loadActive('a')).toEqual([]);
      });
    });

    describe('outbox', () => {
      it('hands out due rows per receiver and records the outcome', async () => {
        const s = await store('outcome');
        s.commitEvaluation('r', {}, [alert], 1_000);
        const [row] = s.claimDue('slack-a', 1_000, 10, 60_000);
        expect(row?.message).toMatchObject({ rule: 'r', summary: 'changed', labels: { node: 'NodeID-1' }, details: { Change: 'a → b' }, at: new Date(1_000).toISOString() });
        s.markRetry(row!.id, 5_000, 'HTTP 503', 1_001, true);
        expect(s.claimDue('slack-a', 4_999, 10, 60_000)).toEqual([]);
        expect(s.nextDue('slack-a')).toBe(5_000);
        const [again] = s.claimDue('slack-a', 5_000, 10, 60_000);
        expect(again).toMatchObject({ id: row!.id, attempts: 1, unknownOutcomes: 1, lastError: 'HTTP 503' });
        s.markSent(row!.id, 5_001);
        expect(s.nextDue('slack-a')).toBeUndefined();
        const [other] = s.claimDue('slack-b', 1_000, 10, 60_000);
        s.markDead(other!.id, 'HTTP 410', 1_002);
        expect(s.outbox().map((r) => [r.receiver, r.state, r.attempts, r.lastError])).toEqual([
          ['slack-b', 'dead', 1, 'HTTP 410'],
          ['slack-a', 'sent', 2, 'HTTP 503'],
        ]);
        expect(s.outboxCounts()).toEqual({ pending: 0, sent: 1, dead: 1, muted: 0 });
        expect(s.pendingCount()).toBe(0);
      });

      it("keeps a state alert's condition key with its outbox rows (an event has none)", async () => {
        const s = await store('key');
        s.commitEvaluation('r', {}, [{ ...alert, status: 'firing', conditionKey: 'NodeID-1:uptime' }, alert], 1_000);
        const rows = s.claimDue('slack-a', 1_000, 10, 60_000);
        expect(rows.map((r) => r.message.conditionKey)).toEqual(['NodeID-1:uptime', undefined]);
        expect('conditionKey' in rows[1]!.message).toBe(false);
      });

      it('records a target muted at commit with why, never to be claimed', async () => {
        const s = await store('muted-target');
        s.commitEvaluation('r', {}, [{ ...alert, targets: [to('slack-a', { mutedBy: 'silenced by #3' }), to('slack-b')] }], 1_000);
        expect(s.claimDue('slack-a', 1_000, 10, 60_000)).toEqual([]);
        expect(s.outbox('muted').map((r) => [r.receiver, r.lastError])).toEqual([['slack-a', 'silenced by #3']]);
        expect(s.outboxCounts()).toEqual({ pending: 1, sent: 0, dead: 0, muted: 1 });
      });

      it('lets one sender hold a row: nobody claims it again until the lease ends or it is released', async () => {
        const daemon = await store('lease');
        const other = await store('lease');
        daemon.commitEvaluation('r', {}, [{ ...alert, targets: [to('slack-a')] }], 1_000);
        const [row] = daemon.claimDue('slack-a', 1_000, 10, 60_000);
        expect(row).toBeDefined();
        expect(daemon.claimDue('slack-a', 1_500, 10, 60_000)).toEqual([]);
        expect(other.claimDue('slack-a', 2_000, 10, 60_000)).toEqual([]);
        expect(other.claimDue('slack-a', 61_001, 10, 60_000).map((r) => r.id)).toEqual([row!.id]); // the holder crashed
        other.release(row!.id);
        expect(daemon.claimDue('slack-a', 61_002, 10, 60_000).map((r) => r.id)).toEqual([row!.id]);
      });

      it('holds a claimed batch of groups for as long as sending them one by one may take', async () => {
        const daemon = await store('batch');
        const other = await store('batch');
        daemon.commitEvaluation('r', {}, ['g1', 'g2', 'g3'].map((g) => ({ ...alert, subject: g, targets: [to('slack-a', { groupKey: g })] })), 1_000);
        const rows = daemon.claimDue('slack-a', 1_000, 10, 15_000);
        expect(rows).toHaveLength(3);
        daemon.extendLease(rows.map((r) => r.id), 1_000 + 3 * 15_000);
        expect(other.claimDue('slack-a', 20_000, 10, 15_000)).toEqual([]); // past the first lease, the third group is still ours
        expect(other.claimDue('slack-a', 46_001, 10, 15_000)).toHaveLength(3);
      });

      it('claims at most `limit` rows, oldest first, and skips the groups it is told to (throttled ones)', async () => {
        const s = await store('limit');
        // minWaitMs: never urgent (an urgent row takes even a skipped group along).
        s.commitEvaluation('r', {}, ['g1', 'g2', 'g3', 'g4'].map((g) => ({ ...alert, severity: 'info', subject: g, targets: [to('slack-a', { groupKey: g, minWaitMs: 0 })] })), 1_000);
        expect(s.claimDue('slack-a', 1_000, 2, 60_000, ['g1']).map((r) => r.message.subject)).toEqual(['g2', 'g3']);
        expect(s.claimDue('slack-a', 1_000, 10, 60_000, ['g1']).map((r) => r.message.subject)).toEqual(['g4']);
        expect(s.nextDue('slack-a', ['g1'])).toBe(61_000); // the claimed ones' lease
        expect(s.nextDue('slack-a')).toBe(1_000);
      });

      it("sends a group's first news and a critical within a second; what follows waits for the group", async () => {
        const s = await store('group-wait');
        const news = (severity: NewAlert['severity'], subject: string): NewAlert => ({ ...alert, severity, subject, targets: [to('slack-a', { groupWaitMs: 30_000, groupIntervalMs: 60_000 })] });
        s.commitEvaluation('r', {}, [news('info', 'first')], 1_000);
        const first = s.nextDue('slack-a');
        expect(first).toBeGreaterThan(1_000);
        expect(first).toBeLessThan(2_000);
        const [a] = s.claimDue('slack-a', first!, 10, 60_000);
        s.markSent(a!.id, first!);
        s.commitEvaluation('r', {}, [news('info', 'second')], 2_000);
        expect(s.nextDue('slack-a')).toBe(32_000);
        expect(s.claimDue('slack-a', 31_999, 10, 60_000)).toEqual([]);
        const [b] = s.claimDue('slack-a', 32_000, 10, 60_000);
        expect(b?.message.subject).toBe('second');
        s.markSent(b!.id, 32_000);
        s.commitEvaluation('r', {}, [news('critical', 'third')], 40_000);
        const due = s.nextDue('slack-a');
        expect(due).toBeGreaterThan(40_000);
        expect(due).toBeLessThan(41_000);
        expect(s.claimDue('slack-a', due!, 10, 60_000).map((r) => r.message.subject)).toEqual(['third']);
      });

      it('tells per receiver when it last sent, what is pending and dead, and its newest error (not a mute reason)', async () => {
        const s = await store('receivers');
        s.commitEvaluation('r', {}, [alert, alert, alert, alert], 1_000);
        const a = s.claimDue('slack-a', 1_000, 10, 60_000);
        const b = s.claimDue('slack-b', 1_000, 10, 60_000);
        s.markSent(a[0]!.id, 2_000);
        s.markSent(a[1]!.id, 3_000);
        s.markRetry(a[2]!.id, 9_000, 'HTTP 500 (older)', 4_000);
        s.markDead(a[3]!.id, 'HTTP 404: no such webhook', 5_000);
        s.muteWaiting(b[0]!, 'silenced by #1', 6_000);
        for (const row of b.slice(1)) s.release(row.id);
        expect(s.receiverStats()).toEqual([
          { receiver: 'slack-a', lastSuccess: 3_000, pending: 1, dead: 1, lastError: 'HTTP 404: no such webhook', lastErrorAt: 5_000 },
          { receiver: 'slack-b', lastSuccess: undefined, pending: 3, dead: 0, lastError: undefined, lastErrorAt: undefined },
        ]);
        // What keeps a receiver failing across a restart: its dead rows since it last delivered.
        expect(s.deadLetters(0)).toEqual([{ receiver: 'slack-a', count: 1, at: 5_000, error: 'HTTP 404: no such webhook' }]);
        expect(s.deadLetters(5_001)).toEqual([]);
      });

      it('mutes a waiting row: a firing state alert owes it to the receiver when the mute ends, and the rule is read again', async () => {
        const s = await store('mute-waiting');
        const firing: NewAlert = { ...alert, rule: 'ending', status: 'firing', conditionKey: 'N', targets: [to('ops')] };
        s.commitEvaluation('ending', {}, [firing, { ...firing, status: 'event', conditionKey: undefined }], 1_000, [active('N', { notifiedReceivers: { ops: 1_000 } })]);
        const revision = s.stateRows('ending').revision;
        const [row, ev] = s.claimDue('ops', 1_000, 10, 60_000);
        s.muteWaiting(ev!, 'silenced by #2', 2_000);
        expect(s.stateRows('ending').revision).toBe(revision); // an event: nothing owed
        s.muteWaiting(row!, 'silenced by #2', 3_000);
        expect(s.outbox('muted').map((r) => r.lastError)).toEqual(['silenced by #2', 'silenced by #2']);
        expect(s.loadActive('ending')).toEqual([expect.objectContaining({ key: 'N', mutedAt: 3_000, mutedReceivers: ['ops'] })]);
        expect(s.stateRows('ending').revision).toBe(revision + 1);
      });
    });

    describe('silences', () => {
      it('lists the silences in force (or all), newest first, and ends one early', async () => {
        const s = await store('silences');
        const matchers = [{ name: 'node', value: 'NodeID-.*', regex: true }];
        const old = s.addSilence({ matchers, startsAt: 0, endsAt: 1_000, comment: 'done', createdBy: 'ops', createdAt: 0 });
        const now = s.addSilence({ matchers, startsAt: 1_000, endsAt: 10_000, comment: 'upgrade', createdBy: 'ops', createdAt: 1_000 });
        const later = s.addSilence({ matchers: [], startsAt: 8_000, endsAt: 9_000, comment: 'later', createdBy: 'ops', createdAt: 1_000 });
        expect(s.silences(2_000)).toEqual([{ id: now, matchers, startsAt: 1_000, endsAt: 10_000, comment: 'upgrade', createdBy: 'ops', createdAt: 1_000 }]);
        expect(s.silences(2_000, true).map((x) => x.id)).toEqual([later, now, old]);
        expect(s.expireSilence(now, 3_000)).toBe(true);
        expect(s.expireSilence(now, 3_001)).toBe(false);
        expect(s.expireSilence(old, 3_000)).toBe(false);
        expect(s.silences(3_000)).toEqual([]);
        expect(s.silences(3_000, true).find((x) => x.id === now)?.endsAt).toBe(3_000);
      });
    });

    describe('history', () => {
      it('reads events and state changes newest first, by validator, without reminders', async () => {
        const s = await store('timeline');
        s.commitEvaluation('status', {}, [event({ summary: 'validation ended without a reward', labels: { node: 'NodeID-A', validator: 'alpha' } })], 1 * HOUR);
        s.commitEvaluation('health', {}, [event({ rule: 'health', status: 'firing', subject: 'NodeID-B', summary: 'uptime 70%', labels: { node: 'NodeID-B' } })], 2 * HOUR);
        s.commitEvaluation('health', {}, [event({ rule: 'health', status: 'firing', subject: 'NodeID-B', summary: 'uptime 70%', labels: { node: 'NodeID-B' }, reminder: true })], 3 * HOUR);
        s.commitEvaluation('health', {}, [event({ rule: 'health', status: 'resolved', subject: 'NodeID-B', summary: 'uptime back at 92%', labels: { node: 'NodeID-B' } })], 4 * HOUR);

        expect(s.timeline({ since: 0 }).map((e) => `${e.status} ${e.summary}`)).toEqual(['resolved uptime back at 92%', 'firing uptime 70%', 'event validation ended without a reward']);
        expect(s.timeline({ since: 0, validator: 'alpha' }).map((e) => e.summary)).toEqual(['validation ended without a reward']);
        expect(s.timeline({ since: 0, validator: 'NodeID-B' })).toHaveLength(2);
        expect(s.timeline({ since: 3 * HOUR }).map((e) => e.summary)).toEqual(['uptime back at 92%']);
        expect(s.timeline({ since: 0, limit: 1 }).map((e) => e.summary)).toEqual(['uptime back at 92%']);
      });

      it("reads each node's newest event in a window (a validator's tile shows it), never a state alert, a reminder or an L1 validation's", async () => {
        const s = await store('last-events');
        s.commitEvaluation('status', {}, [event({ summary: 'A ended with a reward', labels: { node: 'NodeID-A', network: 'mainnet' } })], 1 * HOUR);
        s.commitEvaluation('status', {}, [event({ summary: 'A ended without a reward', severity: 'critical', labels: { node: 'NodeID-A', network: 'mainnet' } })], 2 * HOUR);
        s.commitEvaluation('health', {}, [event({ rule: 'health', status: 'firing', summary: 'A uptime 70%', labels: { node: 'NodeID-A', network: 'mainnet' } })], 3 * HOUR);
        s.commitEvaluation('status', {}, [event({ summary: 'A reminder', labels: { node: 'NodeID-A', network: 'mainnet' }, reminder: true })], 4 * HOUR);
        s.commitEvaluation('l1', {}, [event({ rule: 'l1', summary: 'A L1 balance topped up', labels: { node_id: 'NodeID-A', validation_id: 'v1' } })], 5 * HOUR);
        s.commitEvaluation('end', {}, [event({ rule: 'end', subject: 'NodeID-B', summary: 'B ended', labels: { node_id: 'NodeID-B', network: 'fuji' } })], 1 * HOUR);
        s.commitEvaluation('end', {}, [event({ rule: 'end', subject: 'NodeID-B', summary: 'B on mainnet ended', labels: { node_id: 'NodeID-B', network: 'mainnet' } })], 90 * 60_000);

        expect(s.lastEvents(0).map((e) => e.summary)).toEqual(['A ended without a reward', 'B on mainnet ended', 'B ended']);
        expect(s.lastEvents(0)[0]?.severity).toBe('critical');
        // history.keep: an event older than the window leaves the tile.
        expect(s.lastEvents(90 * 60_000).map((e) => e.summary)).toEqual(['A ended without a reward', 'B on mainnet ended']);
      });

      it('keeps samples per series and entity, and prunes what is older than the window but never a notification still waiting', async () => {
        const s = await store('samples');
        s.addSamples([
          { series: 'uptime_percent', entity: 'NodeID-A', at: 1 * HOUR, value: 99.1 },
          { series: 'uptime_percent', entity: 'NodeID-A', at: 2 * HOUR, value: 98.7 },
          { series: 'uptime_percent', entity: 'NodeID-B', at: 2 * HOUR, value: 50 },
          { series: 'uptime_percent', entity: 'NodeID-B', at: 3 * HOUR, value: Number.NaN },
        ]);
        expect(s.samples('uptime_percent', 'NodeID-A', 0).map((x) => x.value)).toEqual([99.1, 98.7]);
        expect(Object.fromEntries(s.lastSampleAt('uptime_percent'))).toEqual({ 'NodeID-A': 2 * HOUR, 'NodeID-B': 2 * HOUR });

        s.commitEvaluation('status', {}, [event({ summary: 'old, sent' })], 1 * HOUR);
        s.commitEvaluation('status', {}, [event({ summary: 'old, still waiting', targets: [to('slack')] })], 1 * HOUR);
        s.commitEvaluation('status', {}, [event({ summary: 'new' })], 5 * HOUR);
        expect(s.pruneHistory(2 * HOUR)).toEqual({ samples: 1, alerts: 1 });
        expect(s.samples('uptime_percent', 'NodeID-A', 0).map((x) => x.value)).toEqual([98.7]);
        expect(s.timeline({ since: 0 }).map((e) => e.summary)).toEqual(['new', 'old, still waiting']);
        expect(s.pendingCount()).toBe(1);
      });

      it('prunes a large history in steps of at most `limit` rows', async () => {
        const s = await store('prune-steps');
        s.addSamples(Array.from({ length: 5 }, (_, i) => ({ series: 'x', entity: 'e', at: i, value: i })));
        expect(s.pruneHistory(10, 2)).toEqual({ samples: 2, alerts: 0 });
        expect(s.pruneHistory(10, 2)).toEqual({ samples: 2, alerts: 0 });
        expect(s.pruneHistory(10, 2)).toEqual({ samples: 1, alerts: 0 });
      });

      it('gives a chart at most its points from a window of thousands of samples, keeping the dip and the latest figure', async () => {
        const s = await store('chart');
        const MIN = 60_000;
        const many = Array.from({ length: 4320 }, (_, i) => ({ series: 'uptime_percent', entity: 'NodeID-A', at: i * 10 * MIN, value: i === 2000 ? 71.5 : 99 + (i % 7) / 10 }));
        s.addSamples(many);
        const until = 4320 * 10 * MIN;
        const chart = s.samples('uptime_percent', 'NodeID-A', 0, { until, points: 240 });
        expect(chart.length).toBeLessThanOrEqual(241);
        expect(Math.min(...chart.map((x) => x.value))).toBe(71.5);
        expect(chart.at(-1)).toEqual(many.at(-1));
        expect(chart.map((x) => x.at)).toEqual([...chart.map((x) => x.at)].sort((a, b) => a - b));
        // Fewer samples than points: each as it is.
        expect(s.samples('uptime_percent', 'NodeID-A', until - 100 * MIN, { until, points: 240 })).toEqual(many.slice(-10));
      });
    });

    describe('maintenance', () => {
      const T = Date.UTC(2026, 2, 1, 12);
      const retried: NewAlert = { ...alert, targets: [to('slack')] };

      it("brings a previous run's steady times that lie ahead of this run's clock back together: a retry due then is due now", async () => {
        const s = await store('reanchor');
        // The last run's steady clock ran an hour ahead of the wall (its wall stepped back): a row made at T + 1h, retried 5 s later.
        s.commitEvaluation('r', { e: { x: 1 } }, [retried], T + HOUR);
        const [row] = s.claimDue('slack', T + HOUR, 10, 1_000);
        s.markRetry(row!.id, T + HOUR + 5_000, 'HTTP 503', T + HOUR);
        expect(s.claimDue('slack', T + 10_000, 10, 1_000)).toEqual([]);
        expect(s.reanchor(T, 60_000)).toBe(HOUR);
        expect(s.claimDue('slack', T + 5_000, 10, 1_000).map((r) => [r.id, r.createdAt])).toEqual([[row!.id, T]]);
        // Times already behind the clock, or ahead by less than the tolerance, stay as they are.
        expect(s.reanchor(T, 60_000)).toBe(0);
        expect(s.reanchor(T - 30_000, 60_000)).toBe(0);
      });

      it("shifts a firing alert's firing time with its start: \"Fired at\" stays after \"Failing since\"", async () => {
        const s = await store('reanchor-fired');
        const condition = { key: 'N', subject: 'N', summary: 'N is low', labels: {}, details: {}, firedAt: T + HOUR + 120_000 };
        const row = active('N', { startedAt: T + HOUR, notifiedAt: T + HOUR + 120_000, notifiedReceivers: { ops: T + HOUR + 120_000 }, condition });
        s.commitEvaluation('r', {}, [], T + HOUR, [row, { ...row, key: 'M', notifiedReceivers: {}, condition: { ...condition, key: 'M', firedAt: undefined } }]);
        expect(s.reanchor(T, 60_000)).toBe(HOUR);
        const [m, n] = s.loadActive('r').sort((a, b) => (a.key < b.key ? -1 : 1));
        expect(n).toMatchObject({ startedAt: T, notifiedReceivers: { ops: T + 120_000 }, condition: { firedAt: T + 120_000 } });
        expect(m?.condition).not.toHaveProperty('firedAt');
      });

      it('answers a ping while open', async () => {
        const s = await store('ping');
        expect(() => s.ping()).not.toThrow();
      });
    });
  });
}
