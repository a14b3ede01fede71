import { describe, expect, it } from 'vitest';
import { testNodeId } from '../../test/helpers/node-ids.js';
import type { ActiveAlert } from '../alerts/lifecycle.js';
import type { Target } from '../alerts/route.js';
import type { AlertDraft, Condition } from '../base/types.js';
import type { LoadedRule } from '../config/load.js';
import { incidentsSchema } from '../config/schema.js';
import type { InventoryValidator } from '../inventory/schema.js';
import type { BaselineView } from '../rules/baseline.js';
import { IncidentTracker } from './incidents.js';
import { eventScope, networksToAsk, patient, withScopes } from './scope.js';

// What incidents change in one rule's evaluation, as an operator sees it: the `scope` label of
// each alert about a validator (routes and silences match it), how long a firing one waits for
// its incident, and whether the network is asked before the news is judged.

const MIN = 60_000;
const T = 50 * MIN;
const CONFIG = incidentsSchema.parse({});

/** v1..v5 on host h1; v6 alone. */
const FLEET: InventoryValidator[] = [1, 2, 3, 4, 5, 6].map((i) => ({ name: `v${i}`, nodeId: testNodeId(`scope-${i}`), network: 'mainnet', labels: { host: i <= 5 ? 'h1' : 'h6' } }));
const id = (name: string) => (FLEET.find((v) => v.name === name) as InventoryValidator).nodeId;
const NODES = { name: 'nodes', kind: 'node-health', severity: 'critical', labels: {}, validators: Object.fromEntries(FLEET.map((v) => [v.nodeId, v])) } as unknown as LoadedRule;
const HEALTH = { ...NODES, name: 'health', kind: 'validator-health', severity: 'warning' } as LoadedRule;

function cond(v: string, check: string, labels: Record<string, string> = {}): Condition {
  return { key: `${id(v)}:${check}`, subject: id(v), summary: `${check} of ${v}`, labels: { check, node: id(v), ...labels }, details: {} };
}

function active(c: Condition, state: 'pending' | 'firing' = 'firing', startedAt = T): ActiveAlert {
  return { key: c.key, tier: '', state, startedAt, notifiedAt: null, clearedAt: null, mutedAt: null, mutedReceivers: [], notifiedReceivers: {}, condition: c };
}

function draft(c: Condition, over: Partial<AlertDraft> = {}): AlertDraft {
  return { status: 'firing', subject: c.subject, summary: c.summary, labels: c.labels, details: {}, conditionKey: c.key, ...over };
}

function view(): BaselineView {
  return { network: 'mainnet', at: 1, usable: true, why: undefined, count: 100, quantiles: {}, versions: {}, belowShare: () => 0, figureOf: () => undefined };
}

const tracker = (over: Partial<typeof CONFIG> = {}) => new IncidentTracker({ ...CONFIG, ...over }, FLEET);
const scopes = (alerts: readonly { condition?: Condition; labels?: Record<string, string> }[]) => alerts.map((a) => (a.condition?.labels ?? a.labels ?? {})['scope']);

describe('withScopes: the scope label of each alert about a validator', () => {
  it("three of host h1's validators down in one poll: each alert and its first notification say `group`; a lone validator's says `validator`", () => {
    const t = tracker();
    const down = ['v1', 'v2', 'v3', 'v6'].map((v) => cond(v, 'down'));
    const result = { active: down.map((c) => active(c)), notifications: down.map((c) => draft(c)) };
    const scoped = withScopes(t, NODES, result, [], T);
    expect(scopes(scoped.active)).toEqual(['group', 'group', 'group', 'validator']);
    expect(scopes(scoped.notifications)).toEqual(['group', 'group', 'group', 'validator']);
    expect(scoped.notifications[0]?.labels).toEqual({ check: 'down', node: id('v1'), scope: 'group' });
    // Judged, not committed: the engine commits after.
    expect(t.incidents(T)).toEqual([]);
  });

  it('an alert that fired already keeps the scope it fired with (Alertmanager knows it by its labels), one from before incidents none', () => {
    const t = tracker();
    const [v1, v2, v3] = ['v1', 'v2', 'v3'].map((v) => cond(v, 'down')) as [Condition, Condition, Condition];
    const before = [active({ ...v1, labels: { ...v1.labels, scope: 'validator' } }), active(v2), active(v3, 'pending')];
    const now = [active(v1), active({ ...v2, labels: { ...v2.labels, scope: 'group' } }), active(v3)];
    const scoped = withScopes(t, NODES, { active: now, notifications: [draft(v3)] }, before, T);
    expect(scopes(scoped.active)).toEqual(['validator', undefined, 'group']);
    expect(scoped.active[1]?.condition.labels).toStrictEqual({ check: 'down', node: id('v2') });
    expect(scopes(scoped.notifications)).toEqual(['group']);
  });

  it('resolutions, notifications of no condition and alerts about no inventory validator keep their labels', () => {
    const t = tracker();
    const down = ['v1', 'v2', 'v3'].map((v) => cond(v, 'down'));
    const stranger: Condition = { key: 'other', subject: testNodeId('stranger'), summary: 'down', labels: { check: 'down' }, details: {} };
    const resolved = draft(down[2] as Condition, { status: 'resolved' });
    const event = draft(down[0] as Condition, { status: 'event', conditionKey: undefined });
    const result = { active: [...down.map((c) => active(c)), active(stranger)], notifications: [resolved, event, draft(stranger), draft(down[1] as Condition, { conditionKey: undefined })] };
    const scoped = withScopes(t, NODES, result, [], T);
    expect(scoped.active[3]).toBe(result.active[3]);
    expect(scoped.notifications).toEqual(result.notifications);
  });

  it('nothing about an inventory validator, or incidents disabled: the evaluation as it was', () => {
    const stranger: Condition = { key: 'other', subject: testNodeId('stranger'), summary: 'down', labels: { check: 'down' }, details: {} };
    const result = { active: [active(stranger)], notifications: [draft(stranger)] };
    expect(withScopes(tracker(), NODES, result, [], T)).toBe(result);
    const mine = { active: [active(cond('v1', 'down'))], notifications: [draft(cond('v1', 'down'))] };
    expect(withScopes(tracker({ enabled: false }), NODES, mine, [], T)).toBe(mine);
  });
});

