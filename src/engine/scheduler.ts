import { Cron } from 'croner';
import type { LoadedRule } from '../config/load.js';
import type { Logger } from '../log.js';

export interface SchedulerDeps {
  log: Logger;
  run: (rule: LoadedRule, signal: AbortSignal) => Promise<unknown>;
  random?: () => number;
}

const MAX_START_JITTER_MS = 5_000;

interface Job {
  rule: LoadedRule;
  cron?: Cron;
  /** Until the job starts: its start jitter. */
  starting?: NodeJS.Timeout;
  abort: AbortController;
  running: Set<Promise<unknown>>;
}

/** One croner job per rule: overrun-protected, errors caught, started with a small jitter. */
export class Scheduler {
  readonly #deps: SchedulerDeps;
  readonly #jobs = new Map<string, Job>();
  readonly #abort = new AbortController();

  constructor(deps: SchedulerDeps) {
    this.#deps = deps;
  }

  start(rules: readonly LoadedRule[]): void {
    for (const rule of rules) this.#add(rule);
  }

  /**
   * Makes the jobs match `rules` (after a reload): removed and changed rules stop and their
   * running evaluations are aborted and awaited; added and changed ones start. Unchanged
   * rules keep their schedule. `same` says whether a rule is unchanged.
   */
  async update(rules: readonly LoadedRule[], same: (a: LoadedRule, b: LoadedRule) => boolean): Promise<void> {
    const next = new Map(rules.map((r) => [r.name, r]));
    const stopping: Job[] = [];
    for (const [name, job] of this.#jobs) {
      const rule = next.get(name);
      if (rule && same(job.rule, rule)) {
        job.rule = rule; // the same rule, perhaps moved within its file
        next.delete(name);
        continue;
      }
      this.#jobs.delete(name);
      stopping.push(job);
    }
    await Promise.allSettled(stopping.map((job) => this.#stopJob(job)));
    for (const rule of next.values()) this.#add(rule);
  }

  /** Stops scheduling, then waits for running evaluations; past graceMs they are aborted. */
  async stop(graceMs: number): Promise<void> {
    const jobs = [...this.#jobs.values()];
    this.#jobs.clear();
    for (const job of jobs) {
      clearTimeout(job.starting);
      job.cron?.stop();
    }
    const timer = setTimeout(() => this.#abort.abort(), graceMs);
    await Promise.allSettled(jobs.flatMap((j) => [...j.running]));
    clearTimeout(timer);
    this.#abort.abort(); // whatever an evaluation left behind (a retry, a sibling lookup) ends now
  }

  async #stopJob(job: Job): Promise<void> {
    clearTimeout(job.starting);
    job.cron?.stop();
    job.abort.abort();
    await Promise.allSettled([...job.running]);
  }

  #add(rule: LoadedRule): void {
    const abort = new AbortController();
    this.#abort.signal.addEventListener('abort', () => abort.abort(), { once: true, signal: abort.signal });
    const job: Job = { rule, abort, running: new Set() };
    this.#jobs.set(rule.name, job);
    if (rule.schedule !== undefined) {
      job.cron = this.#cron(job);
      return;
    }
    // Interval rules start after a small jitter so they do not all poll in the same second.
    const random = this.#deps.random ?? Math.random;
    const jitter = random() * Math.min(rule.every ?? 0, MAX_START_JITTER_MS);
    job.starting = setTimeout(() => {
      job.starting = undefined;
      job.cron = this.#cron(job);
    }, jitter);
  }

  #cron(job: Job): Cron {
    const { rule } = job;
    const tick = async (): Promise<void> => {
      const run = this.#deps.run(job.rule, job.abort.signal);
      job.running.add(run);
      try {
        await run;
      } catch {
        // The engine logged and counted it; the next tick tries again.
      } finally {
        job.running.delete(run);
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
