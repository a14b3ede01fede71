import { describe, expect, it } from 'vitest';
import { testNodeId } from '../../test/helpers/node-ids.js';
import type { LoadedRule } from '../config/load.js';
import { incidentCondition } from '../incidents/condition.js';
import type { Incident } from '../incidents/types.js';
import { IncidentTracker } from './incidents.js';
import { alert, commit, cond, CONFIG, DIP, down, FLEET, HEALTH, id, MIN, NODES, Q, ruleOf, STAMP, T, told, uptime, viewOf } from '../../test/helpers/tracker-fleet.js';


// The engine's incident tracker as an operator meets it: which incidents hold (one alert per
// host, one per network-wide dip), what their alert says, which children it holds back, and
// whether the network is asked first. Steady clock in ms; sweeps are stamped apart. Its world:
// test/helpers/tracker-fleet.ts; a baseline's age and what a restart restores:
// incidents-restore.spec.ts.

describe('IncidentTracker: one incident per host', () => {
  it('three validators of host h1 down at once: one incident of h1, as bad as its worst member, its alert naming the host', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    commit(t, NODES, down('v1', 'v2'));
    commit(t, HEALTH, [alert(cond('v3', 'uptime')), alert(cond('v6', 'uptime'))]);
    expect(told(t)).toEqual([{ key: 'incident:group:mainnet:host=h1', severity: 'critical', validators: 'v1 v2 v3', summary: 'host h1 on mainnet: 3 validators' }]);
    const [incident] = t.incidents(T) as [Incident];
    expect(incident.members.map((m) => `${m.validator}: ${m.family} ${m.severity}`)).toEqual(['v1: node-health/down critical', 'v2: node-health/down critical', 'v3: validator-health/uptime warning']);
    expect(incidentCondition(incident).labels).toEqual({ alertname: 'incident', rule: 'avawatch', scope: 'group', group: 'host=h1', network: 'mainnet', severity: 'critical' });
    expect(t.incidentOf('nodes', cond('v1', 'down').key)).toBe('incident:group:mainnet:host=h1');
    expect(t.incidentOf('health', cond('v6', 'uptime').key)).toBeUndefined();
  });

  it('two of them are no incident; pending alerts (inside their `for`) or starts further apart than the window neither', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    commit(t, NODES, down('v1', 'v2'));
    expect(t.incidents(T)).toEqual([]);
    commit(t, NODES, ['v1', 'v2', 'v3'].map((v) => alert(cond(v, 'down'), 'pending')));
    expect(t.incidents(T)).toEqual([]);
    commit(t, NODES, ['v1', 'v2', 'v3'].map((v, i) => alert(cond(v, 'down'), 'firing', T - i * 6 * MIN)));
    expect(t.incidents(T)).toEqual([]);
    commit(t, NODES, ['v1', 'v2', 'v3'].map((v, i) => alert(cond(v, 'down'), 'firing', T - i * 4 * MIN)));
    expect(told(t).map((i) => i.key)).toEqual(['incident:group:mainnet:host=h1']);
  });

  it("a child's severity is its condition's, else its rule's; info is news, not trouble, and makes no incident", () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    commit(t, HEALTH, [alert(cond('v1', 'uptime', { severity: 'critical' })), ...uptime('v2', 'v3')]);
    expect(told(t).map((i) => i.severity)).toEqual(['critical']);
    commit(t, HEALTH, uptime('v1', 'v2', 'v3'));
    expect(told(t).map((i) => i.severity)).toEqual(['warning']);
    const info = ruleOf('news', 'validator-health', 'info');
    commit(t, HEALTH, []);
    commit(t, info, uptime('v1', 'v2', 'v3'));
    expect(t.incidents(T)).toEqual([]);
    commit(t, info, ['v1', 'v2', 'v3'].map((v) => alert(cond(v, 'uptime', { severity: 'warning' }))));
    expect(told(t).map((i) => i.severity)).toEqual(['warning']);
  });

  it("a child's family is its kind and check, else its alertname, else its kind alone: what the incident's alert lists", () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    commit(t, HEALTH, [alert(cond('v1', 'uptime')), alert(cond('v2', undefined, { labels: { node: id('v2'), alertname: 'stale' } })), alert(cond('v3', undefined))]);
    const [incident] = t.incidents(T) as [Incident];
    expect(incidentCondition(incident).details['Alerts']).toBe('v1: validator-health/uptime, v2: validator-health/stale, v3: validator-health/validator-health');
  });

  it('alerts about no inventory validator (another node, or a rule without validators) make no children', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    const stranger = testNodeId('stranger');
    const alerts = [1, 2, 3].map((i) => alert({ ...cond('v1', 'down'), key: `k${i}`, subject: stranger, labels: { node: stranger, check: 'down' } }));
    expect(t.childrenOf(NODES, alerts)).toEqual([]);
    expect(t.childrenOf({ ...NODES, validators: undefined } as LoadedRule, down('v1', 'v2', 'v3'))).toEqual([]);
    // Named by its `node` label rather than its subject: still that validator.
    expect(t.childrenOf(NODES, [alert({ ...cond('v1', 'down'), subject: 'h1', labels: { node: id('v1'), check: 'down' } })]).map((c) => c.validator)).toEqual(['v1']);
    // By that label only: a NodeID in the subject, the summary or an entity label names no validator.
    const textOnly = { ...cond('v1', 'down'), labels: { check: 'down', entity: id('v2') }, summary: `down: ${id('v3')}` };
    expect(t.childrenOf(NODES, [alert(textOnly)])).toEqual([]);
    expect(t.childrenOf(NODES, [alert({ ...textOnly, labels: { ...textOnly.labels, node: id('v1') } })]).map((c) => c.validator)).toEqual(['v1']);
  });

  it('testnet validators are on fuji: their incident, its network and their baseline are fuji’s', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    commit(t, NODES, down('f1', 'f2'));
    expect(told(t)).toEqual([{ key: 'incident:group:fuji:host=lab', severity: 'critical', validators: 'f1 f2', summary: 'host lab on fuji: 2 validators' }]);
    expect(t.childrenOf(NODES, down('f1')).map((c) => c.network)).toEqual(['fuji']);
    t.swept([viewOf({ network: 'testnet' })], T - 10 * MIN);
    expect(t.baselines(T).map((b) => b.view.network)).toEqual(['testnet']);
    expect(t.wantsSweep('health', t.childrenOf(HEALTH, uptime('f1')), T)).toEqual(['fuji']);
  });

  it('the severity and members a child has when committed: a worse one later makes the incident worse', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    commit(t, HEALTH, uptime('v1', 'v2', 'v3'));
    expect(told(t).map((i) => i.severity)).toEqual(['warning']);
    commit(t, HEALTH, [...uptime('v1', 'v2'), alert(cond('v3', 'uptime', { severity: 'critical' }))]);
    expect(told(t).map((i) => i.severity)).toEqual(['critical']);
  });
});

