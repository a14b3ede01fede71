import { describe, expect, it } from 'vitest';
import type { Condition } from '../base/types.js';
import type { LoadedRule } from '../config/load.js';
import { incidentCondition, listedAlerts } from '../incidents/condition.js';
import type { Incident } from '../incidents/types.js';
import { IncidentTracker } from './incidents.js';
import { type alert, commit, cond, CONFIG, DIP, down, FLEET, HEALTH, MIN, NODES, STAMP, T, told, uptime, viewOf } from '../../test/helpers/tracker-fleet.js';

// The incident tracker across time: a network baseline's age and staleness on the page, and
// what a restart restores (the baselines, the incidents over children still active). Its world:
// test/helpers/tracker-fleet.ts.

describe('IncidentTracker: the baselines on the page', () => {
  it('a sweep’s age counts from when it was read; within maxAge it is fresh, past it stale with its age in minutes', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    t.swept([viewOf()], T);
    expect(t.baselines(T + 20 * MIN).map((b) => [b.ageMs, b.stale])).toEqual([[20 * MIN, undefined]]);
    expect(t.baselines(T + 25.4 * MIN).map((b) => [b.ageMs, b.stale])).toEqual([[25.4 * MIN, 'stale: the last whole sweep is 25 min old']]);
  });

  it('the same sweep read again keeps its age; a view without a whole sweep keeps the last one’s; a new sweep starts again', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    t.swept([viewOf({ at: undefined })], T);
    expect(t.baselines(T).map((b) => [b.ageMs, b.stale])).toEqual([[undefined, 'no whole sweep yet']]);
    t.swept([viewOf()], T + MIN);
    t.swept([viewOf()], T + 5 * MIN);
    expect(t.baselines(T + 6 * MIN).map((b) => b.ageMs)).toEqual([5 * MIN]);
    t.swept([viewOf({ at: undefined, why: 'stale: the sweep failed: HTTP 503' })], T + 7 * MIN);
    expect(t.baselines(T + 8 * MIN).map((b) => [b.ageMs, b.stale])).toEqual([[7 * MIN, 'stale: the sweep failed: HTTP 503']]);
    t.swept([viewOf({ at: STAMP + 9 * MIN })], T + 9 * MIN);
    expect(t.baselines(T + 10 * MIN).map((b) => [b.ageMs, b.stale])).toEqual([[MIN, undefined]]);
  });

  it('a restored baseline: no age and "stale" until a new sweep is read (the restored one read again is as old as before)', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    t.restored([viewOf({ network: 'testnet' }), viewOf()]);
    const restored = [
      ['testnet', undefined, 'stale: no sweep read since avawatch started'],
      ['mainnet', undefined, 'stale: no sweep read since avawatch started'],
    ];
    expect(t.baselines(T).map((b) => [b.view.network, b.ageMs, b.stale])).toEqual(restored);
    t.swept([viewOf()], T);
    expect(t.baselines(T).map((b) => [b.view.network, b.ageMs, b.stale])).toEqual(restored);
    t.swept([viewOf({ at: STAMP + MIN })], T);
    expect(t.baselines(T).map((b) => [b.view.network, b.ageMs, b.stale])).toEqual([
      ['testnet', undefined, 'stale: no sweep read since avawatch started'],
      ['mainnet', 0, undefined],
    ]);
  });
});


