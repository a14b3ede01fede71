import type { z } from 'zod';
import type { DataApi } from '../api/data/index.js';
import type { MetricsApi } from '../api/metrics-api.js';
import type { NodeApi } from '../api/node-api.js';
import type { ApiCall } from '../api/catalog.js';
import type { BaselineView } from './baseline.js';
import type { AlertDraft, Condition, GaugeDef, GaugeSample, Resolution } from '../base/types.js';
import type { ExpressionRunner } from './endpoint/runner.js';

export { SEVERITIES, type AlertDraft, type Condition, type GaugeDef, type GaugeSample, type News, type Resolution, type Severity } from '../base/types.js';

/**
 * A rule key an inventory validator can fill (see RuleKind.selects). `urls` and `nodeApis` both
 * map NodeID → the node's own API: a kind that cannot work without one takes `urls` (idle, or
 * an error, when none is declared), one that reads it only where declared takes `nodeApis`.
 * `subnets` is filled only when the rule asks (`subnets: from-inventory`): NodeID → the
 * validator's `subnets`.
 */
export type InventoryKey = 'nodeIds' | 'validationIds' | 'rewardAddresses' | 'urls' | 'nodeApis' | 'subnets';

export interface Evaluation<S> {
  /**
   * The complete new state of every entity the rule tracks; entities left out are dropped.
   * A Map (as `previous` is): a rule may track 100k entities, and a record of that many keys
   * is a dictionary to build, look up and walk each poll.
   */
  states: Map<string, S>;
  /**
   * The entities whose state is not the very object `previous` holds, with their new states,
   * when the kind knows them and left no entity out (rules/next-states.ts): the engine then
   * encodes and writes these alone, without walking `states`.
   */
  changed?: ReadonlyMap<string, S>;
  /** Events: delivered once each. */
  alerts: AlertDraft[];
  /** What holds now (state alerts); omitted by kinds that only send events. */
  conditions?: Condition[];
  /**
   * The present, for a condition key that stops holding now: why (a validation that ended is
   * not "back above") and the figures read now ("back at 92.1%"). Asked only for keys that
   * were active, so a kind with many entities builds nothing for the rest.
   */
  resolvedAs?: (key: string) => Resolution | undefined;
  /**
   * Entities whose lookup failed (entity → why). Each keeps its previous state in `states`
   * and raises nothing; the engine counts them and fires rule-failing for one that keeps failing.
   */
  failed?: Record<string, string>;
}

export interface ObserveContext {
  data: DataApi;
  metrics: MetricsApi;
  /** The operator's own AvalancheGo nodes (their APIs cost no compute units). The engine always gives it; a kind that reads no node never does. */
  node?: NodeApi;
  signal: AbortSignal;
  /** The evaluation's clock (simulated in rule tests). */
  now: Date;
  /**
   * The steady clock's reading (ms): a span between two reads measured on it (a burn rate)
   * is not moved by a step of the wall clock. The engine always gives it; unset, `now`'s.
   */
  steadyMs?: number;
  /** The states committed by the last evaluation (what the rule is tracking). */
  previous: ReadonlyMap<string, unknown>;
  /**
   * The rule's own expression process (endpoint rules' JSONata): one per rule, so one rule's
   * runaway never holds another's evaluation. The engine always gives one; a kind that runs
   * no expressions never reads it.
   */
  expressions?: ExpressionRunner;
  /**
   * What the kind derives from the rule's spec alone (the batches of its nodeIds), kept with
   * the rule between its polls: a reload makes new rules, and new memos. The engine always
   * gives one; without it (a kind's own tests) it is made again each poll.
   */
  memo?: RuleMemo;
}

/** Values derived from parts of one rule's spec, each made once (see ObserveContext.memo). */
export interface RuleMemo {
  /** What `make` made from `key` (an object of the spec, such as its nodeIds) the first time it was asked. */
  of<T>(key: object, make: () => T): T;
}

/**
 * A rule kind: its YAML keys, how it observes the chain, and a pure evaluation.
 * observe() does all I/O; a lookup that fails for one entity fails only that entity
 * (see lookup.ts), and observe() throws only when it saw nothing. evaluate() does no I/O.
 */
