import { mute } from '../alerts/pipeline/mute.js';
import { systemClock, type Clock } from '../base/clock.js';
import type { Logger } from '../base/log.js';
import type { Metrics } from '../metrics/registry.js';
import { DIGEST_GROUP, type OutboxRow, type StateStore } from '../store/index.js';
import { formatElapsed } from '../base/duration.js';
import { retryWait, type RetryPolicy } from './backoff.js';
import { ReceiverHealth, type ReceiverHealthOptions } from './health.js';
import { digestMessage, type DigestConfig } from '../channels/digest.js';
import { DeliveryError, type AlertMessage, type Notifier } from '../channels/types.js';

export interface DeliveryOptions extends RetryPolicy, ReceiverHealthOptions {
  /** A row older than this (counted from its creation, or its digest slot) is dead-lettered. */
  maxAgeMs: number;
}

export interface DeliveryDeps {
  store: StateStore;
  notifiers: readonly Notifier[];
  metrics: Metrics;
  log: Logger;
  options: DeliveryOptions;
  /**
   * The engine's clock. Rows are stamped, aged (maxAge), retried and paused on its steady
   * reading: a step of the wall neither dead-letters a fresh row nor holds a due one. The
   * workers wait on its timers (stop's grace aside).
   */
  clock: Clock;
  random?: () => number;
  /**
   * Removes secrets (and any part of one) from an error before it is stored in the outbox
   * or logged: a backstop to channels never putting an answer's body in their errors.
   */
  redact?: (text: string) => string;
  /** A receiver's digest settings (named in its digest message). */
  digestOf?: (receiver: string) => DigestConfig | undefined;
  /** Why a firing row is held back now (its incident fires to this receiver): muted when claimed, owed once the incident ends. */
  held?: (row: OutboxRow) => string | undefined;
  /** Shared state out of reach for a lease (app/shards.ts): this instance sends nothing; the others do. */
  standby?: () => boolean;
}

/** How often a receiver's worker looks again while the instance stands by. */
const STANDBY_LOOK_MS = 1_000;

/** Rows claimed at once: a storm up to this size goes out as one message per group. */
const BATCH = 500;
const IDLE_MS = 30_000;
/** A claimed row is held this much longer than its channel's longest attempt. */
const LEASE_MARGIN_MS = 5_000;

/** Failure reasons every channel can report (HTTP and SMTP codes appear when first seen). */
export const COMMON_REASONS = ['timeout', 'network', 'expired'] as const;
/** A row given up after its second attempt sent without an answer (not for idempotent channels). */
export const UNCONFIRMED = 'unconfirmed';

/**
 * The one place that retries. Each receiver has its own worker, so a slow or dead receiver
 * never delays another. A row is marked sent only after its channel accepted it:
 * at-least-once, with at most one duplicate per crash and one per attempt that was sent
 * but got no answer (then the row is sent once more, never a third time).
 */
export class Delivery {
  readonly #deps: Required<DeliveryDeps>;
  readonly #wakers = new Map<string, () => void>();
  /** A receiver that failed retryably is left alone until then (Retry-After or backoff). */
  readonly #pausedUntil = new Map<string, number>();
  /**
   * When each (receiver, group) may get its next message: its last delivery + groupInterval.
   * An urgent row (a critical, a group's first news) is claimed anyway (store/outbox.ts).
   */
  readonly #readyAt = new Map<string, number>();
  readonly #abort = new AbortController();
  #workers: Promise<void>[] = [];
  #stopped = false;
  readonly #health: ReceiverHealth;
  #restored: Promise<void> | undefined;

  constructor(deps: DeliveryDeps) {
    this.#deps = { random: Math.random, redact: (text) => text, digestOf: () => undefined, held: () => undefined, standby: () => false, ...deps };
    this.#health = new ReceiverHealth(deps.options);
    // Every series exists at 0 from the start, so increase() sees the first one.
    for (const { name: receiver, idempotent } of deps.notifiers) {
      deps.metrics.notifications.inc({ receiver }, 0);
      for (const reason of [...COMMON_REASONS, ...(idempotent ? [] : [UNCONFIRMED])]) deps.metrics.notificationsFailed.inc({ receiver, reason }, 0);
    }
  }

