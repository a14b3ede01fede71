import type { Config } from '../../config/schema.js';
import type { LoadedRule } from '../../config/load.js';
import { channel } from '../../channels/registry.js';
import { resolveRoutes, type Target } from '../route.js';

/** The `route` stage's answer for one rule: the enabled receivers an alert with these labels goes to. */
export type RouteOf = (rule: Pick<LoadedRule, 'receivers'>, labels: Record<string, string>) => Target[];

/**
 * The route tree (alerts/route.ts), cut to the receivers enabled now, each with how soon it
 * forgets a firing alert it stops hearing of (Alertmanager's resendInterval). Built once per config.
 */
export function routing(config: Pick<Config, 'route' | 'receivers'>, enabled: ReadonlySet<string>): RouteOf {
  const resendOf = new Map(config.receivers.flatMap((r) => {
    const ms = channel(r.type).resendInterval?.(r as never);
    return ms === undefined ? [] : [[r.name, ms] as const];
  }));
  return (rule, labels) =>
    resolveRoutes(config.route, labels, rule.receivers)
      .filter((t) => enabled.has(t.receiver))
      .map((t) => {
        const resendMs = resendOf.get(t.receiver);
        return resendMs === undefined ? t : { ...t, resendMs };
      });
}

/**
 * How often a firing alert reaches this receiver again: a receiver that forgets what it
 * stops hearing of (Alertmanager) at its resend interval; others at the rule's
 * repeatInterval, else the route's.
 */
export function repeatOf(rule: Pick<LoadedRule, 'repeatInterval'>, t: Target): number {
  return t.resendMs ?? rule.repeatInterval ?? t.repeatMs;
}

/** The shortest reminder interval among the receivers (the lifecycle's pace; each receiver then filters for its own). */
export function shortestRepeat(rule: Pick<LoadedRule, 'repeatInterval'>, targets: readonly Target[], routeRepeatMs: number): number {
  // No receiver (rule tests, a disabled receiver): the root route's interval still paces it.
  if (targets.length === 0) return rule.repeatInterval ?? routeRepeatMs;
  const repeats = targets.map((t) => repeatOf(rule, t)).filter((ms) => ms > 0);
  return repeats.length > 0 ? Math.min(...repeats) : 0;
}
