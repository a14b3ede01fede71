import type { Clock } from '../../base/clock.js';
import type { AlertDraft, AlertMessage, Condition } from '../../base/types.js';
import { digestSlot } from '../../channels/digest.js';
import type { LoadedRule } from '../../config/load.js';
import type { Config, TimeIntervalConfig } from '../../config/schema.js';
import { StateDiff, type NewAlert, type Silence, type StateStore } from '../../store/index.js';
import type { ActiveAlert } from '../lifecycle.js';
import { planNotifications, type Planned } from '../receivers.js';
import type { Target } from '../route.js';
import { enqueue, newAlert, type EnqueueParts } from './enqueue.js';
import { alertLabels, enrich } from './enrich.js';
import { grouped, type DigestAt } from './group.js';
import { muted } from './mute.js';
import { repeatOf, routing, shortestRepeat, type RouteOf } from './route.js';
import type { Redact } from './scrub.js';

// The alert pipeline: its stages as values, in the order they run. Its code is its
// documentation: `describeStages()` prints this list, and docs/delivery.md shows the same
// (test/docs-pipeline.test.ts compares them). Commit runs in the engine, one transaction per
// evaluation; send runs in delivery/delivery.ts, the only code that sends.

export interface StageInfo {
  name: string;
  /** Where it runs: as the alert is made and committed, or as delivery sends it. */
  at: 'commit' | 'send';
  /** The code that does it. */
  where: string;
  does: string;
}

/** A commit stage: what it does to one commit's batch, in turn. */
interface Stage extends StageInfo {
  at: 'commit';
  run(b: Batch, p: PipelineDeps): void | Promise<void>;
}

/** A stage that never waits for the store: `targetsAt` runs it where an answer is wanted at once. */
interface SyncStage extends Stage {
  run(b: Batch, p: PipelineDeps): void;
}

/** What incidents change in a commit (engine/scope.ts): the engine that keeps them gives it. */
export interface Hold {
  /** An event's labels with its `scope`. */
  scope(draft: AlertDraft, labels: Record<string, string>): Record<string, string>;
  /** Why a firing notification of this condition is held from this receiver (its incident fires there). */
  held(storeRule: string, conditionKey: string, receiver: string): string | undefined;
  /** A firing child that may still join an incident waits for it at each target. */
  patient(rule: LoadedRule, draft: AlertDraft, targets: Target[]): Target[];
}

export interface CommitInput {
  rule: LoadedRule;
  /** The name the alerts are kept under: the rule's, or its rule-failing, cause or incident alerts'. */
  storeRule: string;
  states: StateDiff;
  /** New events (not enriched yet) and the lifecycle's notifications (made of enriched conditions). */
  events?: readonly AlertDraft[];
  notifications?: readonly AlertDraft[];
  /** The rule's state alerts after the lifecycle (undefined for kinds with none). */
  active?: ActiveAlert[] | undefined;
  now: Date;
  expectRevision?: number | undefined;
  /** When the evaluation began, on the steady clock (an urgent alert's short wait counts from it). */
  startedAt?: number | undefined;
  hold?: Hold | undefined;
  /** A rule spread by entity (engine/parts.ts): its parts' writes, in place of `states`, and where each state alert is kept. */
  parts?: EnqueueParts | undefined;
}

/** One commit as it goes through the stages. */
interface Batch {
  input: CommitInput;
  /** Rows and alert times on the steady clock; silences and mute windows are a person's times, on the wall. */
  steady: number;
  silences: readonly Silence[];
  drafts: AlertDraft[];
  /** Where an alert with these labels goes, each target muted or not: built by route, mute, group and hold. */
  targetsFor: (labels: Record<string, string>) => Target[];
  held?: (conditionKey: string, receiver: string) => string | undefined;
  planned: Planned[];
  active: ActiveAlert[] | undefined;
  /** What enqueue committed, with the ids the store gave them. */
  alerts: NewAlert[];
  ids: number[];
}

const ENRICH: Stage = {
  name: 'enrich',
  at: 'commit',
  where: '`alerts/pipeline/enrich.ts`',
  does: 'the validator\'s name, the severity its news calls for, the labels, no secret in any text (conditions before their lifecycle, events here)',
  run: (b, p) => {
    b.drafts = [...(b.input.events ?? []).map((d) => enrich(b.input.rule, d, p.redact)), ...(b.input.notifications ?? [])];
  },
};