  /** Reads the dead letters of before (its health at start), then starts a worker per receiver. */
  async start(): Promise<void> {
    await this.restore();
    this.#workers = this.#deps.notifiers.map((n) => this.#worker(n));
  }

  /** The receivers' dead letters still in the store (deadLetterHold): read once (start and drain do), under what `inherit` brought. */
  restore(): Promise<void> {
    const { store, clock, options } = this.#deps;
    this.#restored ??= store.deadLetters(clock.mono() - options.deadLetterHoldMs).then((dead) => this.#health.restore(dead));
    return this.#restored;
  }

  /** After a reload: a receiver's Retry-After pause and each group's groupInterval still hold. */
  inherit(from: Delivery): void {
    for (const [k, v] of from.#pausedUntil) this.#pausedUntil.set(k, v);
    for (const [k, v] of from.#readyAt) this.#readyAt.set(k, v);
    this.#health.inherit(from.#health);
  }

  /**
   * Each receiver whose notifications do not get through now: one dead-lettered since its last
   * delivery (for deadLetterHold at most), or every attempt failing for failingAfter.
   */
  problems(): string[] {
    return this.#health.problems(this.receivers(), this.#deps.clock.mono());
  }

  /** The receivers this delivery sends to (the enabled ones of the config in force). */
  receivers(): string[] {
    return this.#deps.notifiers.map((n) => n.name);
  }

  /** New rows were committed: look now instead of at the next timer. */
  kick(): void {
    for (const wake of this.#wakers.values()) wake();
  }

  /** Stops the workers; an attempt still running after graceMs is aborted (and retried next start). */
  async stop(graceMs = 5_000): Promise<void> {
    this.#stopped = true;
    this.kick();
    // Sends in flight are exchanges with other systems: their grace is the host's time.
    const cancel = systemClock.setTimer(() => this.#abort.abort(), graceMs);
    await Promise.allSettled(this.#workers);
    cancel();
  }

  /** Sends what is due now, for `avawatch once --send`. Returns rows still pending. */
  async drain(deadlineMs: number): Promise<number> {
    await this.restore();
    const end = this.#deps.clock.mono() + deadlineMs;
    await Promise.all(
      this.#deps.notifiers.map(async (n) => {
        while (this.#deps.clock.mono() <= end && this.#paused(n.name) === 0) {
          const { sent } = await this.#round(n, () => this.#deps.clock.mono() > end);
          if (sent === 0) return;
        }
      }),
    );
    return await this.#deps.store.pendingCount();
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
        const { claimed, throttled, wakeAt } = await this.#round(notifier, () => this.#stopped);
        if (claimed === 0) {
          const due = await store.nextDue(notifier.name, throttled);
          // Nothing waits any more (a throttled group still does): its failing attempts are over.
          if (due === undefined && (throttled.length === 0 || (await store.nextDue(notifier.name)) === undefined)) this.#health.idle(notifier.name);
          const next = Math.min(due ?? Infinity, wakeAt ?? Infinity, this.#deps.clock.mono() + IDLE_MS);
          await this.#idle(notifier.name, next - this.#deps.clock.mono());
        }
      } catch (err) {
        log.error({ receiver: notifier.name, err: String(err) }, 'delivery loop error; retrying in 1s');
        await this.#idle(notifier.name, 1_000);
      }
    }
  }

  /**
   * Claims the due rows of a receiver and sends one message per group. Groups still inside
   * their groupInterval, and whatever is left when `stop()` says so or the receiver fails,
   * are handed back.
   */
  async #round(notifier: Notifier, stop: () => boolean): Promise<{ claimed: number; sent: number; throttled: string[]; wakeAt?: number }> {
    const { store } = this.#deps;
    // Groups still inside their groupInterval are not claimed (unless an urgent row is due), so they never block the others.
    let wakeAt: number | undefined;
    const throttled: string[] = [];
    for (const [key, ready] of this.#readyAt) {
      const [receiver, group] = key.split('\u0000') as [string, string];
      if (receiver !== notifier.name) continue;
      if (ready <= this.#deps.clock.mono()) this.#readyAt.delete(key);
      else {
        throttled.push(group);
        wakeAt = Math.min(wakeAt ?? ready, ready);
      }
    }
    const claimedAt = this.#deps.clock.mono();
    const rows = await store.claimDue(notifier.name, claimedAt, BATCH, notifier.timeoutMs + LEASE_MARGIN_MS, throttled);
    let leaseEnds = claimedAt + notifier.timeoutMs + LEASE_MARGIN_MS;
    const groups = groupRows(rows);
    // Groups go out one after another: the lease covers the last one too, so another
    // process (`once --send` beside the daemon) never takes a row still on its way.
    if (groups.length > 1) {
      const each = notifier.timeoutMs + notifier.minIntervalMs;
      const asked = this.#deps.clock.mono();
      await store.extendLease(rows.map((r) => r.id), asked + groups.length * each + LEASE_MARGIN_MS);
      leaseEnds = asked + groups.length * each + LEASE_MARGIN_MS;
    }
    let sent = 0;
    for (const group of groups) {
      // The claim ran out while this process was paused (SIGSTOP, a frozen VM): the rows may be
      // another's now, sending them too would be a second copy. Left as they are.
      if (this.#deps.clock.mono() + notifier.timeoutMs > leaseEnds) continue;
      if (stop() || this.#paused(notifier.name) > 0) {
        for (const row of group) await store.release(row.id);
        continue;
      }
      await this.#deliver(notifier, group);
      sent++;
      await this.#deps.clock.pause(notifier.minIntervalMs, this.#abort.signal);
    }
    return { claimed: rows.length, sent, throttled, ...(wakeAt === undefined ? {} : { wakeAt }) };
  }

  async #deliver(notifier: Notifier, group: OutboxRow[]): Promise<void> {
    const { store, metrics, log, options } = this.#deps;
    const receiver = notifier.name;
    const now = this.#deps.clock.mono();
    // Rows past maxAge are dead letters, whatever happens to the rest of the group.
    const expired: OutboxRow[] = [];
    let live = group.filter((row) => {
      if (now - bornAt(row) <= options.maxAgeMs) return true;
      expired.push(row);
      return false;
    });
    for (const row of expired) await this.#expire(row, row.lastError, now);
    const digest = group[0]?.groupKey === DIGEST_GROUP && group[0].digestAt !== undefined;
    // Every row may have waited (a group, a retry, a digest's hours): a silence added meanwhile still mutes it.
    live = await this.#unsilenced(live, now);
    if (live.length === 0) return;
    const ctx = { receiver, alerts: live.length, outboxIds: live.map((r) => r.id).slice(0, 20), rules: [...new Set(live.map((r) => r.message.rule))] };
    try {
      const messages = live.map((r) => r.message);
      await attempt(notifier, digest ? [digestMessage(receiver, messages, this.#deps.digestOf(receiver))] : messages, this.#abort.signal);
      const done = this.#deps.clock.mono();
      if (live[0]!.groupIntervalMs > 0) this.#readyAt.set(`${receiver}\u0000${live[0]!.groupKey}`, done + live[0]!.groupIntervalMs);
      for (const row of live) await store.markSent(row.id, done);
      this.#health.delivered(receiver);
      metrics.notifications.inc({ receiver }, live.length);
      log.info(ctx, live.length === 1 ? 'notification delivered' : 'notification group delivered');
      return;
    } catch (err) {
      if (this.#abort.signal.aborted) {
        for (const row of live) await store.release(row.id); // shutdown: the rows stay pending for the next start
        return;
      }
      const failure = err instanceof DeliveryError ? err : new DeliveryError(`${receiver}: ${String(err)}`, 'error', true);
      const error = new DeliveryError(this.#deps.redact(failure.message), failure.reason, failure.retryable, failure.retryAfterMs, failure.maybeDelivered);
      metrics.notificationsFailed.inc({ receiver, reason: error.reason });
      const at = this.#deps.clock.mono();
      if (!error.retryable) {
        for (const row of live) await store.markDead(row.id, error.message, at);
        this.#health.deadLettered(receiver, live.length, error.message, at);
        log.error({ ...ctx, reason: error.reason, error: error.message }, 'notification failed permanently; dead-lettered');
        return;
      }
      const attempts = Math.max(...live.map((r) => r.attempts));
      const { waitMs: wait, note } = retryWait(options, attempts, error.retryAfterMs, this.#deps.random(), notifier.type);
      const message = error.message + note;
      // Sent, but no answer: the receiver may have it. One more copy, never a third.
      const unknown = error.maybeDelivered && notifier.idempotent !== true;
      // Dead for age only when a row really is older than maxAge; a wait that will take it
      // past maxAge is no reason (its next claim expires it, with its real age).
      for (const row of live) {
        if (unknown && row.unknownOutcomes >= 1) await this.#unconfirmed(row, message, at);
        else if (at - bornAt(row) > options.maxAgeMs) await this.#expire(row, message, at);
        else await store.markRetry(row.id, at + wait, message, at, unknown);
      }
      this.#pausedUntil.set(receiver, at + wait);
      this.#health.failed(receiver, message, at);
      log.warn({ ...ctx, reason: error.reason, error: message, retryInMs: Math.round(wait) }, 'notification failed; will retry');
    }
  }

  async #unsilenced(rows: OutboxRow[], now: number): Promise<OutboxRow[]> {
    // A silence's times are a person's: the wall clock's.
    const wall = this.#deps.clock.now();
    const silences = await this.#deps.store.silences(wall);
    const out: OutboxRow[] = [];
    for (const row of rows) {
      // Stryker disable next-line ArrayDeclaration: no time interval applies here (a route's mute intervals were judged at the commit)
      const reason = mute(row.message.labels, [], silences, [], new Date(wall)) ?? (row.message.status === 'firing' ? this.#deps.held(row) : undefined);
      if (reason) await this.#deps.store.muteWaiting(row, reason, now);
      else out.push(row);
    }
    return out;
  }

  /** Sent twice, answered neither time: it may have been delivered, and a third copy is not sent. */
  async #unconfirmed(row: OutboxRow, lastError: string, now: number): Promise<void> {
    const { store, metrics, log } = this.#deps;
    const why = `unconfirmed: sent twice without an answer, so it may have been delivered; not sent a third time; last error: ${lastError}`;
    await store.markDead(row.id, why, now);
    this.#health.deadLettered(row.receiver, 1, why, now);
    metrics.notificationsFailed.inc({ receiver: row.receiver, reason: UNCONFIRMED });
    log.error({ receiver: row.receiver, outboxId: row.id, rule: row.message.rule, reason: UNCONFIRMED, error: lastError }, 'notification sent twice without an answer; not sent again');
  }

  /** Dead for age: the text says how old the row really is, and why it never got through. */
  async #expire(row: OutboxRow, lastError: string | undefined, now: number): Promise<void> {
    const { store, metrics, log } = this.#deps;
    const why = lastError === undefined ? 'no attempt was made' : `last error: ${lastError}`;
    const text = `undelivered after ${formatElapsed(now - bornAt(row))}; ${why}`;
    await store.markDead(row.id, text, now);
    this.#health.deadLettered(row.receiver, 1, text, now);
    metrics.notificationsFailed.inc({ receiver: row.receiver, reason: 'expired' });
    log.error({ receiver: row.receiver, outboxId: row.id, rule: row.message.rule, reason: 'expired', error: lastError }, 'notification expired; dead-lettered');
  }

  /** Milliseconds the receiver is still paused for after a retryable failure. */
  #paused(receiver: string): number {
    if (this.#deps.standby()) return STANDBY_LOOK_MS;
    return Math.max(0, (this.#pausedUntil.get(receiver) ?? 0) - this.#deps.clock.mono());
  }

  #idle(receiver: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const cancel = this.#deps.clock.setTimer(done, ms);
      function done(): void {
        cancel();
        resolve();
      }
      this.#wakers.set(receiver, done);
    });
  }
}

/** Where a row's age counts from: a digest row was due only at its slot. */
function bornAt(row: OutboxRow): number {
  return Math.max(row.createdAt, row.digestAt ?? 0);
}

/** Rows by group key, in the order of their first row. */
function groupRows(rows: readonly OutboxRow[]): OutboxRow[][] {
  const groups = new Map<string, OutboxRow[]>();
  for (const row of rows) {
    const list = groups.get(row.groupKey) ?? [];
    list.push(row);
    groups.set(row.groupKey, list);
  }
  return [...groups.values()];
}

/**
 * One attempt at one message, the only call of a channel's send: delivery's, and `avawatch
 * notify-test`'s (which reports the outcome instead of retrying).
 */
export async function attempt(notifier: Notifier, messages: readonly AlertMessage[], signal: AbortSignal): Promise<void> {
  await notifier.send(messages, signal);
}
