import { advance, readActive, type ActiveAlert } from '../alerts/lifecycle.js';
import type { Pipeline } from '../alerts/pipeline/index.js';
import type { Clock } from '../base/clock.js';
import type { Logger } from '../base/log.js';
import type { AlertMessage, Condition } from '../base/types.js';
import type { LoadedRule } from '../config/load.js';
import { INCIDENT_ALERTNAME, INCIDENT_PREFIX, incidentCondition, listedValidators } from '../incidents/condition.js';
import type { Incident } from '../incidents/types.js';
import { ruleKind } from '../rules/registry.js';
import { StateDiff, type StateStore } from '../store/index.js';
import { CAUSE_RULE } from './cause.js';
import { errorText } from './failing-alerts.js';
import type { IncidentTracker } from './incidents.js';
import { ownOptions } from './lifecycle-options.js';
import { eventScope, networksToAsk, patient } from './scope.js';
import { loadActive } from './states.js';

export interface IncidentDeps {
  store: StateStore;
  pipeline: Pipeline;
  clock: Clock;
  log: Logger;
  incidents: IncidentTracker;
  /** A child that may be network-wide appeared and the network's baseline is old: sweep it now, before the child is committed (capped by the app). */
  sweepFirst?: ((networks: readonly string[], signal: AbortSignal) => Promise<void>) | undefined;
  /** A commit made here outside the rule's evaluation: its kept states move to the next revision. */
  committed: (rule: string) => Promise<void>;
}

/**
 * Incidents' side of the engine (issue 40, docs/incidents.md): the network asked before news
 * is judged, each incident's one alert, and the alerts it held back owed when it ends.
 */
export class IncidentAlerts {
  readonly #deps: IncidentDeps;
  /** Incidents with an alert in the store; read from the store at first use. */
  #stored: Set<string> | undefined;

  constructor(deps: IncidentDeps) {
    this.#deps = deps;
  }

