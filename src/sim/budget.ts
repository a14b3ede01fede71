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

export interface Charge {
  allowed: boolean;
  headers: Record<string, string>;
}

/** Compute units per real-time minute and day, as the live service meters them. */
export class Budget {
  readonly spent = { data: 0, metrics: 0 };
  readonly #windows = new Map<string, { minute: number; minuteCu: number; day: number; dayCu: number }>();

  constructor(readonly limits: Record<'data' | 'metrics', BudgetLimits> = DEFAULT_BUDGETS) {}

  charge(method: string, path: string, nowMs = Date.now()): Charge {
    const { api, cu } = computeUnits(method, path);
    const limit = this.limits[api];
    const minute = Math.floor(nowMs / 60_000);
    const day = Math.floor(nowMs / 86_400_000);
    const w = this.#windows.get(api) ?? { minute, minuteCu: 0, day, dayCu: 0 };
    if (w.minute !== minute) Object.assign(w, { minute, minuteCu: 0 });
    if (w.day !== day) Object.assign(w, { day, dayCu: 0 });
    this.#windows.set(api, w);
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
