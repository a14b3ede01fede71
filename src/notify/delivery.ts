import type { Logger } from '../log.js';
import type { Metrics } from '../metrics/registry.js';
import type { OutboxRow, Store } from '../store/index.js';
import { formatDuration } from '../config/duration.js';
import { DeliveryError, type Notifier } from './types.js';

export interface DeliveryOptions {
  backoffMs: number;
  backoffMaxMs: number;
  maxAgeMs: number;
}

export interface DeliveryDeps {
  store: Store;
  notifiers: readonly Notifier[];
  metrics: Metrics;
  log: Logger;
  options: DeliveryOptions;
  now?: () => number;
  random?: () => number;
}

const BATCH = 20;
const IDLE_MS = 30_000;
/** How long a claimed row is held; longer than any channel's own timeout. */
const LEASE_MS = 60_000;

/**
 * The one place that retries. Each receiver has its own worker, so a slow or dead receiver
 * never delays another. A row is marked sent only after its channel accepted it:
 * at-least-once, at most one duplicate per crash.
 */
export class Delivery {
  readonly #deps: Required<DeliveryDeps>;
  readonly #wakers = new Map<string, () => void>();
  /** A receiver that failed retryably is left alone until then (Retry-After or backoff). */
  readonly #pausedUntil = new Map<string, number>();
  readonly #abort = new AbortController();
  #workers: Promise<void>[] = [];
  #stopped = false;

  constructor(deps: DeliveryDeps) {
    this.#deps = { now: Date.now, random: Math.random, ...deps };
  }

  start(): void {
    this.#workers = this.#deps.notifiers.map((n) => this.#worker(n));
  }

  /** New rows were committed: look now instead of at the next timer. */
  kick(): void {
    for (const wake of this.#wakers.values()) wake();
  }

  /** Stops the workers; an attempt still running after graceMs is aborted (and retried next start). */
  async stop(graceMs = 5_000): Promise<void> {
    this.#stopped = true;
    this.kick();
    const timer = setTimeout(() => this.#abort.abort(), graceMs);
    await Promise.allSettled(this.#workers);
    clearTimeout(timer);
  }

  /** Sends what is due now, once per row, for `avawatch once --send`. Returns rows still pending. */
  async drain(deadlineMs: number): Promise<number> {
    const end = this.#deps.now() + deadlineMs;
    await Promise.all(
      this.#deps.notifiers.map(async (n) => {
        for (;;) {
          if (this.#deps.now() > end || this.#paused(n.name) > 0) return;
          const rows = this.#deps.store.claimDue(n.name, this.#deps.now(), BATCH, LEASE_MS);
          if (rows.length === 0) return;
          for (const [i, row] of rows.entries()) {
            if (this.#deps.now() > end || this.#paused(n.name) > 0) {
              for (const left of rows.slice(i)) this.#deps.store.release(left.id);
              return;
            }
            await this.#deliver(n, row);
            await pause(n.minIntervalMs, this.#abort.signal);
          }
        }
      }),
    );
    return this.#deps.store.pendingCount();
  }

  async #worker(notifier: Notifier): Promise<void> {
    const { store, log } = this.#deps;
    while (!this.#stopped) {
      try {
        const paused = this.#paused(notifier.name);
        if (paused > 0) {
          await this.#idle(notifier.name, paused);
          continue;
        }
        const rows = store.claimDue(notifier.name, this.#deps.now(), BATCH, LEASE_MS);
        if (rows.length === 0) {
          const next = store.nextDue(notifier.name);
          await this.#idle(notifier.name, next === undefined ? IDLE_MS : Math.min(IDLE_MS, next - this.#deps.now()));
          continue;
        }
        for (const [i, row] of rows.entries()) {
          // Stopping, or the receiver just failed: hand the rest of the batch back.
          if (this.#stopped || this.#paused(notifier.name) > 0) {
            for (const left of rows.slice(i)) store.release(left.id);
            break;
          }
          await this.#deliver(notifier, row);
          await pause(notifier.minIntervalMs, this.#abort.signal);
        }
      } catch (err) {
        log.error({ receiver: notifier.name, err: String(err) }, 'delivery loop error; retrying in 1s');
        await this.#idle(notifier.name, 1_000);
      }
    }
  }

  async #deliver(notifier: Notifier, row: OutboxRow): Promise<void> {
    const { store, metrics, log, options } = this.#deps;
    const receiver = notifier.name;
    const ctx = { receiver, outboxId: row.id, alertId: row.message.alertId, rule: row.message.rule };
    try {
      await notifier.send(row.message, this.#abort.signal);
      store.markSent(row.id, this.#deps.now());
      metrics.notifications.inc({ receiver });
      log.info({ ...ctx, attempts: row.attempts + 1 }, 'notification delivered');
      return;
    } catch (err) {
      if (this.#abort.signal.aborted) {
        store.release(row.id); // shutdown: the row stays pending for the next start
        return;
      }
      const error = err instanceof DeliveryError ? err : new DeliveryError(`${receiver}: ${String(err)}`, 'error', true);
      metrics.notificationsFailed.inc({ receiver, reason: error.reason });
      const now = this.#deps.now();
      if (!error.retryable) {
        store.markDead(row.id, error.message, now);
        log.error({ ...ctx, reason: error.reason, error: error.message }, 'notification failed permanently; dead-lettered');
        return;
      }
      const ceiling = Math.min(options.backoffMaxMs, options.backoffMs * 2 ** row.attempts);
      const wait = Math.max(this.#deps.random() * ceiling, error.retryAfterMs ?? 0);
      if (now + wait - row.createdAt > options.maxAgeMs) {
        const message = `undelivered after ${formatDuration(options.maxAgeMs)}; last error: ${error.message}`;
        store.markDead(row.id, message, now);
        metrics.notificationsFailed.inc({ receiver, reason: 'expired' });
        log.error({ ...ctx, reason: 'expired', error: error.message }, 'notification expired; dead-lettered');
        return;
      }
      store.markRetry(row.id, now + wait, error.message, now);
      this.#pausedUntil.set(receiver, now + wait);
      log.warn({ ...ctx, reason: error.reason, error: error.message, retryInMs: Math.round(wait) }, 'notification failed; will retry');
    }
  }

  /** Milliseconds the receiver is still paused for after a retryable failure. */
  #paused(receiver: string): number {
    return Math.max(0, (this.#pausedUntil.get(receiver) ?? 0) - this.#deps.now());
  }

  #idle(receiver: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, Math.max(0, ms));
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#wakers.set(receiver, done);
    });
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
