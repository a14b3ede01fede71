// The network baseline as the engine, the incident layer and the page read it (issue 40): the
// network-baseline kind makes it from its state; a network verdict needs a whole, fresh one.

export type Figure = 'uptime' | 'reachability' | 'benched';

export interface Quantiles {
  p10: number;
  p50: number;
  p90: number;
}

export interface NodeFigures {
  uptime: number | undefined;
  reachability: number | undefined;
  benched: number | undefined;
  /** The validator's share (%) of the sweep's stake. */
  stakePct: number;
}

export interface BaselineView {
  network: string;
  /** When the last whole sweep was read (unix ms, a stamp), if there is one. */
  at: number | undefined;
  /** The last sweep was whole and it is not older than `maxAgeMs`: a network verdict may use it. */
  usable: boolean;
  /** Why it is not usable, in words for the page ("stale: the sweep failed: …"). */
  why: string | undefined;
  count: number;
  quantiles: Partial<Record<Figure, Quantiles>>;
  versions: Readonly<Record<string, number>>;
  /** Share (%) of the network's stake below the rule's threshold of a figure. */
  belowShare(figure: Figure): number;
  figureOf(nodeId: string): NodeFigures | undefined;
}
