import type { ActiveRow, NewAlert, OutboxTarget, StateStore } from './types.js';

// What the contract's tests (contract.ts) share.

/** Opens a store over the state called `place`, closed after the test. */
export type Opened = (place: string) => Promise<StateStore>;

export const HOUR = 3_600_000;

export const to = (receiver: string, over: Partial<OutboxTarget> = {}): OutboxTarget => ({ receiver, groupKey: 'g', groupWaitMs: 0, groupIntervalMs: 0, ...over });

export const alert: NewAlert = {
  rule: 'r',
  kind: 'a-kind',
  status: 'event',
  severity: 'critical',
  subject: 'NodeID-1',
  summary: 'changed',
  labels: { node: 'NodeID-1' },
  details: { Change: 'a → b' },
  targets: [to('slack-a'), to('slack-b')],
};

export function event(over: Partial<NewAlert>): NewAlert {
  return { rule: 'status', kind: 'a-kind', status: 'event', severity: 'info', subject: 'NodeID-A', summary: 'x', labels: { node: 'NodeID-A' }, details: {}, targets: [], ...over };
}

export function active(key: string, over: Partial<ActiveRow> = {}): ActiveRow {
  return { key, tier: '', state: 'firing', startedAt: 1_000, notifiedAt: 1_000, clearedAt: null, mutedAt: null, mutedReceivers: [], notifiedReceivers: {}, condition: { key }, ...over };
}

/** The rule's states by entity, parsed. */
export async function states(store: StateStore, rule: string): Promise<Record<string, unknown>> {
  return Object.fromEntries((await store.stateRows(rule)).rows.map((r) => [r.entity, JSON.parse(r.state) as unknown]));
}