  /** What the pipeline's `hold` stage asks of the incidents. */
  readonly hold = {
    scope: (draft: Parameters<typeof eventScope>[1], labels: Record<string, string>) => eventScope(this.#deps.incidents, draft, labels),
    held: (storeRule: string, key: string, receiver: string) => this.#deps.incidents.heldFor(storeRule, key, receiver),
    patient: (rule: LoadedRule, draft: Parameters<typeof patient>[2], targets: Parameters<typeof patient>[3]) => patient(this.#deps.incidents, rule, draft, targets),
  };

  /** New news the network may share, on an old baseline: the network is asked (swept) before the news is judged. */
  async askNetwork(rule: LoadedRule, conditions: readonly Condition[], before: readonly ActiveAlert[], signal: AbortSignal): Promise<void> {
    const { incidents, sweepFirst } = this.#deps;
    const networks = sweepFirst ? networksToAsk(incidents, rule, conditions, before, this.#deps.clock.mono()) : [];
    if (networks.length === 0) return;
    await sweepFirst?.(networks, signal);
    signal.throwIfAborted();
  }

  /** After a rule's commit: its children and baselines, then every incident. Never fails the evaluation: it is committed. */
  async after(rule: LoadedRule, active: readonly ActiveAlert[] | undefined, states: ReadonlyMap<string, unknown>, startedAt: number, now: Date, rules: () => Iterable<LoadedRule>): Promise<AlertMessage[]> {
    const { incidents } = this.#deps;
    try {
      if (active) incidents.update(rule.name, incidents.childrenOf(rule, active));
      const baselines = ruleKind(rule.kind).baselines?.(rule.spec, states);
      if (baselines) incidents.swept(baselines, startedAt);
      return await this.#sync(now, rules);
    } catch (e) {
      this.#deps.log.error({ rule: rule.name, error: errorText(e) }, 'could not update the incidents');
      return [];
    }
  }

  /** Each incident's one alert: fires when detection raises it, lists its validators, resolves when its last child does. */
  async #sync(now: Date, rules: () => Iterable<LoadedRule>): Promise<AlertMessage[]> {
    const { incidents, store, log } = this.#deps;
    if (!this.#stored) {
      this.#stored = new Set((await store.ruleNames()).filter((n) => n.startsWith(INCIDENT_PREFIX)).map((n) => n.slice(INCIDENT_PREFIX.length)));
      // After a restart: those that fired hold on while their members do.
      for (const key of this.#stored) {
        for (const row of await store.loadActive(INCIDENT_PREFIX + key)) {
          const a = readActive(row);
          if (!('invalid' in a) && a.state === 'firing') incidents.resume(a.condition);
        }
      }
    }
    const raised = new Map(incidents.incidents(this.#deps.clock.mono()).map((i) => [i.key, i]));
    let ended = false;
    const out: AlertMessage[] = [];
    for (const key of new Set([...raised.keys(), ...this.#stored])) {
      try {
        const step = await this.#advance(key, raised.get(key), now);
        out.push(...step.messages);
        ended ||= step.ended;
      } catch (e) {
        log.error({ incident: key, error: errorText(e) }, 'could not update the alert of an incident');
      }
    }
    if (ended) out.push(...(await this.#replanHeld(now, rules)));
    return out;
  }

  /** Its notifications, and whether its alert stopped firing (its held children are owed their notification). */
  async #advance(key: string, incident: Incident | undefined, now: Date): Promise<{ messages: AlertMessage[]; ended: boolean }> {
    const { incidents, store, pipeline, clock } = this.#deps;
    const storeRule = INCIDENT_PREFIX + key;
    const rule = { name: CAUSE_RULE, kind: INCIDENT_ALERTNAME, severity: incident?.severity ?? 'warning', labels: {} } as unknown as LoadedRule;
    const active = await loadActive(store, rule.name, storeRule);
    const was = active.find((a) => a.key === key);
    if (!incident && active.length === 0) {
      this.#stored?.delete(key);
      return { messages: [], ended: false };
    }
    let condition = incident && pipeline.enrich(rule, incidentCondition(incident, listedValidators(was?.condition)));
    // Its labels as it fired (a worse member changes its text, never its identity).
    if (condition && was?.state === 'firing') condition = { ...condition, labels: was.condition.labels, severity: was.condition.severity };
    const lifecycle = advance(active, condition ? [condition] : [], clock.mono(), ownOptions(rule, pipeline));
    const messages = await pipeline.commit({ rule, storeRule, states: new StateDiff([], []), notifications: lifecycle.notifications, active: lifecycle.active, now, hold: this.hold });
    const after = lifecycle.active.find((a) => a.key === key);
    if (after?.state === 'firing' && incident && condition) {
      // Held only from the receivers it reaches now (a silenced incident holds nothing back there).
      const receivers = (await pipeline.targets(rule, condition.labels, now)).filter((t) => !t.mutedBy).map((t) => t.receiver);
      incidents.firing(incident, receivers, condition.summary);
    } else if (incident) incidents.firing(incident, undefined, '');
    else incidents.firing({ key } as Incident, undefined, '');
    if (lifecycle.active.length > 0) this.#stored?.add(key);
    else this.#stored?.delete(key);
    return { messages, ended: was?.state === 'firing' && after?.state !== 'firing' };
  }

  /** An incident ended: its children still firing are notified now to the receivers they were held from, not at their next poll. */
  async #replanHeld(now: Date, rules: () => Iterable<LoadedRule>): Promise<AlertMessage[]> {
    const { store, pipeline, log } = this.#deps;
    const out: AlertMessage[] = [];
    for (const rule of rules()) {
      const active = await loadActive(store, rule.name);
      if (!active.some((a) => a.state === 'firing' && a.mutedReceivers.length > 0)) continue;
      try {
        out.push(...(await pipeline.commit({ rule, storeRule: rule.name, states: new StateDiff([], []), active, now, hold: this.hold })));
        await this.#deps.committed(rule.name);
      } catch (e) {
        log.error({ rule: rule.name, error: errorText(e) }, 'could not notify the alerts an incident held back');
      }
    }
    return out;
  }
}
