import type { ClockSteps } from '../base/clock-steps.js';
import type { Clock } from '../base/clock.js';
import type { Logger } from '../base/log.js';
import type { AlertMessage } from '../base/types.js';
import type { LoadedRule } from '../config/load.js';
import type { Engine } from '../engine/engine.js';
import { errorText } from '../engine/engine.js';
import type { FailureCounts } from '../engine/failing.js';
import type { Sampler } from '../history/sampler.js';
import { ruleKind } from '../rules/registry.js';
import { validatorResults, type ValidatorResult } from './results.js';

export interface RunsDeps {
  /** The engine now (a reload may swap it). */
  engine: () => Engine;
  sampler: Sampler;
  failures: FailureCounts;
  steps: ClockSteps;
  clock: Clock;
  log: Logger;
  /** history.sampleEvery now. */
  sampleEveryMs: () => number;
  /** Whether this instance evaluates the rule now (shared state: it holds the rule's shard); default all. */
  holds?: (rule: string) => boolean;
}

/**
 * One evaluation as the scheduler and `once` run it: the clock looked at, the engine's
 * evaluation, then the history's samples when due. Marks the rule as having looked.
 */
export class Runs {
  readonly #deps: RunsDeps;
  /** Rules evaluated (or failed) at least once since start, or since a reload added them. */
  readonly looked = new Set<string>();

  constructor(deps: RunsDeps) {
    this.#deps = deps;
  }

  async run(rule: LoadedRule, signal: AbortSignal): Promise<AlertMessage[]> {
    // Another instance holds its shard (app/shards.ts): it evaluates the rule, not this one.
    if (this.#deps.holds?.(rule.name) === false) return [];
    this.#deps.steps.check();
    try {
      const alerts = await this.#deps.engine().evaluate(rule, signal);
      await this.#sample(rule);
      return alerts;
    } finally {
      // Shutdown or a reload cut it short: the rule has not looked yet.
      if (!signal.aborted) this.looked.add(rule.name);
    }
  }

  /** Evaluates the rules once each, in order: their alerts, failures and `once --json` results. */
  async once(rules: readonly LoadedRule[]): Promise<{ alerts: AlertMessage[]; failures: Array<{ rule: string; error: unknown }>; results: ValidatorResult[] }> {
    const alerts: AlertMessage[] = [];
    const results: ValidatorResult[] = [];
    const failures: Array<{ rule: string; error: unknown }> = [];
    const signal = new AbortController().signal;
    for (const rule of rules) {
      try {
        alerts.push(...(await this.run(rule, signal)));
        const view = this.#deps.engine().view(rule.name);
        if (view) results.push(...validatorResults(rule, view));
      } catch (error) {
        failures.push({ rule: rule.name, error });
      }
    }
    return { alerts, failures, results };
  }

  forget(rule: string): void {
    this.looked.delete(rule);
    this.#deps.sampler.forget(rule);
  }

  /** After a committed evaluation (never a failed one): the figures the history keeps, when due. */
  async #sample(rule: LoadedRule): Promise<void> {
    const { sampler, engine, failures, clock, log } = this.#deps;
    try {
      await sampler.sample({
        rule: rule.name,
        gauges: ruleKind(rule.kind).gauges.map((g) => g.name),
        samplesOf: (metric) => engine().ruleSamples(rule.name, metric),
        failing: () => new Set(failures.entities(rule.name).map((e) => e.entity)),
        // Samples are kept on the steady clock, as alerts are: sampleEvery and history.keep are ages.
        now: clock.mono(),
        everyMs: this.#deps.sampleEveryMs(),
      });
    } catch (err) {
      log.error({ rule: rule.name, error: errorText(err) }, 'could not sample the history; tried again after the next evaluation');
    }
  }
}
