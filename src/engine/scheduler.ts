import { Cron } from 'croner';
import type { LoadedRule } from '../config/load.js';
import type { Logger } from '../log.js';

export interface SchedulerDeps {
  log: Logger;
  run: (rule: LoadedRule, signal: AbortSignal) => Promise<unknown>;
  random?: () => number;
}

const MAX_START_JITTER_MS = 5_000;

/** One croner job per rule: overrun-protected, errors caught, started with a small jitter. */
export class Scheduler {
  readonly #deps: SchedulerDeps;
  readonly #jobs = new Map<string, Cron>();
  readonly #starting = new Set<NodeJS.Timeout>();
  readonly #running = new Set<Promise<unknown>>();
  readonly #abort = new AbortController();

  constructor(deps: SchedulerDeps) {
    this.#deps = deps;
  }

  start(rules: readonly LoadedRule[]): void {
    const random = this.#deps.random ?? Math.random;
    for (const rule of rules) {
      if (rule.schedule !== undefined) {
        this.#jobs.set(rule.name, this.#job(rule));
        continue;
      }
      // Interval rules start after a small jitter so they do not all poll in the same second.
      const jitter = random() * Math.min(rule.every ?? 0, MAX_START_JITTER_MS);
      const timer = setTimeout(() => {
        this.#starting.delete(timer);
        this.#jobs.set(rule.name, this.#job(rule));
      }, jitter);
      this.#starting.add(timer);
    }
  }

  /** Stops scheduling, then waits for running evaluations; past graceMs they are aborted. */
  async stop(graceMs: number): Promise<void> {
    for (const timer of this.#starting) clearTimeout(timer);
    this.#starting.clear();
    for (const job of this.#jobs.values()) job.stop();
    this.#jobs.clear();
    const timer = setTimeout(() => this.#abort.abort(), graceMs);
    await Promise.allSettled([...this.#running]);
    clearTimeout(timer);
    this.#abort.abort(); // whatever an evaluation left behind (a retry, a sibling lookup) ends now
  }

  #job(rule: LoadedRule): Cron {
    const tick = async (): Promise<void> => {
      const run = this.#deps.run(rule, this.#abort.signal);
      this.#running.add(run);
      try {
        await run;
      } catch {
        // The engine logged and counted it; the next tick tries again.
      } finally {
        this.#running.delete(run);
      }
    };
    // No croner `name` (its registry is process-global) and no `startAt` (with `interval`,
    // croner walks from startAt to now on every reschedule: cost grows with uptime).
    const options = {
      protect: () => this.#deps.log.warn({ rule: rule.name }, 'previous evaluation still running; skipped this one'),
      catch: (err: unknown) => this.#deps.log.error({ rule: rule.name, error: String(err) }, 'scheduler error'),
    };
    if (rule.every !== undefined) {
      // Runs at the next whole second, then every `interval` seconds.
      return new Cron('* * * * * *', { ...options, interval: Math.max(1, Math.round(rule.every / 1000)) }, tick);
    }
    return new Cron(rule.schedule as string, options, tick);
  }
}
