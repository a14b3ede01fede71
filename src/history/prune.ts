import type { Clock } from '../base/clock.js';
import type { Logger } from '../base/log.js';
import { pause, setTimer } from '../base/timers.js';

export const PRUNE_EVERY_MS = 3_600_000;
/** Rows of each table deleted in one transaction: the main thread is never held long. */
export const PRUNE_BATCH = 5_000;

export interface PruneOptions {
  store: { pruneHistory(before: number, limit?: number): { samples: number; alerts: number } };
  /** history.keep, read at each run (a reload may change it). */
  keepMs: () => number;
  /** The App's clock. */
  clock: Clock;
  log: Logger;
}

/** Prunes the history now, then every hour; returns the stop. */
export function startPruning(o: PruneOptions): () => void {
  const stop = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const run = async (): Promise<void> => {
    await pruneOnce(o, stop.signal);
    if (!stop.signal.aborted) timer = setTimer(() => void run(), PRUNE_EVERY_MS);
  };
  void run();
  return () => {
    stop.abort();
    clearTimeout(timer);
  };
}

/** One pruning, in batches with a turn of the event loop between them. */
export async function pruneOnce(o: PruneOptions, signal?: AbortSignal): Promise<{ samples: number; alerts: number }> {
  // Samples and alerts are stamped on the steady clock: keep is an age.
  const before = o.clock.mono() - o.keepMs();
  const total = { samples: 0, alerts: 0 };
  try {
    for (;;) {
      const gone = o.store.pruneHistory(before, PRUNE_BATCH);
      total.samples += gone.samples;
      total.alerts += gone.alerts;
      if ((gone.samples < PRUNE_BATCH && gone.alerts < PRUNE_BATCH) || signal?.aborted) break;
      await pause(1);
    }
  } catch (err) {
    o.log.error({ error: err instanceof Error ? err.message : String(err) }, 'could not prune the history; it is tried again in an hour');
  }
  if (total.samples + total.alerts > 0) o.log.info({ ...total, before: new Date(before).toISOString() }, 'pruned the history older than history.keep');
  return total;
}
