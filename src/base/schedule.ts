import { Cron } from 'croner';
import { formatDuration } from './duration.js';

/**
 * When a rule runs: every `everyMs` on the wall clock's multiples of it (rules with the same
 * interval poll together), or at the times of a cron pattern (croner's, seconds optional).
 * Built once by the loader; everything that asks "when" asks it.
 */
export type Schedule = { readonly everyMs: number } | { readonly cron: string };

const DAY_MS = 86_400_000;
/** A cron pattern runs at most once a second: a day has no more runs than this. */
const MAX_RUNS_PER_DAY = 86_400;

/** The rule's `every` (ms) or `schedule` (cron), exactly one of which the loader let through. */
export function scheduleOf(rule: { every?: number | undefined; schedule?: string | undefined }): Schedule {
  if (rule.schedule !== undefined) return { cron: rule.schedule };
  if (rule.every === undefined) throw new Error('a rule needs every or schedule');
  return { everyMs: rule.every };
}

/** `every 30s` or `schedule "0 9 * * *"`, as `check` and the status page print it. */
export function describeSchedule(s: Schedule): string {
  return 'everyMs' in s ? `every ${formatDuration(s.everyMs)}` : `schedule "${s.cron}"`;
}

/** Runs in the day after `from`: 86,400,000 / interval, or the cron times counted. */
export function runsPerDay(s: Schedule, from: Date): number {
  if ('everyMs' in s) return DAY_MS / s.everyMs;
  const job = new Cron(s.cron, { paused: true });
  const end = from.getTime() + DAY_MS;
  let count = 0;
  let at: Date | null = from;
  while (count < MAX_RUNS_PER_DAY && (at = job.nextRun(at)) !== null && at.getTime() <= end) count++;
  job.stop();
  return count;
}

/**
 * The first run after `now` (unix ms): the next multiple of the interval, not one that a
 * timer firing a little early would take as next (within a tenth of the interval, at most
 * 1 s); the next cron time. Undefined for a pattern with no time left.
 */
export function nextRun(s: Schedule, now: number): number | undefined {
  if ('everyMs' in s) {
    let wait = s.everyMs - (now % s.everyMs);
    if (wait < Math.min(s.everyMs / 10, 1_000)) wait += s.everyMs;
    return now + wait;
  }
  const job = new Cron(s.cron, { paused: true });
  const next = job.nextRun(new Date(now))?.getTime();
  job.stop();
  return next;
}

/** The longest a run can be awaited: the interval, or the time to the next cron run. */
export function untilNext(s: Schedule, now: number): number | undefined {
  if ('everyMs' in s) return s.everyMs;
  const at = nextRun(s, now);
  return at === undefined ? undefined : at - now;
}

/** An interval rule's own period; a cron rule has none (its runs are the pattern's). */
export function periodMs(s: Schedule): number | undefined {
  return 'everyMs' in s ? s.everyMs : undefined;
}
