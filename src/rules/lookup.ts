import type { Evaluation } from './types.js';

/** One entity's lookup that failed: the reason, as text. Its state is kept and it alerts on nothing. */
export interface Failed {
  failed: string;
}

export type Outcome<T> = T | Failed;

export function isFailed(value: unknown): value is Failed {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as Failed).failed === 'string';
}

/**
 * One lookup per entity, at most `limit` in flight. A lookup that fails fails only its own
 * entity, so one broken node never blinds the rest. When every lookup fails the rule sees
 * nothing at all: that is the evaluation's failure, and the first error is thrown.
 * Shutdown (an aborted signal) is never an entity's fault: it rejects.
 */
export async function lookupEach<T>(
  entities: readonly string[],
  limit: number,
  signal: AbortSignal,
  lookup: (entity: string) => Promise<T>,
  /** The rule saw other entities already: all of these failing is not the evaluation's failure. */
  o: { partOfMore?: boolean } = {},
): Promise<Record<string, Outcome<T>>> {
  // Keys are the rule's own entities (NodeIDs, addresses, batch numbers), never chain text.
  const out: Record<string, Outcome<T>> = {};
  let first: { error: unknown } | undefined;
  let next = 0;
  async function worker(): Promise<void> {
    while (next < entities.length) {
      const entity = entities[next++] as string;
      // Inline rather than attempt(): at 100k entities every extra await shows.
      try {
        out[entity] = await lookup(entity);
      } catch (error) {
        signal.throwIfAborted();
        first ??= { error };
        out[entity] = { failed: error instanceof Error ? error.message : String(error) };
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, entities.length) }, worker));
  if (first && !o.partOfMore && entities.length > 0 && entities.every((e) => isFailed(out[e]))) throw first.error;
  return out;
}

/** One lookup whose failure is its entity's alone; shutdown (an aborted signal) still rejects. */
export async function attempt<T>(signal: AbortSignal, lookup: () => Promise<T>, onError?: (error: unknown) => void): Promise<Outcome<T>> {
  try {
    return await lookup();
  } catch (error) {
    signal.throwIfAborted();
    onError?.(error);
    return { failed: error instanceof Error ? error.message : String(error) };
  }
}

/** A failed entity keeps the state it had (none, before its baseline) and is named in `failed`. */
export function keepFailed<S>(result: Evaluation<S>, entity: string, before: S | undefined, why: string): void {
  if (before !== undefined) result.states.set(entity, before);
  (result.failed ??= {})[entity] = why;
}
