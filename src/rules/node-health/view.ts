import type { NodeView } from '../types.js';
import { outsideText } from './checks.js';
import type { Spec, State } from './schema.js';

// What the node says of itself, for its tile: the figures its last answer gave (they hold while
// it is silent, as the checks hold them) and, while its API is silent, the rule's verdict in words.

export function nodeView(s: Spec, states: ReadonlyMap<string, State>): Map<string, NodeView> {
  const out = new Map<string, NodeView>();
  for (const [node, st] of states) {
    out.set(node, {
      network: s.network,
      version: st.version,
      peers: st.peers,
      // The chains the rule asks, in its order; a chain no longer asked is not shown.
      bootstrapped: Object.fromEntries(s.chains.filter((c) => st.bootstrapped?.[c] !== undefined).map((c) => [c, st.bootstrapped?.[c] === true])),
      failing: Object.keys(st.failing ?? {}).sort(),
      off: st.off ?? [],
      api: st.unreachableSince === undefined ? { answers: true } : { answers: false, since: st.unreachableSince, error: st.unreachable ?? 'no answer' },
      outside: s.outside === false || st.outside === undefined ? undefined : outsideText(st),
      verdict: st.apiVerdict === undefined ? undefined : verdictText(st.apiVerdict),
    });
  }
  return out;
}

function verdictText(v: NonNullable<State['apiVerdict']>): NonNullable<NodeView['verdict']> {
  if (v.tier === 'critical') return { tier: v.tier, text: `the node is down: ${v.why ?? 'the network does not see it either'}` };
  if (v.tier === 'warning' && v.view.startsWith('unknown')) return { tier: v.tier, text: `nothing tells whether the node is up (${v.view})` };
  if (v.tier === 'warning') return { tier: v.tier, text: `the network still sees it (${v.view}): the path to its API is broken` };
  return { tier: undefined, text: `the network's view is ${v.view}` };
}
