import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { clockAt } from '../base/clock.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../base/log.js';
import { SqliteStore, type StateStore } from '../store/index.js';
import { MIGRATIONS } from '../store/migrations.js';
import { PRUNE_EVERY_MS, pruneOnce, startPruning, VACUUM_STEP_PAGES } from './prune.js';

const dir = mkdtempSync(join(tmpdir(), 'avawatch-prune-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.useRealTimers();
});

const DAY = 86_400_000;

describe('startPruning', () => {
  it('prunes what is older than history.keep at start, then every hour on the app clock', async () => {
    vi.useFakeTimers();
    const store = SqliteStore.open(join(dir, 'prune.db'));
    let now = 40 * DAY;
    const uptime = (day: number) => ({ series: 'uptime_percent', entity: 'NodeID-A', at: day * DAY, value: day });
    await store.addSamples([uptime(5), uptime(10), uptime(10.05), uptime(39)]);
    await store.commitEvaluation('status', {}, [{ rule: 'status', kind: 'validator-status', status: 'event', severity: 'info', subject: 'NodeID-A', summary: 'ended', labels: {}, details: {}, targets: [] }], 9 * DAY);
    const stop = startPruning({ store, keepMs: () => 30 * DAY, clock: clockAt(() => now), log: createLogger('fatal', false).log });
    await vi.advanceTimersByTimeAsync(0);
    expect((await store.samples('uptime_percent', 'NodeID-A', 0)).map((s) => s.value)).toEqual([10, 10.05, 39]);
    expect(await store.timeline({ since: 0 })).toEqual([]);

    now += PRUNE_EVERY_MS;
    await vi.advanceTimersByTimeAsync(PRUNE_EVERY_MS - 1);
    expect(await store.samples('uptime_percent', 'NodeID-A', 0)).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    expect((await store.samples('uptime_percent', 'NodeID-A', 0)).map((s) => s.value)).toEqual([10.05, 39]);

    stop();
    now += 10 * DAY;
    await vi.advanceTimersByTimeAsync(2 * PRUNE_EVERY_MS);
    expect(await store.samples('uptime_percent', 'NodeID-A', 0)).toHaveLength(2);
    await store.close();
  });
});

describe('the state file shrinks after a large prune', () => {
  const pragma = (path: string, name: string) => {
    const db = new Database(path, { readonly: true });
    try {
      return db.pragma(name, { simple: true });
    } finally {
      db.close();
    }
  };
  /** A file holding 40,000 samples, all older than history.keep. */
  async function fill(store: StateStore): Promise<void> {
    const rows = Array.from({ length: 40_000 }, (_, i) => ({ series: 'uptime_percent', entity: `NodeID-${i % 100}`, at: DAY + i * 1000, value: 99 }));
    for (let i = 0; i < rows.length; i += 5_000) await store.addSamples(rows.slice(i, i + 5_000));
  }
  const prune = (store: StateStore) => pruneOnce({ store, keepMs: () => DAY, clock: clockAt(() => 40 * DAY), log: createLogger('fatal', false).log });

  it('a new file: pruning gives the pages back, in steps, and the file is smaller once closed', async () => {
    const path = join(dir, 'new.db');
    const store = SqliteStore.open(path);
    expect(pragma(path, 'auto_vacuum')).toBe(2); // INCREMENTAL
    await fill(store);
    await store.close();
    const full = statSync(path).size;
    const again = SqliteStore.open(path);
    const steps = vi.spyOn(again.fileSpace, 'vacuumStep');
    expect(await prune(again)).toEqual({ samples: 40_000, alerts: 0 });
    expect(await again.fileSpace.freePages()).toBe(0);
    expect(steps.mock.calls.length).toBeGreaterThan(1);
    for (const [pages] of steps.mock.calls) expect(pages).toBe(VACUUM_STEP_PAGES);
    await again.close();
    expect(statSync(path).size).toBeLessThan(full / 4);
  });

  it('a file an older avawatch made (auto_vacuum off) is rebuilt once at open, then shrinks the same way', async () => {
    const path = join(dir, 'old.db');
    const old = new Database(path);
    for (const [v, sql] of MIGRATIONS.entries()) {
      old.exec(sql);
      old.pragma(`user_version = ${v + 1}`);
    }
    old.close();
    expect(pragma(path, 'auto_vacuum')).toBe(0);
    const store = SqliteStore.open(path);
    expect(pragma(path, 'auto_vacuum')).toBe(2);
    await fill(store);
    await store.close();
    const full = statSync(path).size;
    const again = SqliteStore.open(path);
    await prune(again);
    await again.close();
    expect(statSync(path).size).toBeLessThan(full / 4);
  });
});
