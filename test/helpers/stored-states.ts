import type { StateStore } from '../../src/store/index.js';

/** A rule's committed states by entity, parsed: what the engine reads back at its next poll. */
export async function storedStates(store: Pick<StateStore, 'stateRows'>, rule: string): Promise<Record<string, unknown>> {
  return Object.fromEntries((await store.stateRows(rule)).rows.map((r) => [r.entity, JSON.parse(r.state) as unknown]));
}
