import { setMaxListeners } from 'node:events';
import { Cron } from 'croner';
import { systemClock, type Clock } from '../base/clock.js';
import { nextRun, periodMs } from '../base/schedule.js';
import type { LoadedRule } from '../config/load.js';
import type { Logger } from '../base/log.js';
import type { Cancel } from '../base/timers.js';

export interface SchedulerDeps {
  log: Logger;
  run: (rule: LoadedRule, signal: AbortSignal) => Promise<unknown>;
  /** A tick skipped because the rule's last evaluation still runs, for this long (awaited: what it writes is done before the tick ends). */
  onSkip?: (rule: LoadedRule, runningForMs: number) => unknown;
  /**
   * The App's clock: ticks are aligned on its wall reading and wait on its timers; how long
   * an evaluation has run is on its steady reading (the demo's runs n times faster). Cron
   * rules run on croner's own timers, on the host's wall.
   */
  clock: Clock;
  random?: () => number;
}

/** The first evaluations are spread over this long; the limiter spreads the rest. */
const MAX_START_JITTER_MS = 250;

interface Job {
  rule: LoadedRule;
  cron?: Cron;
  /** An interval rule's next tick. */
  timer?: Cancel;
  abort: AbortController;
  running: Set<Promise<unknown>>;
  /** When the running evaluation started. */
  startedAt?: number;
  stopped?: boolean;
}

/**
 * Interval rules run once at start, then on the wall clock's multiples of their interval:
 * rules with the same interval poll together, so what they both ask is asked once (the
 * HTTP client shares identical requests). Cron rules are croner jobs. Either way an
 * evaluation still running when the next is due skips that one.
 */
export class Scheduler {
  readonly #deps: SchedulerDeps;
  readonly #jobs = new Map<string, Job>();
  readonly #abort = new AbortController();
  #stopping = false;

  constructor(deps: SchedulerDeps) {
    this.#deps = deps;
    // One listener per rule job: hundreds of rules are normal, not a leak.
    setMaxListeners(0, this.#abort.signal);
  }

  /** Starts jobs for these rules (after a reload: the added and changed ones). Not after stop(). */
  start(rules: readonly LoadedRule[]): void {
    if (this.#abort.signal.aborted || this.#stopping) return;
    for (const rule of rules) this.#add(rule);
  }

  /** Stops these rules' jobs, aborting their running evaluations, and waits for them to end. */
  async remove(names: readonly string[]): Promise<void> {
    const jobs = names.flatMap((n) => {
      const job = this.#jobs.get(n);
      this.#jobs.delete(n);
      return job ? [job] : [];
    });
    await Promise.allSettled(jobs.map((job) => this.#stopJob(job)));
  }

  /** Stops scheduling, then waits for running evaluations; past graceMs they are aborted. */
  async stop(graceMs: number): Promise<void> {
    this.#stopping = true;
    const jobs = [...this.#jobs.values()];
    this.#jobs.clear();
    for (const job of jobs) {
      job.timer?.();
      job.cron?.stop();
    }
    // Evaluations in flight wait on other systems: their grace is the host's time.
    const cancel = systemClock.setTimer(() => this.#abort.abort(), graceMs);
    await Promise.allSettled(jobs.flatMap((j) => [...j.running]));
    cancel();
    this.#abort.abort(); // whatever an evaluation left behind (a retry, a sibling lookup) ends now
  }

  /**
   * Evaluates a rule now, between its ticks (the network baseline's on-demand sweep): `running`
   * when its evaluation is already under way (that one answers; nothing is skipped or counted),
   * `unknown` when no job has that name. Its regular ticks stay where they are.
   */
  runNow(name: string): 'started' | 'running' | 'unknown' {
    const job = this.#jobs.get(name);
    if (!job || job.stopped || this.#stopping) return 'unknown';
    if (job.running.size > 0) return 'running';
    this.#fire(job);
    return 'started';
  }

  async #stopJob(job: Job): Promise<void> {
    job.stopped = true;
    job.timer?.();
    job.cron?.stop();
    job.abort.abort();
    await Promise.allSettled([...job.running]);
  }

  #add(rule: LoadedRule): void {
    const abort = new AbortController();
    this.#abort.signal.addEventListener('abort', () => abort.abort(), { once: true, signal: abort.signal });
    const job: Job = { rule, abort, running: new Set() };
    this.#jobs.set(rule.name, job);
    const { schedule } = rule;
    if ('cron' in schedule) {
      job.cron = this.#cron(job, schedule.cron);
      return;
    }
    const every = schedule.everyMs;
    const next = (first: boolean): void => {
      if (job.stopped || this.#abort.signal.aborted) return;
      const now = this.#deps.clock.now();
      const wait = (nextRun(schedule, now) ?? now + every) - now;
      // Not twice in quick succession right after the first run.
      job.timer = this.#deps.clock.setTimer(() => {
        this.#fire(job);
        next(false);
      }, first && wait < every / 2 ? wait + every : wait);
    };
    const random = this.#deps.random ?? Math.random;
    job.timer = this.#deps.clock.setTimer(() => {
      this.#fire(job);
      next(true);
    }, random() * MAX_START_JITTER_MS);
  }

  /** A tick from a timer: whatever throws is logged, as croner does for cron rules, never an unhandled rejection (which ends the process). */
  #fire(job: Job): void {
    this.#tick(job).catch((err: unknown) => this.#deps.log.error({ rule: job.rule.name, error: String(err) }, 'scheduler error'));
  }

  async #tick(job: Job): Promise<void> {
    if (job.running.size > 0) {
      const now = this.#deps.clock.mono();
      const runningForMs = now - (job.startedAt ?? now);
      this.#deps.log.warn({ rule: job.rule.name, runningForMs }, 'previous evaluation still running; skipped this one');
      // A rule held past its interval is not seeing on time: that counts as failing.
      if (runningForMs >= (periodMs(job.rule.schedule) ?? 0)) await this.#deps.onSkip?.(job.rule, runningForMs);
      return;
    }
    job.startedAt = this.#deps.clock.mono();
    const run = this.#deps.run(job.rule, job.abort.signal);
    job.running.add(run);
    try {
      await run;
    } catch {
      // The engine logged and counted it; the next tick tries again.
    } finally {
      job.running.delete(run);
    }
  }

  #cron(job: Job, pattern: string): Cron {
    const { rule } = job;
    const tick = () => this.#tick(job);
    // No croner `name`: its registry is process-global. #tick skips a run while one is going.
    const options = { catch: (err: unknown) => this.#deps.log.error({ rule: rule.name, error: String(err) }, 'scheduler error') };
    return new Cron(pattern, options, tick);
  }
}
