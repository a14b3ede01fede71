import { SEVERITIES, type Severity } from '../rules/types.js';

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

interface Waiter {
  cu: number;
  severity: Severity;
  seq: number;
  resolve: () => void;
  reject: (err: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

export class BudgetExhaustedError extends Error {
  override readonly name = 'BudgetExhaustedError';
}

export interface LimiterOptions {
  limits: BudgetLimits;
  now?: () => number;
}

/** `api.budget`: a tier's limits, or the limits given. */
export function budgetLimits(budget: Tier | BudgetLimits): BudgetLimits {
  return typeof budget === 'string' ? TIERS[budget] : budget;
}

/**
 * Compute units per API, as the service meters them: a sliding window spreads requests,
 * lower severities give way when the minute runs short, the service's own ratelimit-*
 * headers correct the count, and a 429 pauses every request until its reset.
 */
export class Limiter {
  readonly limits: BudgetLimits;
  readonly #now: () => number;
  /** Called with the CU of every request let through. */
  onSpend: ((cu: number) => void) | undefined;
  /** Spend in the last minute: [time, cu]. */
  #log: Array<[number, number]> = [];
  #day = -1;
  #dayCu = 0;
  #pausedUntil = 0;
  #queue: Waiter[] = [];
  #seq = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(o: LimiterOptions) {
    this.limits = o.limits;
    this.#now = o.now ?? Date.now;
  }

  /** Waits until `cu` may be spent by a rule of this severity; throws when the day's budget is gone. */
  acquire(cu: number, severity: Severity = 'critical', signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.#rollDay();
    if (this.#dayCu + cu > this.limits.perDay) {
      return Promise.reject(new BudgetExhaustedError(`the day's budget of ${this.limits.perDay} compute units is spent; it renews at 00:00 UTC`));
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { cu, severity, seq: this.#seq++, resolve, reject, signal, onAbort: () => undefined };
      waiter.onAbort = () => {
        this.#queue = this.#queue.filter((w) => w !== waiter);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.#queue.push(waiter);
      // Most severe first, then in order of arrival.
      this.#queue.sort((a, b) => SEVERITIES.indexOf(b.severity) - SEVERITIES.indexOf(a.severity) || a.seq - b.seq);
      this.#pump();
    });
  }

  /** The service's view: `ratelimit-remaining` lower than ours means someone else spends too. */
  observe(headers: Record<string, string | string[] | undefined>, status: number): void {
    const remaining = Number(first(headers['ratelimit-remaining']));
    const now = this.#now();
    if (Number.isFinite(remaining) && remaining >= 0) {
      const ours = this.remainingMinute();
      if (remaining < ours) this.#log.push([now, ours - remaining]);
    }
    if (status === 429) {
      const reset = Number(first(headers['ratelimit-reset']) ?? first(headers['retry-after']));
      const waitS = Number.isFinite(reset) && reset > 0 ? reset : 60;
      this.#pausedUntil = Math.max(this.#pausedUntil, now + waitS * 1000);
      this.#pump();
    }
  }

  remainingMinute(): number {
    return Math.max(0, this.limits.perMinute - this.#spentSince(this.#now() - 60_000));
  }

  remainingDay(): number {
    this.#rollDay();
    return Math.max(0, this.limits.perDay - this.#dayCu);
  }

  /** Requests waiting for budget. */
  get waiting(): number {
    return this.#queue.length;
  }

  #pump(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (;;) {
      const now = this.#now();
      this.#log = this.#log.filter(([t]) => t > now - 60_000);
      const next = this.#queue.find((w) => this.#allowed(w, now));
      if (!next) break;
      this.#queue = this.#queue.filter((w) => w !== next);
      next.signal?.removeEventListener('abort', next.onAbort);
      this.#log.push([now, next.cu]);
      this.#rollDay();
      this.#dayCu += next.cu;
      this.onSpend?.(next.cu);
      next.resolve();
    }
    if (this.#queue.length > 0) {
      // Look again when the pause ends, else shortly: spend keeps leaving the windows.
      const wait = Math.max(POLL_MS, this.#pausedUntil - this.#now());
      this.#timer = setTimeout(() => this.#pump(), wait);
    }
  }

  #allowed(w: Waiter, now: number): boolean {
    if (now < this.#pausedUntil) return false;
    const { perMinute } = this.limits;
    const recent = this.#spentSince(now - WINDOW_MS);
    // An empty window lets any one request through, however large.
    if (recent > 0 && recent + w.cu > perMinute / WINDOWS_PER_MINUTE) return false;
    const left = perMinute - this.#spentSince(now - 60_000);
    return left - w.cu >= perMinute * RESERVE[w.severity] || (left === perMinute && w.cu <= perMinute);
  }

  #spentSince(t: number): number {
    let sum = 0;
    for (const [at, cu] of this.#log) if (at > t) sum += cu;
    return sum;
  }

  #rollDay(): void {
    const day = Math.floor(this.#now() / 86_400_000);
    if (day !== this.#day) {
      this.#day = day;
      this.#dayCu = 0;
    }
  }
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
