import { computeUnits } from '../api/catalog.js';

export interface BudgetLimits {
  perMinute: number;
  perDay: number;
}

/** The live service's tiers without a key (data) and for the Metrics API (api-notes.md). */
export const DEFAULT_BUDGETS: Record<'data' | 'metrics', BudgetLimits> = {
  data: { perMinute: 6_000, perDay: 1_200_000 },
  metrics: { perMinute: 8_000, perDay: 1_200_000 },
};

/**
 * The Data API's paid plans, per API key (api-notes.md "Rate limits: compute units"). Written
 * apart from the daemon's TIERS (api/limiter.ts) on purpose: the service's side, so a wrong
 * figure on either side shows in a test rather than agreeing with itself.
 */
export const PLANS = {
  free: { perMinute: 8_000, perDay: 2_000_000 },
  base: { perMinute: 10_000, perDay: 3_750_000 },
  growth: { perMinute: 14_000, perDay: 11_200_000 },
  pro: { perMinute: 20_000, perDay: 25_000_000 },
} as const satisfies Record<string, BudgetLimits>;
export type Plan = keyof typeof PLANS;

/** The service's keys: each key's Data API plan, a tier's name or its limits. */
export type KeyPlans = Record<string, Plan | BudgetLimits>;

export interface Charge {
  allowed: boolean;
  headers: Record<string, string>;
}

/**
 * Compute units per real-time minute and day, as the live service meters them: the Data API's
 * per key, each key on its own plan's windows (a key it was not given, or none, on the keyless
 * budget); the Metrics API takes no key.
 */
export class Budget {
  /** Units let through, per API, whatever the key. */
  readonly spent = { data: 0, metrics: 0 };
  readonly #windows = new Map<string, { minute: number; minuteCu: number; day: number; dayCu: number }>();
  readonly #keys: ReadonlyMap<string, BudgetLimits>;

  constructor(
    readonly limits: Record<'data' | 'metrics', BudgetLimits> = DEFAULT_BUDGETS,
    keys: KeyPlans = {},
  ) {
    this.#keys = new Map(Object.entries(keys).map(([key, plan]) => [key, typeof plan === 'string' ? PLANS[plan] : plan]));
  }

  charge(method: string, path: string, key?: string, nowMs = Date.now()): Charge {
    const { api, cu } = computeUnits(method, path);
    const plan = api === 'data' && key !== undefined ? this.#keys.get(key) : undefined;
    const limit = plan ?? this.limits[api];
    const minute = Math.floor(nowMs / 60_000);
    const day = Math.floor(nowMs / 86_400_000);
    const meter = plan ? `${api} ${key}` : api;
    const w = this.#windows.get(meter) ?? { minute, minuteCu: 0, day, dayCu: 0 };
    if (w.minute !== minute) Object.assign(w, { minute, minuteCu: 0 });
    if (w.day !== day) Object.assign(w, { day, dayCu: 0 });
    this.#windows.set(meter, w);
    const allowed = w.minuteCu + cu <= limit.perMinute && w.dayCu + cu <= limit.perDay;
    if (allowed) {
      w.minuteCu += cu;
      w.dayCu += cu;
      this.spent[api] += cu;
    }
    const reset = Math.ceil(((minute + 1) * 60_000 - nowMs) / 1000);
    const headers: Record<string, string> = {
      'ratelimit-limit': String(limit.perMinute),
      'ratelimit-remaining': String(Math.max(0, limit.perMinute - w.minuteCu)),
      'ratelimit-policy': `${limit.perMinute};w=60, ${limit.perDay};w=86400`,
    };
    if (!allowed) {
      const dayOver = w.dayCu + cu > limit.perDay;
      const wait = dayOver ? Math.ceil(((day + 1) * 86_400_000 - nowMs) / 1000) : reset;
      headers['ratelimit-reset'] = String(wait);
      headers['retry-after'] = String(wait);
    }
    return { allowed, headers };
  }
}
