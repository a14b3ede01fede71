export class StoreError extends Error {
  override readonly name = 'StoreError';
}

/** The rule's stored state changed since the evaluation read it (another process committed): nothing was written. */
export class StateConflictError extends Error {
  override readonly name = 'StateConflictError';
}

/** A write of a shard this instance no longer holds (its lease ended or moved on): nothing was written. */
export class FencedError extends Error {
  override readonly name = 'FencedError';
}