describe('IncidentTracker: an incident lasts until its last child ends', () => {
  it('holds while one member is active (not re-notified one by one when fewer than k remain), then ends', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    commit(t, NODES, down('v1', 'v2', 'v3'));
    expect(told(t).map((i) => i.validators)).toEqual(['v1 v2 v3']);
    commit(t, NODES, down('v3', 'v1'));
    expect(told(t)).toEqual([{ key: 'incident:group:mainnet:host=h1', severity: 'critical', validators: 'v1 v3', summary: 'host h1 on mainnet: 2 validators' }]);
    expect(t.incidentOf('nodes', cond('v3', 'down').key)).toBe('incident:group:mainnet:host=h1');
    expect(t.incidentOf('nodes', cond('v2', 'down').key)).toBeUndefined();
    commit(t, NODES, []);
    expect(t.incidents(T)).toEqual([]);
    expect(t.incidentOf('nodes', cond('v1', 'down').key)).toBeUndefined();
  });

  it('a member left over that a network-wide dip now claims leaves its host incident: each child in one incident only', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    commit(t, HEALTH, uptime('v1', 'v2', 'v3'));
    commit(t, NODES, down('v4'));
    expect(told(t).map((i) => i.validators)).toEqual(['v1 v2 v3 v4']);
    t.swept([viewOf({ below: { uptime: 70 }, figures: { v1: { uptime: 60 } } })], T);
    expect(told(t).map((i) => [i.key, i.validators])).toEqual([
      ['incident:network:mainnet:validator-health/uptime', 'v1 v2 v3'],
      ['incident:group:mainnet:host=h1', 'v4'],
    ]);
    commit(t, NODES, []);
    expect(told(t).map((i) => i.key)).toEqual(['incident:network:mainnet:validator-health/uptime']);
  });

  it('a reload moves a validator off the host: the host incident lists its members now; the one moved is judged alone', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    commit(t, NODES, down('v1', 'v2', 'v3'));
    t.incidents(T);
    t.regroup(FLEET.map((v) => (v.name === 'v1' ? { ...v, labels: { host: 'h9' } } : v)));
    commit(t, NODES, down('v1', 'v2', 'v3', 'v4'));
    expect(told(t).map((i) => [i.key, i.validators])).toEqual([['incident:group:mainnet:host=h1', 'v2 v3 v4']]);
    expect(t.incidentOf('nodes', cond('v1', 'down').key)).toBeUndefined();
  });

  it('forget: a rule removed by a reload takes its children out, and the incident they made ends', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    commit(t, NODES, down('v1', 'v2', 'v3'));
    expect(t.incidents(T)).toHaveLength(1);
    t.forget('nodes');
    expect(t.incidents(T)).toEqual([]);
  });

  it('regroup after a reload: the incident open now is kept while its members are active; the new groups judge what comes next', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    commit(t, NODES, down('v1', 'v2', 'v3'));
    t.incidents(T);
    const split = FLEET.map((v) => (v.name === 'v4' || v.name === 'v5' ? v : { ...v, labels: {} }));
    t.regroup(split);
    expect(told(t).map((i) => [i.key, i.validators])).toEqual([['incident:group:mainnet:host=h1', 'v1 v2 v3']]);
    expect(t.mayJoin(NODES, cond('v1', 'down'))).toBe(false);
    expect(t.mayJoin(NODES, cond('v4', 'down'))).toBe(true);
    commit(t, NODES, down('v4', 'v5'));
    expect(told(t).map((i) => [i.key, i.validators])).toEqual([
      ['incident:group:mainnet:host=h1', 'v4 v5'],
    ]);
  });

  it('disabled: no incident, no sweep asked, nothing waits for one', () => {
    const t = new IncidentTracker({ ...CONFIG, enabled: false }, FLEET);
    t.restored([viewOf(DIP)]);
    commit(t, NODES, down('v1', 'v2', 'v3'));
    expect(t.incidents(T)).toEqual([]);
    expect(t.wantsSweep('health', t.childrenOf(HEALTH, uptime('v6')), T)).toEqual([]);
    expect(t.mayJoin(NODES, cond('v1', 'down'))).toBe(false);
  });
});

