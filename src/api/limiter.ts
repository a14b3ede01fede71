import { systemClock, type Clock } from '../base/clock.js';
import { resetWaitMs } from '../base/retry.js';
import type { Cancel } from '../base/timers.js';
import { SEVERITIES, type Severity } from '../base/types.js';
import type { SharedAllowance } from './shared-budget.js';

export interface BudgetLimits {
  perMinute: number;
  perDay: number;
}

/** The live Data API's plans in compute units (api-notes.md). */
export const TIERS = {
  unauthenticated: { perMinute: 6_000, perDay: 1_200_000 },
  free: { perMinute: 8_000, perDay: 2_000_000 },
  base: { perMinute: 10_000, perDay: 3_750_000 },
  growth: { perMinute: 14_000, perDay: 11_200_000 },
  pro: { perMinute: 20_000, perDay: 25_000_000 },
} as const satisfies Record<string, BudgetLimits>;
export type Tier = keyof typeof TIERS;

/** The Metrics API's own budget; it takes no key. */
export const METRICS_API_BUDGET: BudgetLimits = { perMinute: 8_000, perDay: 1_200_000 };

/** Spend is spread: at most a sixth of the minute's budget in any 10 seconds. */
const WINDOW_MS = 10_000;
const WINDOWS_PER_MINUTE = 6;
const POLL_MS = 200;
/**
 * When the minute's budget runs short, lower severities wait first: a rule may spend only
 * while more than this share of the minute's budget is left.
 */
const RESERVE: Record<Severity, number> = { critical: 0, warning: 0.1, info: 0.25 };

const SEVERITIES_DOWN = [...SEVERITIES].reverse();

/** Compute units let through for one request; settle() says whether it got an answer. */
export interface Reservation {
  readonly cu: number;
  /** The second and the UTC day it was counted in. */
  readonly second: number;
  readonly day: number;
  /** Where a shared budget's units came from (its block), to give them back. */
  readonly shared?: { block: number; second: number };
}

