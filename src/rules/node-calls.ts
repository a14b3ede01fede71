import { NodeApiError } from '../api/node-api.js';

// One call of a node's API, settled: node-health and node-upgrade read several calls of one node
// side by side, and one failing call leaves that figure unknown, never the node lost.

/** A node call's answer, or the error it gave. */
export type Read<T> = { ok: T } | { error: NodeApiError };

/** The call's answer or its error; a shutdown (the signal aborted) still throws. */
export async function settle<T>(call: () => Promise<T>, signal: AbortSignal): Promise<Read<T>> {
  try {
    return { ok: await call() };
  } catch (err) {
    signal.throwIfAborted();
    return { error: err instanceof NodeApiError ? err : new NodeApiError(String(err), 'invalid') };
  }
}