describe('IncidentTracker: a network-wide dip', () => {
  it('a third or more of the stake under the uptime threshold: one network incident of the validators within the dip, with both shares', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    t.swept([viewOf(DIP)], T);
    commit(t, HEALTH, uptime('v6', 'v7', 'v8'));
    expect(told(t)).toEqual([
      {
        key: 'incident:network:mainnet:validator-health/uptime',
        severity: 'warning',
        validators: 'v6 v7',
        // Each fleet validator carries 1 % of the network: 2 of the 8 on mainnet are a quarter of the operator's stake.
        summary: "network-wide on mainnet: validator-health/uptime for 2 validators — 25 % of your stake, 70 % of the network's",
      },
    ]);
    expect(t.incidentOf('health', cond('v8', 'uptime').key)).toBeUndefined();
  });

  it('a fleet validator the sweep does not know (not validating now): no share of your stake is claimed', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    const dip = viewOf(DIP);
    t.swept([{ ...dip, figureOf: (nodeId) => (nodeId === id('v8') ? undefined : dip.figureOf(nodeId)) }], T);
    commit(t, HEALTH, uptime('v6', 'v7'));
    expect(told(t).map((i) => i.summary)).toEqual(["network-wide on mainnet: validator-health/uptime for 2 validators — 70 % of the network's"]);
  });

  it('under a third: no network incident', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    t.swept([viewOf({ ...DIP, below: { uptime: 32 } })], T);
    commit(t, HEALTH, uptime('v6', 'v7'));
    expect(t.incidents(T)).toEqual([]);
  });

  it('reachability within the network’s p10 and benched within its p90 are judged too; a figure the sweep lacks is never within', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    t.swept([viewOf({ below: { reachability: 50, benched: 50 }, figures: { v6: { reachability: 58, benched: 44 }, v7: { reachability: undefined, benched: undefined } } })], T);
    commit(t, HEALTH, ['v6', 'v7'].flatMap((v) => [alert(cond(v, 'reachability')), alert(cond(v, 'benched'))]));
    expect(told(t).map((i) => [i.key, i.validators])).toEqual([
      ['incident:network:mainnet:validator-health/reachability', 'v6'],
      ['incident:network:mainnet:validator-health/benched', 'v6'],
    ]);
  });

  it('a host incident carries the network’s share of it from the sweep', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    t.swept([viewOf()], T);
    commit(t, NODES, down('v1', 'v2', 'v3'));
    expect(told(t).map((i) => i.summary)).toEqual(["host h1 on mainnet: 3 validators — 38 % of your stake, 3 % of the network's"]);
  });

  it('the share of your stake counts the validators of the inventory as it is now', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    t.swept([viewOf(DIP)], T);
    commit(t, HEALTH, uptime('v6', 'v7'));
    t.regroup(FLEET.filter((v) => !['v1', 'v2', 'v3', 'v4'].includes(v.name)));
    expect(told(t).map((i) => i.summary)).toEqual(["network-wide on mainnet: validator-health/uptime for 2 validators — 50 % of your stake, 70 % of the network's"]);
  });

  it.each([
    ['unusable (a failed or partial sweep)', (t: IncidentTracker) => t.swept([viewOf({ ...DIP, usable: false })], T)],
    ['restored from before a restart (its age unknown here)', (t: IncidentTracker) => t.restored([viewOf(DIP)])],
    ['without the figure’s quantiles', (t: IncidentTracker) => t.swept([viewOf({ ...DIP, quantiles: { reachability: Q(60, 100), benched: Q(0, 40) } })], T)],
    ['stamped after now (read by an evaluation that started later)', (t: IncidentTracker) => t.swept([viewOf(DIP)], T + 1)],
  ])('a baseline %s gives no network verdict: each validator is judged alone', (_, sweep) => {
    const t = new IncidentTracker(CONFIG, FLEET);
    sweep(t);
    commit(t, HEALTH, uptime('v6', 'v7'));
    expect(t.incidents(T)).toEqual([]);
  });

  it('the same sweep read again keeps its age: after maxAge it gives no verdict; a new sweep does again', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    t.swept([viewOf(DIP)], T);
    commit(t, HEALTH, uptime('v6', 'v7'));
    t.swept([viewOf(DIP)], T + 15 * MIN);
    expect(told(t, T + 20 * MIN).map((i) => i.key)).toEqual(['incident:network:mainnet:validator-health/uptime']);
    t.forget('health');
    t.incidents(T + 20 * MIN);
    commit(t, HEALTH, uptime('v6', 'v7'));
    expect(t.incidents(T + 21 * MIN)).toEqual([]);
    t.swept([viewOf({ ...DIP, at: STAMP + 21 * MIN })], T + 21 * MIN);
    expect(told(t, T + 21 * MIN).map((i) => i.key)).toEqual(['incident:network:mainnet:validator-health/uptime']);
  });
});


