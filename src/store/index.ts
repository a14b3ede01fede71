// The state store: what avawatch keeps between polls and restarts. Callers type against
// StateStore (types.ts); the App and the commands open the configured one through openStore:
// SQLite (sqlite.ts) by default, PostgreSQL (postgres/) with `state.url`.
// The only layer with SQL.

export { FencedError, StateConflictError, StoreError } from './errors.js';
export { SqliteStore } from './sqlite.js';
export { openStore, type StateLocation } from './open-store.js';
export { DIGEST_GROUP, StateDiff } from './types.js';
export type {
  ActiveRow,
  BudgetAsk,
  BudgetGrant,
  BudgetReturn,
  CommitPart,
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
  ShardFence,
  SharedBudget,
  SharedShards,
  Silence,
  StateRows,
  StateStore,
  TimelineQuery,
} from './types.js';
