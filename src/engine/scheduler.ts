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
  readonly #running = new Set<Promise<unknown>>();
  readonly #abort = new AbortController();

  constructor(deps: SchedulerDeps) {
    this.#deps = deps;
  }

  start(rules: readonly LoadedRule[]): void {
    for (const rule of rules) this.#jobs.set(rule.name, this.#job(rule));
  }

  /** Stops scheduling, then waits for running evaluations; past graceMs they are aborted. */
  async stop(graceMs: number): Promise<void> {
    for (const job of this.#jobs.values()) job.stop();
    this.#jobs.clear();
    const timer = setTimeout(() => this.#abort.abort(), graceMs);
    await Promise.allSettled([...this.#running]);
    clearTimeout(timer);
  }

  #job(rule: LoadedRule): Cron {
    const random = this.#deps.random ?? Math.random;
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
    const options = {
      name: rule.name,
      protect: (job: Cron) => this.#deps.log.warn({ rule: job.name }, 'previous evaluation still running; skipped this one'),
      catch: (err: unknown) => this.#deps.log.error({ rule: rule.name, error: String(err) }, 'scheduler error'),
    };
    if (rule.every !== undefined) {
      const jitter = random() * Math.min(rule.every, MAX_START_JITTER_MS);
      return new Cron('* * * * * *', { ...options, interval: Math.max(1, Math.round(rule.every / 1000)), startAt: new Date(Date.now() + jitter) }, tick);
    }
    return new Cron(rule.schedule as string, options, tick);
  }
}
