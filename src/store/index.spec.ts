import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { StateConflictError, StateDiff, Store, type NewAlert } from './index.js';
import { MIGRATIONS } from './migrations.js';

const dir = mkdtempSync(join(tmpdir(), 'avawatch-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const alert: NewAlert = {
  rule: 'r',
  kind: 'validator-status',
  status: 'event',
  severity: 'critical',
  subject: 'NodeID-1',
  summary: 'changed',
  labels: { node: 'NodeID-1' },
  details: { Change: 'a → b' },
  targets: ['slack-a', 'slack-b'].map((receiver) => ({ receiver, groupKey: 'g', groupWaitMs: 0, groupIntervalMs: 0, repeatMs: 0, muteTimeIntervals: [] })),
};

describe('Store', () => {
  it('creates the directory, uses WAL, and survives a reopen', () => {
    const path = join(dir, 'nested', 'state.db');
    const store = Store.open(path);
    store.commitEvaluation('r', { 'NodeID-1': { s: 1 } }, [alert], 1_000);
    store.close();
    const again = Store.open(path);
    expect(again.loadStates('r')).toEqual({ 'NodeID-1': { s: 1 } });
    expect(again.pendingCount()).toBe(2);
    again.close();
    const raw = new Database(path);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
  });

  it('tells per receiver when it last sent, what is pending and dead, and its newest error (not a mute reason)', () => {
    const store = Store.open(join(dir, 'receivers.db'));
    store.commitEvaluation('r', {}, [alert, alert, alert, alert], 1_000);
    const rows = store.outbox().sort((a, b) => a.id - b.id);
    const a = rows.filter((r) => r.receiver === 'slack-a');
    const b = rows.filter((r) => r.receiver === 'slack-b');
    store.markSent(a[0]?.id ?? 0, 2_000);
    store.markSent(a[1]?.id ?? 0, 3_000);
    store.markRetry(a[2]?.id ?? 0, 9_000, 'HTTP 500 (older)', 4_000);
    store.markDead(a[3]?.id ?? 0, 'HTTP 404: no such webhook', 5_000);
    store.markMuted(b[0]?.id ?? 0, 'silenced by #1', 6_000);
    expect(store.receiverStats()).toEqual([
      { receiver: 'slack-a', lastSuccess: 3_000, pending: 1, dead: 1, lastError: 'HTTP 404: no such webhook', lastErrorAt: 5_000 },
      { receiver: 'slack-b', lastSuccess: undefined, pending: 3, dead: 0, lastError: undefined, lastErrorAt: undefined },
    ]);
    store.close();
  });

  it('commits states and alerts together and replaces the rule state set', () => {
    const store = Store.open(join(dir, 's.db'));
    store.commitEvaluation('r', { a: 1, b: 2 }, [], 1);
    store.commitEvaluation('r', { b: 3 }, [], 2);
    expect(store.loadStates('r')).toEqual({ b: 3 });
    store.close();
  });

  it('rolls back the whole evaluation when a write fails', () => {
    const store = Store.open(join(dir, 's.db'));
    store.commitEvaluation('r', { a: 1 }, [], 1);
    const bad = { ...alert, summary: null as unknown as string };
    expect(() => store.commitEvaluation('r', { a: 2 }, [bad], 2)).toThrow();
    expect(store.loadStates('r')).toEqual({ a: 1 });
    expect(store.pendingCount()).toBe(0);
    store.close();
  });

  it('hands out due rows per receiver and records the outcome', () => {
    const store = Store.open(join(dir, 's.db'));
    store.commitEvaluation('r', {}, [alert], 1_000);
    const [row] = store.claimDue('slack-a', 1_000, 10, 60_000);
    expect(row?.message).toMatchObject({ rule: 'r', summary: 'changed', labels: { node: 'NodeID-1' }, at: new Date(1_000).toISOString() });
    store.markRetry(row!.id, 5_000, 'HTTP 503', 1_001);
    expect(store.claimDue('slack-a', 4_999, 10, 60_000)).toEqual([]);
    expect(store.nextDue('slack-a')).toBe(5_000);
    store.markSent(row!.id, 5_001);
    const [other] = store.claimDue('slack-b', 1_000, 10, 60_000);
    store.markDead(other!.id, 'HTTP 410', 1_002);
    expect(store.outbox().map((r) => [r.receiver, r.state, r.attempts, r.lastError])).toEqual([
      ['slack-b', 'dead', 1, 'HTTP 410'],
      ['slack-a', 'sent', 2, 'HTTP 503'],
    ]);
    store.close();
  });

  it('keeps a state alert\'s condition key with its outbox rows (an event has none)', () => {
    const store = Store.open(join(dir, 'key.db'));
    store.commitEvaluation('r', {}, [{ ...alert, status: 'firing', conditionKey: 'NodeID-1:uptime' }, alert], 1_000);
    const rows = store.claimDue('slack-a', 1_000, 10, 60_000);
    expect(rows.map((r) => r.message.conditionKey)).toEqual(['NodeID-1:uptime', undefined]);
    expect('conditionKey' in rows[1]!.message).toBe(false);
    store.close();
  });

  it('lets one sender hold a row: a second process cannot claim it until the lease ends or it is released', () => {
    const path = join(dir, 'lease.db');
    const daemon = Store.open(path);
    const other = Store.open(path);
    daemon.commitEvaluation('r', {}, [{ ...alert, targets: [{ receiver: 'slack-a', groupKey: 'g', groupWaitMs: 0, groupIntervalMs: 0 }] }], 1_000);
    const [row] = daemon.claimDue('slack-a', 1_000, 10, 60_000);
    expect(row).toBeDefined();
    expect(other.claimDue('slack-a', 2_000, 10, 60_000)).toEqual([]);
    expect(other.claimDue('slack-a', 61_001, 10, 60_000).map((r) => r.id)).toEqual([row!.id]); // the holder crashed
    other.release(row!.id);
    expect(daemon.claimDue('slack-a', 61_002, 10, 60_000).map((r) => r.id)).toEqual([row!.id]);
    daemon.close();
    other.close();
  });

  it('refuses a commit made from states another process has replaced since, writing nothing of it', () => {
    const path = join(dir, 'revision.db');
    const daemon = Store.open(path);
    const once = Store.open(path);
    daemon.commitEvaluation('r', { a: 1 }, [], 1_000);
    const read = daemon.stateRows('r');
    expect(read.revision).toBe(1);
    once.commitEvaluation('r', { a: 2 }, [alert], 2_000, undefined, once.stateRows('r').revision); // once --send got there first
    expect(() => daemon.commitEvaluation('r', { a: 2 }, [alert], 3_000, undefined, read.revision)).toThrow(StateConflictError);
    expect(daemon.outbox('pending')).toHaveLength(2); // the first commit's two targets only
    expect(daemon.stateRows('r')).toEqual({ rows: [{ entity: 'a', state: '2' }], revision: 2 });
    daemon.close();
    once.close();
  });

  it('writes only what changed, unless another process wrote since: then the whole set as it stands', () => {
    const path = join(dir, 'diff.db');
    const daemon = Store.open(path);
    const other = Store.open(path);
    daemon.commitEvaluation('r', { a: 1, b: 2 }, [], 1_000);
    const version = daemon.dataVersion();
    daemon.commitEvaluation('r', new StateDiff([['b', '3']], ['a'], { version, all: new Map([['b', '3']]) }), [], 2_000);
    expect(daemon.loadStates('r')).toEqual({ b: 3 });
    other.commitEvaluation('r', { b: 3, x: 9 }, [], 3_000); // `once` beside the daemon
    expect(daemon.dataVersion()).not.toBe(version);
    daemon.commitEvaluation('r', new StateDiff([], [], { version, all: new Map([['b', '4']]) }), [], 4_000);
    expect(daemon.loadStates('r')).toEqual({ b: 4 });
    daemon.close();
    other.close();
  });

  it('holds a claimed batch of groups for as long as sending them one by one may take', () => {
    const path = join(dir, 'batch.db');
    const daemon = Store.open(path);
    const other = Store.open(path);
    const to = (groupKey: string) => [{ receiver: 'slack-a', groupKey, groupWaitMs: 0, groupIntervalMs: 0, repeatMs: 0, muteTimeIntervals: [] }];
    daemon.commitEvaluation('r', {}, ['g1', 'g2', 'g3'].map((g) => ({ ...alert, subject: g, targets: to(g) })), 1_000);
    const rows = daemon.claimDue('slack-a', 1_000, 10, 15_000);
    expect(rows).toHaveLength(3);
    daemon.extendLease(rows.map((r) => r.id), 1_000 + 3 * 15_000);
    expect(other.claimDue('slack-a', 20_000, 10, 15_000)).toEqual([]); // past the first lease, the third group is still ours
    expect(other.claimDue('slack-a', 46_001, 10, 15_000)).toHaveLength(3);
    daemon.close();
    other.close();
  });

  it('refuses a state file written by a newer avawatch instead of resetting it', () => {
    const path = join(dir, 'future.db');
    const db = new Database(path);
    db.pragma('user_version = 99');
    db.close();
    expect(() => Store.open(path)).toThrow(`state file schema version 99 is newer than this avawatch knows (${MIGRATIONS.length})`);
  });

  it('refuses a corrupt state file loudly', () => {
    const path = join(dir, 'corrupt.db');
    writeFileSync(path, 'this is not a database, just text that is long enough '.repeat(100));
    expect(() => Store.open(path)).toThrow(/cannot open state file .*corrupt\.db: file is not a database/);
  });
});
