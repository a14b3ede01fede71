import type { Limiter } from '../api/limiter.js';
import type { LoadedRule } from '../config/load.js';
import type { FailureCounts } from '../engine/failing.js';
import { ruleKind } from '../rules/registry.js';
import type { ReceiverStats } from '../store/index.js';

// The page's view of what avawatch depends on: its receivers and the APIs it reads.

export interface ReceiverConfig {
  name: string;
  type: string;
  /** Why it cannot send (e.g. its secret is unset), or undefined when enabled. */
  disabled: string | undefined;
}

export interface ReceiverRow extends ReceiverConfig {
  /** Unix seconds. */
  lastSuccess: number | undefined;
  pending: number;
  dead: number;
  /** Scrubbed of secrets. */
  lastError: string | undefined;
  lastErrorAt: number | undefined;
}

export interface DataSourceRow {
  name: string;
  state: 'ok' | 'limited' | 'blind' | 'unused';
  why: string;
}

/** Every configured receiver, then any that only old outbox rows name (removed from the config). */
export function receiverRows(configured: readonly ReceiverConfig[], stats: readonly ReceiverStats[], redact: (text: string) => string): ReceiverRow[] {
  const byName = new Map(stats.map((s) => [s.receiver, s]));
  const row = (c: ReceiverConfig): ReceiverRow => {
    const s = byName.get(c.name);
    return {
      ...c,
      lastSuccess: s?.lastSuccess === undefined ? undefined : s.lastSuccess / 1000,
      pending: s?.pending ?? 0,
      dead: s?.dead ?? 0,
      lastError: s?.lastError === undefined ? undefined : redact(s.lastError),
      lastErrorAt: s?.lastErrorAt === undefined ? undefined : s.lastErrorAt / 1000,
    };
  };
  const names = new Set(configured.map((c) => c.name));
  const gone = stats.filter((s) => !names.has(s.receiver)).map((s) => ({ name: s.receiver, type: '?', disabled: 'no longer in the config' }));
  return [...configured, ...gone].map(row);
}

const API_NAMES = { data: 'Data API', metrics: 'Metrics API' } as const;

/**
 * Each API: limited while a 429's pause lasts or the day's budget is spent, blind when every
 * rule that reads it fails, else ok (naming the failing ones).
 */
export function dataSourceRows(rules: readonly LoadedRule[], limiters: Record<'data' | 'metrics', Limiter>, failures: FailureCounts, nowMs: number): DataSourceRow[] {
  const failing = new Map(failures.failing(1).map((f) => [f.rule, f]));
  return (Object.keys(API_NAMES) as Array<keyof typeof API_NAMES>).map((api): DataSourceRow => {
    const name = API_NAMES[api];
    const limiter = limiters[api];
    const readers = rules.filter((r) => ruleKind(r.kind).cost(r.spec as never).calls.some((c) => c.api === api));
    const left = `${limiter.remainingDay().toLocaleString('en-US')} CU left today`;
    if (limiter.pausedUntil > nowMs) return { name, state: 'limited', why: `the service answered 429: paused until ${new Date(limiter.pausedUntil).toISOString().slice(11, 19)} UTC; ${left}` };
    if (limiter.remainingDay() === 0) return { name, state: 'limited', why: `the day's budget is spent; it renews at 00:00 UTC` };
    if (readers.length === 0) return { name, state: 'unused', why: 'no rule reads it' };
    const down = readers.filter((r) => failing.has(r.name));
    if (down.length === readers.length) {
      const first = failing.get(down[0]?.name ?? '');
      return { name, state: 'blind', why: `every rule reading it fails (${readers.length}); ${down[0]?.name}: ${first?.error ?? ''}` };
    }
    if (down.length > 0) return { name, state: 'ok', why: `${down.length} of ${readers.length} rules reading it fail (${down.map((r) => r.name).join(', ')}); ${left}` };
    return { name, state: 'ok', why: `${readers.length} rule${readers.length === 1 ? '' : 's'} reading it; ${left}` };
  });
}