describe('eventScope: an event about a validator is its alone', () => {
  const event = draft(cond('v1', 'down'), { status: 'event' });

  it('an event naming a validator gets scope `validator`; one that has a scope keeps it', () => {
    expect(eventScope(tracker(), event, { validator: 'v1' })).toEqual({ validator: 'v1', scope: 'validator' });
    expect(eventScope(tracker(), event, { validator: 'v1', scope: 'group' })).toEqual({ validator: 'v1', scope: 'group' });
  });

  it('not an event, about no validator, no tracker or incidents disabled: labels unchanged', () => {
    expect(eventScope(tracker(), { ...event, status: 'firing' }, { validator: 'v1' })).toEqual({ validator: 'v1' });
    expect(eventScope(tracker(), event, { node: 'x' })).toEqual({ node: 'x' });
    expect(eventScope(undefined, event, { validator: 'v1' })).toEqual({ validator: 'v1' });
    expect(eventScope(tracker({ enabled: false }), event, { validator: 'v1' })).toEqual({ validator: 'v1' });
  });
});

describe('patient: a firing alert that could join an incident waits `wait` for it', () => {
  const target = (over: Partial<Target> = {}): Target => ({ receiver: 'slack', groupKey: 'g', groupWaitMs: 0, groupIntervalMs: 0, repeatMs: 0, muteTimeIntervals: [], ...over });

  it("a host's validator down waits a minute, however urgent; a muted notification or one for a digest is left as it is", () => {
    const targets = [target(), target({ receiver: 'pager', mutedBy: 'silence 7' }), target({ receiver: 'mail', digestAt: T })];
    expect(patient(tracker(), NODES, draft(cond('v1', 'down'), { severity: 'critical' }), targets)).toEqual([{ ...target(), minWaitMs: MIN }, targets[1], targets[2]]);
  });

  it('a lone validator waits only for a family the network baseline judges, and only when there is a baseline', () => {
    const t = tracker();
    expect(patient(t, HEALTH, draft(cond('v6', 'uptime')), [target()])).toEqual([target()]);
    t.swept([view()], T);
    expect(patient(t, HEALTH, draft(cond('v6', 'uptime')), [target()])).toEqual([{ ...target(), minWaitMs: MIN }]);
    expect(patient(t, NODES, draft(cond('v6', 'down')), [target()])).toEqual([target()]);
  });

  const usual: [string, Partial<AlertDraft>][] = [
    ['a resolution', { status: 'resolved' }],
    ['an event', { status: 'event' }],
    ['a reminder', { reminder: true }],
    ['a notification owed to receivers whose mute ended', { onlyReceivers: ['slack'] }],
    ['news (info)', { severity: 'info' }],
  ];
  it.each(usual)('%s is sent as usual', (_, over) => {
    expect(patient(tracker(), NODES, draft(cond('v1', 'down'), over), [target()])).toEqual([target()]);
  });

  it('`wait: 0s` or incidents disabled: nothing waits', () => {
    expect(patient(tracker({ wait: 0 }), NODES, draft(cond('v1', 'down')), [target()])).toEqual([target()]);
    expect(patient(tracker({ enabled: false }), NODES, draft(cond('v1', 'down')), [target()])).toEqual([target()]);
  });
});

describe('networksToAsk: the network is asked first about new news it may share', () => {
  it('a new uptime alert on a baseline older than `wait`: its network is swept first; the alert seen before, or a fresh baseline: not', () => {
    const t = tracker();
    const uptime = cond('v6', 'uptime');
    expect(networksToAsk(t, HEALTH, [uptime], [], T)).toEqual([]);
    t.swept([view()], T);
    expect(networksToAsk(t, HEALTH, [uptime], [], T + MIN)).toEqual([]);
    expect(networksToAsk(t, HEALTH, [uptime], [], T + 2 * MIN)).toEqual(['mainnet']);
    expect(networksToAsk(t, HEALTH, [cond('v6', 'down'), { ...uptime, subject: testNodeId('stranger'), labels: { ...uptime.labels, node: testNodeId('stranger') } }], [], T + 2 * MIN)).toEqual([]);
    t.update('health', t.childrenOf(HEALTH, [active(uptime, 'pending')]));
    expect(networksToAsk(t, HEALTH, [uptime], [active(uptime, 'pending')], T + 2 * MIN)).toEqual([]);
  });

  it('incidents disabled: never', () => {
    const t = tracker({ enabled: false });
    t.restored([view()]);
    expect(networksToAsk(t, HEALTH, [cond('v6', 'uptime')], [], T)).toEqual([]);
  });
});
