/**
 * delegation-end by entity (docs/design/entity-spread.md §1): a delegation is owned by its node
 * when the full spec watches that node, else by its first watched reward address, so the one
 * seen by both a node's and an address's holder is kept (and notified) once.
 */
import { narrowKeys } from '../spread.js';
import type { Spread } from '../types.js';
import { BASELINE_KEY, WINDOW_PREFIX, type DelegationState, type Spec, type State } from './schema.js';

function txOwner(st: DelegationState, full: Spec): string | undefined {
  if (full.nodeIds?.includes(st.nodeId)) return st.nodeId;
  const watched = st.rewardAddresses.map((a) => a.replace(/^[PX]-/, '')).filter((a) => full.rewardAddresses?.includes(a) ?? false);
  return watched.sort()[0];
}

function stateOwner(key: string, st: State, full: Spec): string | undefined {
  if (key.startsWith(WINDOW_PREFIX)) return key.slice(WINDOW_PREFIX.length);
  return 'nodeId' in st ? txOwner(st, full) : undefined;
}

export const spread: Spread<Spec, State> = {
  entities: (s) => [...(s.nodeIds ?? []), ...(s.rewardAddresses ?? [])],
  narrow: (s, keep) => narrowKeys(s, keep, ['nodeIds', 'rewardAddresses']),
  stateOwner,
  // A condition's key and a new or ended event's subject are the delegation's tx; window events carry `node`.
  alertOwner(a, stateOf, full) {
    const st = stateOf(a.key ?? a.subject);
    return st && 'nodeId' in st ? txOwner(st, full) : a.labels['node'];
  },
  // `_baseline` lists every baselined entity: each part keeps its own; a bare (legacy) marker covered all the full spec's.
  split(key, st, shardOf, full) {
    if (key !== BASELINE_KEY || !('baseline' in st)) return undefined;
    const out = new Map<number, State>();
    for (const e of st.entities ?? spread.entities(full) ?? []) {
      const shard = shardOf(e);
      const part = out.get(shard);
      if (part && 'baseline' in part) part.entities?.push(e);
      else out.set(shard, { baseline: true, entities: [e] });
    }
    return out;
  },
  merge(key, parts) {
    if (key !== BASELINE_KEY) return parts[0] as State;
    const lists = parts.map((p) => ('baseline' in p ? p.entities : []));
    if (lists.includes(undefined)) return { baseline: true };
    return { baseline: true, entities: [...new Set(lists.flatMap((l) => l ?? []))].sort() };
  },
};