describe('IncidentTracker: whether the network is asked first, and who waits', () => {
  it('a new alert of a family the baseline judges asks for a sweep once the last is older than `wait`', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    const news = t.childrenOf(HEALTH, uptime('v6', 'v7'));
    expect(t.wantsSweep('health', news, T)).toEqual([]);
    t.swept([viewOf()], T);
    expect(t.wantsSweep('health', news, T + CONFIG.wait)).toEqual([]);
    expect(t.wantsSweep('health', news, T + CONFIG.wait + 1)).toEqual(['mainnet']);
    expect(t.wantsSweep('health', t.childrenOf(NODES, down('v6')), T + 10 * MIN)).toEqual([]);
  });

  it('an alert already known is not news: no sweep for it', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    t.restored([viewOf()]);
    commit(t, HEALTH, uptime('v6'));
    expect(t.wantsSweep('health', t.childrenOf(HEALTH, uptime('v6')), T)).toEqual([]);
    expect(t.wantsSweep('other', t.childrenOf(HEALTH, uptime('v6', 'v7')), T)).toEqual(['mainnet']);
    expect(t.wantsSweep('health', t.childrenOf(HEALTH, uptime('v6', 'v7')), T)).toEqual(['mainnet']);
  });

  it('mayJoin: a validator of a group always; one alone only for a family the network baseline of its network judges', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    expect(t.mayJoin(NODES, cond('v1', 'down'))).toBe(true);
    expect(t.mayJoin(HEALTH, cond('v6', 'uptime'))).toBe(false);
    t.swept([viewOf()], T);
    expect(t.mayJoin(HEALTH, cond('v6', 'uptime'))).toBe(true);
    expect(t.mayJoin(NODES, cond('v6', 'down'))).toBe(false);
    expect(t.mayJoin(HEALTH, cond('v6', undefined, { labels: { node: id('v6'), alertname: 'uptime' } }))).toBe(false);
    expect(t.mayJoin(HEALTH, { subject: testNodeId('stranger'), labels: { node: testNodeId('stranger'), check: 'uptime' } })).toBe(false);
    expect(t.mayJoin(HEALTH, cond('f1', 'uptime'))).toBe(true);
  });

  it('mayJoin: a lone testnet validator joins by its fuji baseline', () => {
    const t = new IncidentTracker(CONFIG, [...FLEET.filter((v) => v.name !== 'f2')]);
    expect(t.mayJoin(HEALTH, cond('f1', 'uptime'))).toBe(false);
    t.swept([viewOf({ network: 'testnet' })], T);
    expect(t.mayJoin(HEALTH, cond('f1', 'uptime'))).toBe(true);
  });

  it('trial: the scope each alert would have with this rule’s alerts in, beside the other rules’, without committing them', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    commit(t, NODES, down('v1', 'v2'));
    const d = t.trial('health', t.childrenOf(HEALTH, uptime('v3', 'v6')), T);
    expect(d.scopeOf({ rule: 'health', key: cond('v3', 'uptime').key })).toBe('group');
    expect(d.scopeOf({ rule: 'health', key: cond('v6', 'uptime').key })).toBe('validator');
    expect(d.scopeOf({ rule: 'nodes', key: cond('v1', 'down').key })).toBe('group');
    expect(t.incidents(T)).toEqual([]);
  });
});

describe('IncidentTracker: children held back while their incident fires', () => {
  it('held from the receivers that got the incident only, with the incident’s words; not once it stops firing', () => {
    const t = new IncidentTracker(CONFIG, FLEET);
    commit(t, NODES, down('v1', 'v2', 'v3'));
    const [incident] = t.incidents(T) as [Incident];
    const v1 = cond('v1', 'down').key;
    expect(t.heldFor('nodes', v1, 'slack')).toBeUndefined();
    t.firing(incident, ['slack'], 'host h1 on mainnet: 3 validators');
    expect(t.firingKeys()).toEqual(['incident:group:mainnet:host=h1']);
    expect(t.heldFor('nodes', v1, 'slack')).toBe('held by incident incident:group:mainnet:host=h1: host h1 on mainnet: 3 validators');
    expect(t.heldFor('nodes', v1, 'pagerduty')).toBeUndefined();
    expect(t.heldFor('nodes', undefined, 'slack')).toBeUndefined();
    expect(t.heldFor('health', v1, 'slack')).toBeUndefined();
    t.firing(incident, undefined, '');
    expect(t.firingKeys()).toEqual([]);
    expect(t.heldFor('nodes', v1, 'slack')).toBeUndefined();
  });
});

