/**
 * l1-validator-balance by entity: its validationIds, else its nodeIds. A `subnetId` rule reads
 * one whole-subnet list, which every holder would read whole: it stays rule-level.
 */
import { narrowKeys } from '../spread.js';
import type { Spread } from '../types.js';
import type { Spec, State } from './schema.js';

export const spread: Spread<Spec, State> = {
  entities: (s) => (s.subnetId !== undefined ? undefined : (s.validationIds ?? s.nodeIds)),
  narrow: (s, keep) => narrowKeys(s, keep, [s.validationIds ? 'validationIds' : 'nodeIds']),
  // States are keyed by validation id; in nodeIds mode the node owns them.
  stateOwner: (key, st, full) => (full.validationIds ? key : st.nodeId),
  alertOwner: (a, _stateOf, full) => (full.validationIds ? a.labels['validation_id'] : a.labels['node']),
  // A lookup key (id or NodeID), or a validation id whose confirmGone failed.
  failedOwner: (key, stateOf, full) => (full.validationIds ? key : (stateOf(key)?.nodeId ?? key)),
};
