// The state store: what avawatch keeps between polls and restarts. Callers type against
// StateStore (types.ts); the App and the commands open the SQLite implementation (sqlite.ts).
// The only layer with SQL.

export { StateConflictError, StoreError } from './errors.js';
export { SqliteStore } from './sqlite.js';
export { DIGEST_GROUP, StateDiff } from './types.js';
export type {
  ActiveRow,
  DeadLetters,
  FileSpace,
  HistoryEntry,
  Matcher,
  NewAlert,
  OutboxListRow,
  OutboxRow,
  OutboxState,
  OutboxTarget,
  ReceiverStats,
  Sample,
  Silence,
  StateRows,
  StateStore,
  TimelineQuery,
} from './types.js';
