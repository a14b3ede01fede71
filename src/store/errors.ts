export class StoreError extends Error {
  override readonly name = 'StoreError';
}

/** The rule's stored state changed since the evaluation read it (another process committed): nothing was written. */
export class StateConflictError extends Error {
  override readonly name = 'StateConflictError';
}
