import type { BaselineView } from '../baseline.js';
import type { State } from './schema.js';

// The baseline as the incident layer reads it (issue 40, design §1–2): a network verdict needs a
// whole and fresh one; anything else is `usable: false` and each validator is judged alone.

export type { BaselineView, Figure, NodeFigures } from '../baseline.js';

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