describe('IncidentTracker: resumed after a restart', () => {
  /** The alert an incident fired with before the restart, and a new tracker with the same children. */
  function restarted(sweep: (t: IncidentTracker) => void, alerts: { rule: LoadedRule; active: ReturnType<typeof alert>[] }[]) {
    const before = new IncidentTracker(CONFIG, FLEET);
    sweep(before);
    for (const a of alerts) commit(before, a.rule, a.active);
    const fired = before.incidents(T).map((i) => incidentCondition(i));
    const after = new IncidentTracker(CONFIG, FLEET);
    after.restored([viewOf(DIP)]);
    for (const a of alerts) commit(after, a.rule, a.active);
    return { fired, after };
  }

  it('a network incident opens again over its members still active, though the restored baseline gives no verdict yet', () => {
    const { fired, after } = restarted((t) => t.swept([viewOf(DIP)], T), [{ rule: HEALTH, active: uptime('v6', 'v7') }]);
    expect(after.incidents(T + MIN)).toEqual([]);
    after.resume(fired[0] as Condition);
    const [incident] = after.incidents(T + MIN);
    expect(incident).toStrictEqual({
      key: 'incident:network:mainnet:validator-health/uptime',
      scope: 'network',
      network: 'mainnet',
      family: 'validator-health/uptime',
      severity: 'warning',
      members: after.childrenOf(HEALTH, uptime('v6', 'v7')),
      validators: ['v6', 'v7'],
    });
  });

  it('a host incident opens again with its group; without a stored severity it is a warning', () => {
    const { fired, after } = restarted(() => undefined, [{ rule: NODES, active: down('v1', 'v2', 'v3') }]);
    const { severity: _s, ...stored } = fired[0] as Condition;
    after.regroup([]);
    after.resume(stored);
    const [incident] = after.incidents(T);
    expect(incident).toStrictEqual({
      key: 'incident:group:mainnet:host=h1',
      scope: 'group',
      group: 'host=h1',
      network: 'mainnet',
      severity: 'warning',
      members: after.childrenOf(NODES, down('v1', 'v2', 'v3')),
      validators: ['v1', 'v2', 'v3'],
    });
  });

  it('the validators it lists are sorted, whatever order its alerts are found in', () => {
    const { fired, after } = restarted(() => undefined, [{ rule: NODES, active: down('v3', 'v1', 'v2') }]);
    after.regroup([]);
    after.resume(fired[0] as Condition);
    expect(told(after).map((i) => i.validators)).toEqual(['v1 v2 v3']);
    // Its members too: the "Alerts" line reads as it did before the restart.
    expect(after.incidents(T).map((i) => listedAlerts(incidentCondition(i)))).toEqual([['v1: node-health/down', 'v2: node-health/down', 'v3: node-health/down']]);
  });

  it('only the alerts it listed, on its network: the others stay their own; none still active: nothing opens', () => {
    const { fired, after } = restarted(() => undefined, [{ rule: NODES, active: down('v1', 'v2', 'v3') }]);
    const stored = fired[0] as Condition;
    commit(after, HEALTH, uptime('v1'));
    after.regroup([]);
    after.resume({ ...stored, details: { ...stored.details, Alerts: 'v1: node-health/down, v2: node-health/down' } });
    expect(told(after).map((i) => i.validators)).toEqual(['v1 v2']);
    expect(after.incidentOf('health', cond('v1', 'uptime').key)).toBeUndefined();

    const other = new IncidentTracker(CONFIG, []);
    commit(other, NODES, down('v1', 'v2', 'v3'));
    other.resume({ ...stored, labels: { ...stored.labels, network: 'fuji' } });
    other.resume({ ...stored, key: 'incident:group:mainnet:host=h9', details: { ...stored.details, Alerts: 'v9: node-health/down' } });
    expect(other.incidents(T)).toEqual([]);
  });

  it('a validator’s own alert or one without a scope is no incident to resume', () => {
    const { fired, after } = restarted(() => undefined, [{ rule: NODES, active: down('v1', 'v2', 'v3') }]);
    const stored = fired[0] as Condition;
    after.regroup([]);
    after.resume({ ...stored, labels: { ...stored.labels, scope: 'validator' } });
    const { scope: _s, ...unscoped } = stored.labels;
    after.resume({ ...stored, labels: unscoped });
    expect(after.incidents(T)).toEqual([]);
  });

  it('an incident open already is not replaced by its stored alert', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    commit(t, NODES, down('v1', 'v2', 'v3'));
    const stored = incidentCondition(t.incidents(T)[0] as Incident);
    commit(t, NODES, down('v1', 'v2'));
    t.resume({ ...stored, details: { ...stored.details, Alerts: 'v1: node-health/down' } });
    expect(told(t).map((i) => i.validators)).toEqual(['v1 v2']);
  });

  it('two stored incidents that listed the same alert: the first resumed holds it, the other does not open', () => {
    const t = new IncidentTracker(CONFIG, []);
    commit(t, NODES, down('v1'));
    const host = incidentCondition({ key: 'incident:group:mainnet:host=h1', scope: 'group', group: 'host=h1', network: 'mainnet', severity: 'critical', members: t.childrenOf(NODES, down('v1')), validators: ['v1'] });
    t.resume(host);
    t.resume({ ...host, key: 'incident:group:mainnet:region=eu', labels: { ...host.labels, group: 'region=eu' } });
    expect(told(t).map((i) => [i.key, i.validators])).toEqual([['incident:group:mainnet:host=h1', 'v1']]);
  });
});
