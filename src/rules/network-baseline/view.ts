import type { Quantiles, State } from './schema.js';

// The baseline as the incident layer reads it (issue 40, design §1–2): a network verdict needs a
// whole and fresh one; anything else is `usable: false` and each validator is judged alone.

export type Figure = 'uptime' | 'reachability' | 'benched';

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

/**
 * The view of one network's state. `ageMs` is how old the last whole sweep is, measured by the
 * caller on its steady clock (the state's `at` is a wall stamp, so it is not measured here).
 */
export function baselineView(network: string, st: State | undefined, ageMs: number | undefined, maxAgeMs: number): BaselineView {
  const w = st?.whole;
  const why = !st || !w ? 'no whole sweep yet' : !st.complete ? `stale: ${st.why ?? 'the last sweep was not whole'}` : ageMs !== undefined && ageMs > maxAgeMs ? `stale: the last whole sweep is ${Math.round(ageMs / 60_000)} min old` : undefined;
  const quantiles: BaselineView['quantiles'] = {};
  for (const f of ['uptime', 'reachability', 'benched'] as const) if (w?.[f]) quantiles[f] = w[f];
  return {
    network,
    at: w?.at,
    usable: why === undefined,
    why,
    count: w?.count ?? 0,
    quantiles,
    versions: w?.versions ?? {},
    belowShare: (f) => w?.below[f] ?? 0,
    figureOf: (nodeId) => {
      const n = w?.nodes[nodeId];
      if (!n) return undefined;
      const given = (x: number): number | undefined => (x < 0 ? undefined : x);
      return { uptime: given(n[0]), reachability: given(n[1]), benched: given(n[2]), stakePct: n[3] };
    },
  };
}
