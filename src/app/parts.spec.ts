import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clockAt } from '../base/clock.js';
import { createLogger } from '../base/log.js';
import { createMetrics } from '../metrics/registry.js';
import { SqliteStore, type SharedShards, type StateStore } from '../store/index.js';
import { reanchor } from './parts.js';

const dir = mkdtempSync(join(tmpdir(), 'avawatch-parts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOUR = 3_600_000;
const metrics = createMetrics({ version: 't', outboxPending: () => 0, firing: () => [], ruleSamples: () => [], ruleGauges: [] });
const log = createLogger('fatal', false).log;

/** A store holding an alert stamped an hour ahead of the clock, as a previous run (or another host) left it. */
async function aheadBy(name: string): Promise<SqliteStore> {
  const store = SqliteStore.open(join(dir, name));
  await store.commitEvaluation('r', {}, [{ rule: 'r', kind: 'k', status: 'event', severity: 'info', subject: 'N', summary: 's', labels: {}, details: {}, targets: [] }], 2 * HOUR);
  return store;
}
const stampedAt = async (store: StateStore) => (await store.timeline({ since: 0 }))[0]?.at;

describe('reanchor at start', () => {
  it("one daemon's store: times left ahead of the clock (its wall stepped back while it was down) are shifted back", async () => {
    const store = await aheadBy('one.db');
    await reanchor({ store, metrics, log, clock: clockAt(() => HOUR) });
    expect(await stampedAt(store)).toBe(HOUR);
    await store.close();
  });

  it("a store several daemons share: times ahead are another host's, left as they are", async () => {
    const file = await aheadBy('shared.db');
    // The file, shared: its shards present (not called here), its reanchor the file's own.
    const store = { shards: {} as SharedShards, reanchor: (now: number, tolerance: number) => file.reanchor(now, tolerance) } as unknown as StateStore;
    await reanchor({ store, metrics, log, clock: clockAt(() => HOUR) });
    expect(await stampedAt(file)).toBe(2 * HOUR);
    await file.close();
  });
});