const ROUTE: SyncStage = {
  name: 'route',
  at: 'commit',
  where: '`alerts/pipeline/route.ts`',
  does: 'the route tree: each enabled receiver, its group, how often it hears again',
  run: (b, p) => {
    b.targetsFor = (labels) => p.route(b.input.rule, labels);
  },
};

const MUTE: SyncStage = {
  name: 'mute',
  at: 'commit',
  where: '`alerts/pipeline/mute.ts`',
  does: 'a silence or a mute window: the target is recorded as muted, with why, and owed when it ends',
  run: (b, p) => {
    const before = b.targetsFor;
    b.targetsFor = (labels) => muted(before(labels), labels, b.silences, p.timeIntervals, b.input.now);
  },
};

const GROUP: SyncStage = {
  name: 'group',
  at: 'commit',
  where: '`alerts/pipeline/group.ts`',
  does: 'a receiver with a digest takes the severities it digests at its next slot',
  run: (b, p) => {
    const before = b.targetsFor;
    b.targetsFor = (labels) => grouped(before(labels), labels['severity'] ?? '', b.input.now, p.clock, p.digestAt);
  },
};

const HOLD: Stage = {
  name: 'hold',
  at: 'commit',
  where: '`engine/incident-alerts.ts`',
  does: 'a firing alert of a firing incident is held from the receivers the incident reaches; one that may still join an incident waits for it',
  run: (b) => {
    const { hold, storeRule } = b.input;
    if (hold) b.held = (key, receiver) => hold.held(storeRule, key, receiver);
  },
};

const PLAN: Stage = {
  name: 'plan',
  at: 'commit',
  where: '`alerts/receivers.ts`',
  does: 'per receiver: reminders at its own interval, resends to receivers that forget, what a mute\'s end owes',
  run: (b) => {
    const { rule, hold } = b.input;
    const { planned, active } = planNotifications({
      drafts: b.drafts,
      active: b.input.active,
      now: b.steady,
      // Enriched already; a condition stored by an older version may lack rule and severity.
      labelsOf: (a) => {
        const labels = alertLabels(rule, a.labels, a.severity ?? rule.severity);
        return hold ? hold.scope(a, labels) : labels;
      },
      targetsFor: b.targetsFor,
      repeatMs: (t) => repeatOf(rule, t),
      ...(b.held ? { held: b.held } : {}),
    });
    b.planned = hold ? planned.map((x) => ({ ...x, targets: hold.patient(rule, x.draft, x.targets) })) : planned;
    b.active = active;
  },
};

const ENQUEUE: Stage = {
  name: 'enqueue',
  at: 'commit',
  where: '`alerts/pipeline/enqueue.ts`',
  does: 'states, state alerts, alert rows and one outbox row per target, in one transaction',
  run: async (b, p) => {
    const { input } = b;
    b.alerts = b.planned.map(({ draft, labels, targets }) => newAlert(input.rule, draft, labels, targets));
    b.ids = await enqueue(p.store, { storeRule: input.storeRule, states: input.states, alerts: b.alerts, now: b.steady, active: b.active, expectRevision: input.expectRevision, startedAt: input.startedAt, parts: input.parts }, p.onQueued);
  },
};

/** The commit's stages, in order. */
export const COMMIT_STAGES: readonly Stage[] = [ENRICH, ROUTE, MUTE, GROUP, HOLD, PLAN, ENQUEUE];

/** Delivery's stages (delivery/delivery.ts), in order. */
export const SEND_STAGES: readonly StageInfo[] = [
  { name: 'claim', at: 'send', where: '`store/outbox.ts`', does: 'a receiver\'s due rows, leased (another process does not take them meanwhile)' },
  { name: 'group', at: 'send', where: '`delivery/delivery.ts`', does: 'the rows of one group key become one message (a digest: one a slot)' },
  { name: 'recheck', at: 'send', where: '`alerts/pipeline/mute.ts`', does: 'every row that waited is muted again: a silence added meanwhile, or the incident it joined' },
  { name: 'send', at: 'send', where: 'the channel', does: 'one attempt, classified' },
  { name: 'retry', at: 'send', where: '`delivery/delivery.ts`', does: 'backoff, `Retry-After`, pauses, dead letters' },
];

/** The stages as docs/delivery.md shows them: a Markdown table, one stage a row, in order. */
export function describeStages(): string {
  const rows = [...COMMIT_STAGES, ...SEND_STAGES].map((s, i, all) => `| ${all[i - 1]?.at === s.at ? '' : s.at} | ${s.name} | ${s.where} | ${s.does} |`);
  return ['| side | stage | where | what |', '|---|---|---|---|', ...rows].join('\n');
}

