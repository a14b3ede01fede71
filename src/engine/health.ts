import type { Clock } from '../base/clock.js';
import { periodMs } from '../base/schedule.js';
import type { LoadedRule } from '../config/load.js';
import { ruleKind } from '../rules/registry.js';
import { blindLines } from './cause.js';
import type { FailureCounts } from './failing.js';

// Is the daemon ready, and is it blind? What /readyz, the heartbeat and the page say.

export interface HealthInputs {
  rules: () => readonly LoadedRule[];
  /** Rules evaluated (or failed) at least once since start, or since a reload added them. */
  looked: ReadonlySet<string>;
  /** Why the store did not answer its last ping (app.ts pings it before each /readyz, page, heartbeat and scrape). */
  storeProblem: () => string | undefined;
  failures: FailureCounts;
  failingAfter: () => number;
  /** Receivers that take nothing (delivery/health.ts). */
  deliveryProblems: () => string[];
  limiters: () => Record<string, { pausedUntil: number; remainingDay(): number }>;
  clock: Clock;
}

/**
 * Ready: every interval rule has been evaluated once since start (a start that has not
 * seen the service is not ready), the state file answers, and no rule has failed
 * failingAfter evaluations in a row. Cron rules are not waited for: their first run may
 * be hours away.
 */
export function readiness(h: HealthInputs): { ready: boolean; problems: string[] } {
  const problems: string[] = [];
  const rules = h.rules();
  const waiting = rules.filter((r) => periodMs(r.schedule) !== undefined && !h.looked.has(r.name)).map((r) => r.name);
  if (waiting.length > 0) problems.push(startingText(waiting));
  const storeProblem = h.storeProblem();
  if (storeProblem !== undefined) problems.push(`state file: ${storeProblem}`);
  const names = new Set(rules.map((r) => r.name));
  // One line per cause outside the rules (the service down: one line, not one per rule).
  const failing = h.failures.failing(h.failingAfter()).filter((f) => names.has(f.rule));
  problems.push(...blindLines(failing, (f) => `rule ${f.rule}: ${f.count} evaluations failed in a row (${f.error})`));
  // Alerts that cannot get out: the heartbeat and /readyz say it, as avawatch's own alerts cannot.
  problems.push(...h.deliveryProblems());
  return { ready: problems.length === 0, problems };
}

/**
 * Why avawatch is blind now: a rule whose last evaluation failed, a lookup that keeps
 * failing, an API paused by a 429 or out of budget, the state file, a receiver that takes
 * nothing (its alerts cannot say so themselves). `starting` until every
 * interval rule has been evaluated once. A node whose API does not answer is not blindness:
 * node-health says so itself, with the service's view (and node-metrics' failing reads of it
 * are left out here for the same reason).
 */
export function blindness(h: HealthInputs): string[] | 'starting' {
  const ready = readiness(h);
  if (ready.problems.some((p) => p.startsWith('starting'))) return 'starting';
  const out: string[] = [];
  // A rule that reads the operators' nodes sees a node that is down or odd, not a blind avawatch.
  const services = h.rules().filter((r) => ruleKind(r.kind).readsNodes !== true);
  const names = new Set(services.map((r) => r.name));
  out.push(...blindLines(h.failures.failing(1).filter((f) => names.has(f.rule)), (f) => `rule ${f.rule}: its last evaluation failed (${f.error})`));
  for (const rule of services) {
    const entities = h.failures.entities(rule.name);
    const first = entities[0];
    if (first) out.push(`rule ${rule.name}: ${entities.length} lookup(s) failing (${first.entity}: ${first.error})`);
  }
  const nowMs = h.clock.now();
  for (const [api, limiter] of Object.entries(h.limiters())) {
    if (limiter.pausedUntil > nowMs) out.push(`${api} API: paused after a 429 until ${new Date(limiter.pausedUntil).toISOString()}`);
    else if (limiter.remainingDay() === 0) out.push(`${api} API: the day's compute units are spent`);
  }
  out.push(...ready.problems.filter((p) => p.startsWith('state file') || p.startsWith('receiver ')));
  return out;
}

/** `starting: 2 rules not evaluated yet (a, b)`, naming the first few. */
export function startingText(rules: readonly string[]): string {
  const shown = rules.slice(0, 5).join(', ');
  return `starting: ${rules.length} rule${rules.length === 1 ? '' : 's'} not evaluated yet (${shown}${rules.length > 5 ? ', …' : ''})`;
}
