import { clockAt } from '../base/clock.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../base/log.js';
import { Store } from '../store/index.js';
import { PRUNE_EVERY_MS, startPruning } from './prune.js';

const dir = mkdtempSync(join(tmpdir(), 'avawatch-prune-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.useRealTimers();
});

const DAY = 86_400_000;

describe('startPruning', () => {
  it('prunes what is older than history.keep at start, then every hour on the app clock', async () => {
    vi.useFakeTimers();
    const store = Store.open(join(dir, 'prune.db'));
    let now = 40 * DAY;
    const uptime = (day: number) => ({ series: 'uptime_percent', entity: 'NodeID-A', at: day * DAY, value: day });
    store.addSamples([uptime(5), uptime(10), uptime(10.05), uptime(39)]);
    store.commitEvaluation('status', {}, [{ rule: 'status', kind: 'validator-status', status: 'event', severity: 'info', subject: 'NodeID-A', summary: 'ended', labels: {}, details: {}, targets: [] }], 9 * DAY);
    const stop = startPruning({ store, keepMs: () => 30 * DAY, clock: clockAt(() => now), log: createLogger('fatal', false).log });
    await vi.advanceTimersByTimeAsync(0);
    expect(store.samples('uptime_percent', 'NodeID-A', 0).map((s) => s.value)).toEqual([10, 10.05, 39]);
    expect(store.timeline({ since: 0 })).toEqual([]);

    now += PRUNE_EVERY_MS;
    await vi.advanceTimersByTimeAsync(PRUNE_EVERY_MS - 1);
    expect(store.samples('uptime_percent', 'NodeID-A', 0)).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.samples('uptime_percent', 'NodeID-A', 0).map((s) => s.value)).toEqual([10.05, 39]);

    stop();
    now += 10 * DAY;
    await vi.advanceTimersByTimeAsync(2 * PRUNE_EVERY_MS);
    expect(store.samples('uptime_percent', 'NodeID-A', 0)).toHaveLength(2);
    store.close();
  });
});
