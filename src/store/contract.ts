import { afterEach, describe, expect, it } from 'vitest';
import { StateConflictError } from './errors.js';
import { active, alert, HOUR, states, to, type Opened } from './contract-fixtures.js';
import { historyContract } from './contract-history.js';
import { outboxContract } from './contract-outbox.js';
import { partsContract } from './contract-parts.js';
import { StateDiff, type NewAlert, type StateStore } from './types.js';

// The behaviour every StateStore must have, as vitest blocks. An implementation's spec runs it:
//
//   storeContract('SqliteStore', (place) => SqliteStore.open(join(dir, `${place}.db`)));   // sqlite.spec.ts
//   storeContract('PostgresStore', (place) => PostgresStore.open(url, { schema: place }));  // the next one
//
// `open(place)` gives a store over the state called `place`: empty the first time, and the
// same state when opened again under that name (a second process beside the daemon, or a
// restart). Each test uses its own place. What only one implementation has (SQLite's file,
// WAL, its schema version) is tested in that implementation's spec, not here.
// The outbox's, the history's and the parts' tests are in contract-outbox.ts, contract-history.ts
// and contract-parts.ts. `shared`: a store whose instances share the work over shard leases.

export type OpenStore = (place: string) => StateStore | Promise<StateStore>;

export function storeContract(name: string, open: OpenStore, o: { shared?: boolean } = {}): void {
  describe(`${name}: the StateStore contract`, () => {
    const opened: StateStore[] = [];
    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close();
    });
    const store: Opened = async (place) => {
      const s = await open(place);
      opened.push(s);
      return s;
    };

    describe('states', () => {
      it('commits states and alerts together, replaces the rule state set, and bumps the revision at each commit', async () => {
        const s = await store('states');
        expect(await s.stateRows('r')).toEqual({ rows: [], revision: 0 });
        await s.commitEvaluation('r', { a: 1, b: 2 }, [alert], 1);
        await s.commitEvaluation('r', { b: 3 }, [], 2);
        expect(await states(s, 'r')).toEqual({ b: 3 });
        expect((await s.stateRows('r')).revision).toBe(2);
        expect(await s.pendingCount()).toBe(2);
      });

      it('keeps the steady clock\'s fractions of a millisecond: a commit, its state alerts, its outbox rows and samples at such a time', async () => {
        const s = await store('fractions');
        const now = 1_795_974_610_482.1074;
        const firing = active('k', { startedAt: now - 0.5, notifiedAt: now, notifiedReceivers: { 'slack-a': now } });
        await s.commitEvaluation('r', { a: 1 }, [alert], now, [firing], undefined, now - 1.25);
        expect(await s.loadActive('r')).toEqual([firing]);
        const claimed = await s.claimDue('slack-a', now + 0.5, 10, 1_000.5);
        expect(claimed).toHaveLength(1);
        await s.markRetry(claimed[0]!.id, now + 2.5, 'timeout', now + 1.5);
        expect(await s.nextDue('slack-a')).toBe(now + 2.5);
        await s.addSamples([{ series: 'uptime', entity: 'NodeID-1', at: now, value: 99.5 }]);
        expect(await s.samples('uptime', 'NodeID-1', now - 1)).toEqual([{ series: 'uptime', entity: 'NodeID-1', at: now, value: 99.5 }]);
      });

      it('keeps what was committed when opened again', async () => {
        const s = await store('reopen');
        await s.commitEvaluation('r', { 'NodeID-1': { s: 1 } }, [alert], 1_000);
        await s.close();
        const again = await store('reopen');
        expect(await states(again, 'r')).toEqual({ 'NodeID-1': { s: 1 } });
        expect(await again.pendingCount()).toBe(2);
      });

      it('rolls back the whole evaluation when a write fails', async () => {
        const s = await store('rollback');
        await s.commitEvaluation('r', { a: 1 }, [], 1, [active('k')]);
        const bad = { ...alert, summary: null as unknown as string };
        await expect(s.commitEvaluation('r', { a: 2 }, [bad], 2, [])).rejects.toThrow();
        expect(await states(s, 'r')).toEqual({ a: 1 });
        expect((await s.loadActive('r')).map((a) => a.key)).toEqual(['k']);
        expect(await s.pendingCount()).toBe(0);
        expect((await s.stateRows('r')).revision).toBe(1);
      });

      it('refuses a commit made from states another process has replaced since, writing nothing of it', async () => {
        const daemon = await store('revision');
        const once = await store('revision');
        await daemon.commitEvaluation('r', { a: 1 }, [], 1_000);
        const read = await daemon.stateRows('r');
        expect(read.revision).toBe(1);
        await once.commitEvaluation('r', { a: 2 }, [alert], 2_000, undefined, (await once.stateRows('r')).revision); // once --send got there first
        await expect(daemon.commitEvaluation('r', { a: 2 }, [alert], 3_000, undefined, read.revision)).rejects.toThrow(StateConflictError);
        expect(await daemon.outbox('pending')).toHaveLength(2); // the first commit's two targets only
        expect(await daemon.stateRows('r')).toEqual({ rows: [{ entity: 'a', state: '2' }], revision: 2 });
      });

      it('writes only what changed, unless another process wrote since: then the whole set as it stands', async () => {
        const daemon = await store('diff');
        const other = await store('diff');
        await daemon.commitEvaluation('r', { a: 1, b: 2 }, [], 1_000);
        const version = await daemon.dataVersion();
        await daemon.commitEvaluation('r', new StateDiff([['b', '3']], ['a'], { version, all: new Map([['b', '3']]) }), [], 2_000);
        expect(await states(daemon, 'r')).toEqual({ b: 3 });
        await other.commitEvaluation('r', { b: 3, x: 9 }, [], 3_000); // `once` beside the daemon
        expect(await daemon.dataVersion()).not.toBe(version);
        await daemon.commitEvaluation('r', new StateDiff([], [], { version, all: new Map([['b', '4']]) }), [], 4_000);
        expect(await states(daemon, 'r')).toEqual({ b: 4 });
      });

      it('names the rules it holds state or alerts of, and forgets a removed rule without losing what it queued', async () => {
        const s = await store('prune-rule');
        await s.commitEvaluation('kept', { a: 1 }, [], 1_000);
        await s.commitEvaluation('gone', { a: 1 }, [alert], 1_000, [active('k')]);
        await s.commitEvaluation('alerts-only', {}, [], 1_000, [active('k')]);
        expect((await s.ruleNames()).sort()).toEqual(['alerts-only', 'gone', 'kept']);
        await s.pruneRule('gone', 'alerts-only');
        expect(await s.ruleNames()).toEqual(['kept']);
        expect((await s.stateRows('gone')).rows).toEqual([]);
        expect(await s.loadActive('gone')).toEqual([]);
        expect(await s.pendingCount()).toBe(2);
      });
    });

    describe('state alerts', () => {
      it("keeps each rule's state alerts as committed, and lists the firing ones oldest first", async () => {
        const s = await store('active');
        const muted = active('m', { startedAt: 500, mutedAt: 900, mutedReceivers: ['ops'], notifiedReceivers: { ops: 800 }, clearedAt: 950, tier: '7d', condition: { key: 'm', firedAt: 600 } });
        await s.commitEvaluation('a', {}, [], 1_000, [active('x'), active('p', { state: 'pending', notifiedAt: null })]);
        await s.commitEvaluation('b', {}, [], 1_000, [muted]);
        expect(await s.loadActive('b')).toEqual([muted]);
        expect((await s.activeAlerts()).map((a) => `${a.rule}/${a.key}`)).toEqual(['b/m', 'a/x']);
        await s.commitEvaluation('a', {}, [], 2_000); // no `active`: the state alerts stay
        expect(await s.loadActive('a')).toHaveLength(2);
        await s.commitEvaluation('a', {}, [], 3_000, []);
        expect(await s.loadActive('a')).toEqual([]);
      });
    });

    outboxContract(store);
    partsContract(store, o);

    describe('silences', () => {
      it('lists the silences in force (or all), newest first, and ends one early', async () => {
        const s = await store('silences');
        const matchers = [{ name: 'node', value: 'NodeID-.*', regex: true }];
        const old = await s.addSilence({ matchers, startsAt: 0, endsAt: 1_000, comment: 'done', createdBy: 'ops', createdAt: 0 });
        const now = await s.addSilence({ matchers, startsAt: 1_000, endsAt: 10_000, comment: 'upgrade', createdBy: 'ops', createdAt: 1_000 });
        const later = await s.addSilence({ matchers: [], startsAt: 8_000, endsAt: 9_000, comment: 'later', createdBy: 'ops', createdAt: 1_000 });
        expect(await s.silences(2_000)).toEqual([{ id: now, matchers, startsAt: 1_000, endsAt: 10_000, comment: 'upgrade', createdBy: 'ops', createdAt: 1_000 }]);
        expect((await s.silences(2_000, true)).map((x) => x.id)).toEqual([later, now, old]);
        expect(await s.expireSilence(now, 3_000)).toBe(true);
        expect(await s.expireSilence(now, 3_001)).toBe(false);
        expect(await s.expireSilence(old, 3_000)).toBe(false);
        expect(await s.silences(3_000)).toEqual([]);
        expect((await s.silences(3_000, true)).find((x) => x.id === now)?.endsAt).toBe(3_000);
      });
    });

    historyContract(store);

    describe('maintenance', () => {
      const T = Date.UTC(2026, 2, 1, 12);
      const retried: NewAlert = { ...alert, targets: [to('slack')] };

      it("brings a previous run's steady times that lie ahead of this run's clock back together: a retry due then is due now", async () => {
        const s = await store('reanchor');
        // The last run's steady clock ran an hour ahead of the wall (its wall stepped back): a row made at T + 1h, retried 5 s later.
        await s.commitEvaluation('r', { e: { x: 1 } }, [retried], T + HOUR);
        const [row] = await s.claimDue('slack', T + HOUR, 10, 1_000);
        await s.markRetry(row!.id, T + HOUR + 5_000, 'HTTP 503', T + HOUR);
        expect(await s.claimDue('slack', T + 10_000, 10, 1_000)).toEqual([]);
        expect(await s.reanchor(T, 60_000)).toBe(HOUR);
        expect((await s.claimDue('slack', T + 5_000, 10, 1_000)).map((r) => [r.id, r.createdAt])).toEqual([[row!.id, T]]);
        // Times already behind the clock, or ahead by less than the tolerance, stay as they are.
        expect(await s.reanchor(T, 60_000)).toBe(0);
        expect(await s.reanchor(T - 30_000, 60_000)).toBe(0);
      });

      it("shifts a firing alert's firing time with its start: \"Fired at\" stays after \"Failing since\"", async () => {
        const s = await store('reanchor-fired');
        const condition = { key: 'N', subject: 'N', summary: 'N is low', labels: {}, details: {}, firedAt: T + HOUR + 120_000 };
        const row = active('N', { startedAt: T + HOUR, notifiedAt: T + HOUR + 120_000, notifiedReceivers: { ops: T + HOUR + 120_000 }, condition });
        await s.commitEvaluation('r', {}, [], T + HOUR, [row, { ...row, key: 'M', notifiedReceivers: {}, condition: { ...condition, key: 'M', firedAt: undefined } }]);
        expect(await s.reanchor(T, 60_000)).toBe(HOUR);
        const [m, n] = (await s.loadActive('r')).sort((a, b) => (a.key < b.key ? -1 : 1));
        expect(n).toMatchObject({ startedAt: T, notifiedReceivers: { ops: T + 120_000 }, condition: { firedAt: T + 120_000 } });
        expect(m?.condition).not.toHaveProperty('firedAt');
      });

      it("forgets the previous run's transition keys when it shifts its times: they name starts on the old timeline, which this run's may repeat", async () => {
        const s = await store('reanchor-transition');
        const firing: NewAlert = { ...retried, status: 'firing', conditionKey: 'N', transition: `firing||${T + 60_000}` };
        await s.commitEvaluation('r', {}, [firing], T + HOUR);
        expect(await s.reanchor(T, 60_000)).toBe(HOUR);
        await s.commitEvaluation('r', {}, [firing], T + 60_000);
        expect(await s.outbox()).toHaveLength(2);
      });

      it('answers a ping while open', async () => {
        const s = await store('ping');
        await expect(s.ping()).resolves.toBeUndefined();
      });
    });
  });
}