interface Waiter {
  cu: number;
  severity: Severity;
  resolve: (r: Reservation) => void;
  reject: (err: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

export class BudgetExhaustedError extends Error {
  override readonly name = 'BudgetExhaustedError';
}

/** The service paused us (429) for longer than a poll may wait: the poll fails instead of stalling. */
export class RateLimitedError extends Error {
  override readonly name = 'RateLimitedError';
}

export interface LimiterOptions {
  limits: BudgetLimits;
  /** The longest a request waits out a 429's pause (api.maxRetryAfter); a longer pause fails it at once. */
  maxWaitMs?: number;
  /**
   * The App's clock. The limiter's time follows its steady reading, but never runs slower
   * than the host's: a clock that stands still (a rule test between steps) cannot hold a
   * request for ever, and one that jumps ahead ends a pause at once. Its wall reading only
   * reads the service's dates and its UTC day.
   */
  clock: Clock;
  /**
   * The budget shared with other instances on the same key (shared state): every request also
   * takes its units from it. Without: this limiter alone, one machine's.
   */
  shared?: SharedAllowance | undefined;
}

const MAX_PAUSE_MS = 86_400_000;
/** A 429 without a usable reset waits this long. */
const DEFAULT_PAUSE_MS = 60_000;

/** `api.budget`: a tier's limits, or the limits given. */
export function budgetLimits(budget: Tier | BudgetLimits): BudgetLimits {
  return typeof budget === 'string' ? TIERS[budget] : budget;
}

/** One second of spend: ours, and what the service's headers say others spent. */
interface Second {
  at: number;
  own: number;
  others: number;
}

/**
 * Compute units per API, as the service meters them: a sliding window spreads requests,
 * lower severities give way when the minute runs short, the service's own ratelimit-*
 * headers correct the count and the limit, and a 429 pauses every request until its reset.
 */
export class Limiter {
  readonly limits: BudgetLimits;
  readonly #now: () => number;
  readonly #clock: Clock;
  readonly #maxWaitMs: number;
  /** Called with the CU of every request that got an answer (see settle()). */
  onSpend: ((cu: number) => void) | undefined;
  /** The last minute, a slot per second (index: second % 60). */
  readonly #seconds: Second[] = Array.from({ length: 60 }, () => ({ at: -1, own: 0, others: 0 }));
  /** The per-minute limit the service announced (ratelimit-limit), when lower than ours. */
  #serviceLimit = Infinity;
  #day = -1;
  #dayCu = 0;
  #pausedUntil = 0;
  /** Most severe first; each in order of arrival. */
  readonly #queues: Record<Severity, Waiter[]> = { critical: [], warning: [], info: [] };
  #timer: Cancel | undefined;
  readonly #shared: SharedAllowance | undefined;

  constructor(o: LimiterOptions) {
    this.limits = o.limits;
    this.#clock = o.clock;
    this.#now = notSlowerThanTheHost(o.clock);
    this.#maxWaitMs = o.maxWaitMs ?? Infinity;
    this.#shared = o.shared;
    if (o.shared) o.shared.onReady = () => this.#pump();
  }

  /** Gives what it holds of a shared budget back (a stop, or a reload that replaced it). */
  close(): Promise<void> {
    return this.#shared?.close() ?? Promise.resolve();
  }

  /** Whether the units come from a budget shared with other instances. */
  get shared(): boolean {
    return this.#shared !== undefined;
  }

  get perMinute(): number {
    return Math.min(this.limits.perMinute, this.#serviceLimit);
  }

  /**
   * Waits until `cu` may be spent by a rule of this severity, and counts them as spent;
   * throws when the day's budget is gone. The request then settles its reservation.
   */
  acquire(cu: number, severity: Severity = 'critical', signal?: AbortSignal): Promise<Reservation> {
    signal?.throwIfAborted();
    const paused = this.#tooLongPaused(this.#now());
    if (paused) return Promise.reject(paused);
    this.#rollDay();
    if (this.#dayCu + cu > this.limits.perDay) return Promise.reject(this.#daySpent());
    return new Promise<Reservation>((resolve, reject) => {
      const queue = this.#queues[severity];
      const waiter: Waiter = { cu, severity, resolve, reject, signal, onAbort: () => undefined };
      waiter.onAbort = () => {
        queue.splice(queue.indexOf(waiter), 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      queue.push(waiter);
      this.#pump();
    });
  }

  /**
   * The service's view: a lower `ratelimit-limit` is the real limit; a lower
   * `ratelimit-remaining` means others spend on the key too (counted for the minute, not
   * for the spreading window); a 429 pauses everything until its reset.
   */
  observe(headers: Record<string, string | string[] | undefined>, status: number): void {
    const now = this.#now();
    const limit = Number(first(headers['ratelimit-limit']));
    if (Number.isFinite(limit) && limit > 0) this.#serviceLimit = limit;
    const remaining = Number(first(headers['ratelimit-remaining']));
    if (Number.isFinite(remaining) && remaining >= 0) {
      const ours = this.remainingMinute();
      if (remaining < ours) this.#slot(now).others += ours - remaining;
    }
    if (status === 429) {
      const wall = this.#clock.now();
      const wait = resetWaitMs(first(headers['ratelimit-reset']), wall) ?? resetWaitMs(first(headers['retry-after']), wall) ?? DEFAULT_PAUSE_MS;
      // Honoured (nothing is sent meanwhile), but at most a day: the day's budget renews by then.
      const pause = Math.min(wait, MAX_PAUSE_MS);
      this.#pausedUntil = Math.max(this.#pausedUntil, now + pause);
      this.#pump();
    }
  }

  /**
   * A request that got an answer (any status) counts as spent (onSpend). One that got none
   * (a network error, a timeout before the headers, an abort) gives its reservation back:
   * the service did not meter it, or its ratelimit-remaining will say so at the next answer.
   */
  settle(r: Reservation, answered: boolean): void {
    if (answered) {
      this.onSpend?.(r.cu);
      return;
    }
    if (r.shared) this.#shared?.giveBack(r.cu, r.shared);
    const slot = this.#seconds[r.second % 60] as Second;
    if (slot.at === r.second) slot.own = Math.max(0, slot.own - r.cu);
    this.#rollDay();
    if (r.day === this.#day) this.#dayCu = Math.max(0, this.#dayCu - r.cu);
    if (this.waiting > 0) this.#pump();
  }

  remainingMinute(): number {
    const { own, others } = this.#spent(this.#now(), 60);
    return Math.max(0, this.perMinute - own - others);
  }

  /** The day's budget left: with a shared budget, what the instances left together (as last seen), if less. */
  remainingDay(): number {
    this.#rollDay();
    return Math.max(0, Math.min(this.limits.perDay - this.#dayCu, this.#shared?.remainingDay() ?? Infinity));
  }

  /**
   * Unix ms (as the wall clock reads it now) until which a 429 paused every request (0 or
   * past: not paused). Kept on the steady clock: a step of the wall neither ends nor stretches it.
   */
  get pausedUntil(): number {
    return this.#pausedUntil === 0 ? 0 : this.#clock.now() + (this.#pausedUntil - this.#now());
  }

  /** Requests waiting for budget. */
  get waiting(): number {
    return this.#queues.critical.length + this.#queues.warning.length + this.#queues.info.length;
  }

  /** Whether `now` is in a pause longer than a request may wait out (then: the error to fail with). */
  #tooLongPaused(now: number): RateLimitedError | undefined {
    if (this.#pausedUntil - now <= this.#maxWaitMs) return undefined;
    return new RateLimitedError(`the service answered 429 and asked to wait until ${new Date(this.pausedUntil).toISOString()}, longer than api.maxRetryAfter: this poll fails`);
  }

  #pump(): void {
    this.#timer?.();
    this.#timer = undefined;
    const now = this.#now();
    const paused = this.#tooLongPaused(now);
    if (paused) {
      // Nobody waits out a long pause: every queued request fails now.
      for (const sev of SEVERITIES_DOWN) {
        for (const w of this.#queues[sev].splice(0)) {
          w.signal?.removeEventListener('abort', w.onAbort);
          w.reject(paused);
        }
      }
      return;
    }
    for (;;) {
      // The most severe waiting request goes first; while it must wait, so do the others.
      const next = SEVERITIES_DOWN.map((sev) => this.#queues[sev][0]).find((w) => w !== undefined);
      if (!next || !this.#allowed(next, now)) break;
      this.#rollDay();
      // The shared budget last: its units are taken only for a request that goes now.
      const shared = this.#dayCu + next.cu > this.limits.perDay ? 'day-spent' : this.#shared?.take(next.cu, RESERVE[next.severity]);
      if (shared === 'wait') break;
      this.#queues[next.severity].shift();
      next.signal?.removeEventListener('abort', next.onAbort);
      if (shared === 'day-spent') {
        next.reject(this.#daySpent());
        continue;
      }
      this.#slot(now).own += next.cu;
      this.#dayCu += next.cu;
      next.resolve({ cu: next.cu, second: Math.floor(now / 1000), day: this.#day, ...(shared ? { shared } : {}) });
    }
    if (this.waiting > 0) {
      // Look again when the pause ends, else shortly: spend keeps leaving the windows.
      this.#timer = this.#clock.setTimer(() => this.#pump(), Math.max(POLL_MS, this.#pausedUntil - now));
    }
  }

  #daySpent(): BudgetExhaustedError {
    const whose = this.#shared ? ', by the instances sharing this key together' : '';
    return new BudgetExhaustedError(`the day's budget of ${this.limits.perDay} compute units is spent${whose}; it renews at 00:00 UTC`);
  }

  #allowed(w: Waiter, now: number): boolean {
    if (now < this.#pausedUntil) return false;
    const perMinute = this.perMinute;
    const recent = this.#spent(now, WINDOW_MS / 1000).own;
    // An empty window lets any one request through, however large.
    if (recent > 0 && recent + w.cu > perMinute / WINDOWS_PER_MINUTE) return false;
    const minute = this.#spent(now, 60);
    const left = perMinute - minute.own - minute.others;
    return left - w.cu >= perMinute * RESERVE[w.severity] || (left === perMinute && w.cu <= perMinute);
  }

  /** Spend in the last `seconds` seconds (this one included). */
  #spent(now: number, seconds: number): { own: number; others: number } {
    const second = Math.floor(now / 1000);
    let own = 0;
    let others = 0;
    for (let i = 0; i < seconds; i++) {
      const slot = this.#seconds[(((second - i) % 60) + 60) % 60] as Second;
      if (slot.at !== second - i) continue;
      own += slot.own;
      others += slot.others;
    }
    return { own, others };
  }

  #slot(now: number): Second {
    const second = Math.floor(now / 1000);
    const slot = this.#seconds[second % 60] as Second;
    if (slot.at !== second) Object.assign(slot, { at: second, own: 0, others: 0 });
    return slot;
  }

  #rollDay(): void {
    // The service's day, by the wall clock.
    const day = Math.floor(this.#clock.now() / 86_400_000);
    if (day !== this.#day) {
      this.#day = day;
      this.#dayCu = 0;
    }
  }
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/**
 * `clock`'s steady reading, or where it lags, the time since it last moved on the host's
 * steady clock: the clock's value once it catches up. Never goes back. A clock that stands
 * still (set by hand) has the host's timers: the host's steady clock is what they wait on.
 */
function notSlowerThanTheHost(clock: Clock): () => number {
  let anchor = clock.mono();
  let anchorReal = systemClock.mono();
  return () => {
    const now = clock.mono();
    const real = systemClock.mono();
    const walked = anchor + (real - anchorReal);
    if (now < walked) return walked;
    anchor = now;
    anchorReal = real;
    return now;
  };
}