export interface PipelineDeps {
  store: StateStore;
  clock: Clock;
  route: RouteOf;
  timeIntervals: readonly TimeIntervalConfig[];
  /** Each receiver's next digest slot for a severity (the `group` stage). */
  digestAt: DigestAt;
  /** The root route's repeatInterval: the pace of a rule with no receiver. */
  repeatIntervalMs: number;
  redact: Redact;
  /** Called after a commit that queued notifications (delivery wakes). */
  onQueued?: (() => void) | undefined;
}

/** Built once from the config: what the stages need of it. */
export function buildPipeline(config: Pick<Config, 'route' | 'receivers' | 'timeIntervals'>, o: { enabled: ReadonlySet<string>; store: StateStore; clock: Clock; redact: Redact; onQueued?: () => void }): Pipeline {
  const digests = new Map(config.receivers.map((r) => [r.name, r.digest]));
  return new Pipeline({
    store: o.store,
    clock: o.clock,
    route: routing(config, o.enabled),
    timeIntervals: config.timeIntervals,
    digestAt: (receiver, severity, now) => digestSlot(digests.get(receiver), severity, now),
    repeatIntervalMs: config.route.repeatInterval,
    redact: o.redact,
    onQueued: o.onQueued,
  });
}

export class Pipeline {
  readonly #deps: PipelineDeps;

  constructor(deps: PipelineDeps) {
    this.#deps = deps;
  }

  get redact(): Redact {
    return this.#deps.redact;
  }

  /** The `enrich` stage for a condition, before its lifecycle (or an event made outside a commit). */
  enrich<T extends AlertDraft | Condition>(rule: LoadedRule, item: T): T {
    return enrich(rule, item, this.#deps.redact);
  }

  #batch(input: CommitInput, silences: readonly Silence[]): Batch {
    return { input, steady: this.#deps.clock.mono(), silences, drafts: [], targetsFor: () => [], planned: [], active: undefined, alerts: [], ids: [] };
  }

  /** Runs the commit's stages: the notifications queued, as `once` and rule tests show them. */
  async commit(input: CommitInput): Promise<AlertMessage[]> {
    const b = this.#batch(input, await this.#deps.store.silences(input.now.getTime()));
    for (const stage of COMMIT_STAGES) await stage.run(b, this.#deps);
    const at = input.now.toISOString();
    // The targets and the condition key are for channels (read back from the outbox), the transition for the store: not `once --json`.
    return b.alerts.map(({ targets: _t, conditionKey: _k, transition: _tr, ...message }, i) => ({ ...message, alertId: b.ids[i] ?? 0, at }));
  }

  /** Where an alert with these labels goes now: the commit's own route, mute and group stages, each target with why it is muted, if it is. */
  async targets(rule: LoadedRule, labels: Record<string, string>, now: Date): Promise<Target[]> {
    return (await this.targetsAt(now))(rule, labels);
  }

  /** `targets` at one moment, the silences read once: for a caller that asks synchronously (alerts/relocate.ts). */
  async targetsAt(now: Date): Promise<(rule: LoadedRule, labels: Record<string, string>) => Target[]> {
    const silences = await this.#deps.store.silences(now.getTime());
    return (rule, labels) => {
      const b = this.#batch({ rule, storeRule: rule.name, states: new StateDiff([], []), now }, silences);
      for (const stage of [ROUTE, MUTE, GROUP]) stage.run(b, this.#deps);
      return b.targetsFor(labels);
    };
  }

  /** The enabled receivers the route tree sends these labels to (none: nobody would hear it). */
  receivers(rule: Pick<LoadedRule, 'receivers'>, labels: Record<string, string>): Target[] {
    return this.#deps.route(rule, labels);
  }

  /** The lifecycle's reminder pace for these labels: the shortest of their receivers'. */
  repeatMs(rule: LoadedRule, labels: Record<string, string>): number {
    return shortestRepeat(rule, this.#deps.route(rule, labels), this.#deps.repeatIntervalMs);
  }

  /** Commits what a reload moved or ended (app/relocate.ts): the same `enqueue`. */
  enqueue(e: Parameters<typeof enqueue>[1]): Promise<number[]> {
    return enqueue(this.#deps.store, e, this.#deps.onQueued);
  }
}
