import type { Severity } from '../base/types.js';

// The contract between the network baseline (a rule kind's state), incident detection (pure,
// this folder) and the engine that holds children while their incident fires (issue 40).
// Shares are fractions (0..1); a validator's figures are percents (0..100), as the service gives them.

/** The baseline's figures a family is judged on. */
export const BASELINE_METRICS = ['uptime', 'reachability', 'benched'] as const;
export type BaselineMetric = (typeof BASELINE_METRICS)[number];

export interface Quantiles {
  p10: number;
  p50: number;
  p90: number;
}

/** One validator's figures in the last sweep. */
export interface NodeFigures {
  uptime: number;
  reach: number;
  /** The highest of its benched P/X/C shares. */
  benched: number;
  /** Its share of the network's active stake, in percent (the service's `stakePercentage`). */
  stakePct: number;
}

/**
 * One network's last sweep of the whole active validator list. An interface, so the
 * network-baseline kind's state (below the incidents layer) satisfies it without importing it.
 */
export interface Baseline {
  network: string;
  /** When the sweep finished, on the clock the detector's `now` is read from (monotonic). */
  at: number;
  /** False for a failed, partial or shrunken (< 90 % of the last whole) sweep: no network verdict. */
  complete: boolean;
  count: number;
  quantiles: Record<BaselineMetric, Quantiles>;
  /** Validators by AvalancheGo version ("1.14.1" → 812). */
  versions: Readonly<Record<string, number>>;
  figureOf(nodeId: string): NodeFigures | undefined;
  /** The share (0..1) of the network's stake under the metric's alert threshold. */
  belowShare(metric: BaselineMetric): number;
}

/** Which incident an alert belongs to, if any: the label `scope` of every alert about a validator. */
export type Scope = 'network' | 'group' | 'validator';

/** One active child alert about one of the operator's validators. */
export interface ChildRef {
  rule: string;
  key: string;
  /** `kind/check` (`validator-health/uptime`), or `kind/alertname` for kinds without checks. */
  family: string;
  network: string;
  /** The validator's inventory name. */
  validator: string;
  nodeId: string;
  state: 'pending' | 'firing';
  /** When the condition started to hold, on the detector's clock. */
  since: number;
  severity: Severity;
}

export interface Incident {
  /** Stable while it lasts: `incident:group:mainnet:host=h1`, `incident:network:mainnet:validator-health/uptime`. */
  key: string;
  scope: 'group' | 'network';
  /** `label=value` of a group incident. */
  group?: string;
  network: string;
  /** The baseline family of a network incident. */
  family?: string;
  severity: Severity;
  /** Its children, sorted by validator, rule, key. */
  members: ChildRef[];
  /** The validators it lists (inventory names, sorted). */
  validators: string[];
  /** Share (0..1) of the network's stake affected; undefined without a baseline that knows it. */
  networkShare?: number;
  /** Share (0..1) of the operator's stake on that network affected; undefined while a stake is unknown. */
  ownShare?: number;
}

/** What the engine and the page ask of the detection (built by the engine, helper C of issue 40). */
export interface IncidentView {
  scopeOf(child: Pick<ChildRef, 'rule' | 'key'>): Scope;
  /** Why a firing child's notification to this receiver is held back, or undefined; never for a resolution. */
  heldFor(labels: Readonly<Record<string, string>>, status: 'firing' | 'resolved', receiver: string): string | undefined;
  incidents(): readonly Incident[];
}
