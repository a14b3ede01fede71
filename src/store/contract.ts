import { afterEach, describe, expect, it } from 'vitest';
import { StateConflictError } from './errors.js';
import { active, alert, HOUR, states, to, type Opened } from './contract-fixtures.js';
import { historyContract } from './contract-history.js';
import { outboxContract } from './contract-outbox.js';
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
// The outbox's and the history's tests are in contract-outbox.ts and contract-history.ts.

export type OpenStore = (place: string) => StateStore | Promise<StateStore>;

export function storeContract(name: string, open: OpenStore): void {
  describe(`${name}: the StateStore contract`, () => {
    const opened: StateStore[] = [];
    afterEach(() => {
      for (const s of opened.splice(0)) s.close();
    });
    const store: Opened = async (place) => {
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

    outboxContract(store);

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

    historyContract(store);

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