export interface RuleKind<Spec, Obs, S> {
  kind: string;
  /** Label names its alerts may carry, beside the common ones and the rule's own `labels` (what `silence add` can match). */
  labelNames: readonly string[];
  /** The kind's own keys (the common ones are added by the config loader). */
  spec: z.ZodObject;
  /**
   * The names of the details that say most about one of its alerts (a reward, an uptime, a
   * version), most telling first: a grouped post's line for the alert carries those it has.
   */
  keyDetails?: readonly string[];
  /**
   * The kind reads the rule's `for` itself (metric-threshold: a window of the series), so the
   * lifecycle does not wait it out a second time.
   */
  ownsFor?: boolean;
  /**
   * The keys `validators:` (all, or a label selector) fills from the inventory: the kind is
   * validator-scoped. Unset: the kind takes no selector. Each alert and condition such a
   * kind raises about a validator carries the exact NodeID as its `node` label: the inventory
   * entry is found by that key alone (inventory/name.ts), never read out of its text.
   */
  selects?: readonly InventoryKey[];
  /**
   * The kind reads the operator's own nodes (their APIs): a lookup that fails is news about a
   * node (down, odd), not avawatch blind (engine/health.ts leaves it out of blindness).
   */
  readsNodes?: boolean;
  /** Parses one entity's state as stored in SQLite. */
  state: z.ZodType<S>;
  /**
   * The order the kind evaluates its entities in (its nodeIds), when it has one: the engine
   * reads a rule's states back from the file in that order (the file keeps them in the key's),
   * so that after a restart each poll still walks them in order.
   */
  entityOrder?(spec: Spec): readonly string[];
  gauges: readonly GaugeDef[];
  observe(spec: Spec, ctx: ObserveContext): Promise<Obs>;
  /** Pure. `previous` is never changed in place: the engine keeps it between evaluations. */
  evaluate(previous: ReadonlyMap<string, S>, observation: Obs, now: Date, spec: Spec): Evaluation<S>;
  /** Gauges from committed state; `now` is the evaluation time (or the start, when restoring). */
  samples(spec: Spec, states: ReadonlyMap<string, S>, now: Date): GaugeSample[];
  /**
   * Levels to mark on the status page's chart of one of the kind's gauges (the reward
   * threshold, a minimum balance); `startS` is the validation's start, when the chart has one.
   */
  chartLevels?(spec: Spec, metric: string, startS: number | undefined): readonly ChartLevel[];
  /** What the node itself says, per NodeID, for its tile on the status page (node-health: its own API read from inside). */
  nodeView?(spec: Spec, states: ReadonlyMap<string, S>): Map<string, NodeView>;
  /** The network baselines its state holds (network-baseline), judged on no age: the engine measures that on its steady clock. */
  baselines?(spec: Spec, states: ReadonlyMap<string, S>): readonly BaselineView[];
  /** One line for `avawatch check`. */
  describe(spec: Spec): string;
  /** What `avawatch check` warns of in a rule that loads (node-metrics: a name no AvalancheGo exports). */
  warnings?(spec: Spec): readonly string[];
  /** The calls of one evaluation in steady state, for `avawatch check`'s budget estimate. */
  cost(spec: Spec): Cost;
  /** How the kind's work splits by entity (docs/design/entity-spread.md); unset: always rule-level. */
  spread?: Spread<Spec, S>;
}

/** What an owner mapping sees of a condition (its key) or an event (no key). */
export interface Owned {
  key?: string;
  subject: string;
  labels: Record<string, string>;
}

/**
 * A kind's entities and who owns each output row. Every output but a rule-wide one depends only
 * on its owner's previous state and observation, so evaluate(narrow(…)) gives that owner's rows.
 */
export interface Spread<Spec, S> {
  /** The spec's entities, in its order; undefined: this spec stays rule-level. */
  entities(spec: Spec): readonly string[] | undefined;
  /** The same spec over `keep`'s entities only, order kept. */
  narrow(spec: Spec, keep: (entity: string) => boolean): Spec;
  /** Owner of a state row (default: its key); undefined: rule-wide. `full` is the unnarrowed spec. */
  stateOwner?(key: string, st: S, full: Spec): string | undefined;
  /** Owner of a condition (`key` set) or event (default: `labels.node`); undefined: rule-wide. `stateOf` reads new ∪ previous. */
  alertOwner?(a: Owned, stateOf: (key: string) => S | undefined, full: Spec): string | undefined;
  /** Owner of a failed key (default: the key); undefined: rule-wide. */
  failedOwner?(key: string, stateOf: (key: string) => S | undefined, full: Spec): string | undefined;
  /** A row naming entities of several shards (delegation-end's `_baseline`): its part per shard; `merge` undoes it. */
  split?(key: string, st: S, shardOf: (entity: string) => number, full: Spec): Map<number, S> | undefined;
  merge?(key: string, parts: readonly S[]): S;
}

/** A node's own view of itself (its API), with the verdict the kind makes of it from inside and outside. */
export interface NodeView {
  network: string;
  /** As the node reports it ("avalanchego/1.14.1"). */
  version: string | undefined;
  peers: number | undefined;
  /** Chain → bootstrapped (info.isBootstrapped), in the order the rule asks. */
  bootstrapped: Record<string, boolean>;
  /** Failing health checks, by name. */
  failing: string[];
  /** The node's APIs that answer 404 (switched off). */
  off: string[];
  /** Its API answers; or not since when (unix s) and why. */
  api: { answers: true } | { answers: false; since: number; error: string };
  /** The service's view of the same node, in words, when read ("listed active, uptime 99.2%"). */
  outside: string | undefined;
  /** The verdict on a silent API from inside and outside: warning (the network still sees it), critical (down), none (unknown). */
  verdict: { tier: 'warning' | 'critical' | undefined; text: string } | undefined;
}

/** A level marked on a chart. `firm`: it takes the label of a level another rule marked at the same value. */
export interface ChartLevel {
  value: number;
  label: string;
  firm?: boolean;
}

/** The calls of one evaluation: the least it makes (first pages), and what may add to it. */
export interface Cost {
  calls: ApiCall[];
  /** What the estimate leaves out, e.g. further pages. */
  more?: string;
  /** Calls to the operator's own nodes (their APIs, their metrics): free of compute units. */
  nodeCalls?: number;
}
