import type { Clock } from '../base/clock.js';
import type { Logger } from '../base/log.js';
import type { Cancel } from '../base/timers.js';
import type { StateStore } from '../store/index.js';

export const PRUNE_EVERY_MS = 3_600_000;
/** Rows of each table deleted in one transaction: the main thread is never held long. */
export const PRUNE_BATCH = 5_000;
/** Free pages (4 KiB each) a prune may leave for SQLite to reuse; past this the file is shrunk. */
export const VACUUM_ABOVE_PAGES = 256;
/** Pages given back in one step: a short write, then a turn of the event loop. */
export const VACUUM_STEP_PAGES = 512;

export interface PruneOptions {
  store: Pick<StateStore, 'pruneHistory' | 'fileSpace'>;
  /** history.keep, read at each run (a reload may change it). */
  keepMs: () => number;
  /** The App's clock. */
  clock: Clock;
  log: Logger;
}

/** Prunes the history now, then every hour; returns the stop. */
export function startPruning(o: PruneOptions): () => void {
  const stop = new AbortController();
  let timer: Cancel | undefined;
  const run = async (): Promise<void> => {
    await pruneOnce(o, stop.signal);
    if (!stop.signal.aborted) timer = o.clock.setTimer(() => void run(), PRUNE_EVERY_MS);
  };
  void run();
  return () => {
    stop.abort();
    timer?.();
  };
}

/**
 * One pruning, in batches with a turn of the event loop between them; then, when it freed
 * more than a little, the file shrinks by as much, in steps (incremental vacuum): deleted rows
 * alone leave the file as large as it ever was.
 */
export async function pruneOnce(o: PruneOptions, signal?: AbortSignal): Promise<{ samples: number; alerts: number }> {
  // Samples and alerts are stamped on the steady clock: keep is an age.
  const before = o.clock.mono() - o.keepMs();
  const total = { samples: 0, alerts: 0 };
  try {
    for (;;) {
      const gone = await o.store.pruneHistory(before, PRUNE_BATCH);
      total.samples += gone.samples;
      total.alerts += gone.alerts;
      if ((gone.samples < PRUNE_BATCH && gone.alerts < PRUNE_BATCH) || signal?.aborted) break;
      await o.clock.pause(1);
    }
  } catch (err) {
    o.log.error({ error: err instanceof Error ? err.message : String(err) }, 'could not prune the history; it is tried again in an hour');
  }
  if (total.samples + total.alerts > 0) o.log.info({ ...total, before: new Date(before).toISOString() }, 'pruned the history older than history.keep');
  await shrink(o, signal);
  return total;
}

async function shrink(o: PruneOptions, signal?: AbortSignal): Promise<void> {
  // A store that reclaims its own space (a database server) has none to give back.
  const space = o.store.fileSpace;
  if (!space) return;
  try {
    let left = await space.freePages();
    if (left <= VACUUM_ABOVE_PAGES) return;
    const freed = left;
    while (left > 0 && !signal?.aborted) {
      await space.vacuumStep(VACUUM_STEP_PAGES);
      const now = await space.freePages();
      if (now >= left) break; // nothing given back (auto_vacuum off): do not spin
      left = now;
      await o.clock.pause(1);
    }
    o.log.info({ pages: freed - left }, 'gave the pruned pages of the state file back to the file system');
  } catch (err) {
    o.log.error({ error: err instanceof Error ? err.message : String(err) }, 'could not shrink the state file; it is tried again after the next pruning');
  }
}
