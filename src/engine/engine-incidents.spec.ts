import { describe, expect, it } from 'vitest';
import { incidentsSchema } from '../config/schema.js';
import type { InventoryValidator } from '../inventory/schema.js';
import type { BaselineView } from '../rules/baseline.js';
import { spec as validationEndSpec } from '../rules/validation-end/schema.js';
import { spec as validatorHealthSpec } from '../rules/validator-health/schema.js';
import type { StateStore } from '../store/index.js';
import { engineWorld, NODE_A, NODE_B, NODE_C, START, target, validatorRule, type Answer } from '../../test/helpers/engine-world.js';
import { IncidentTracker } from './incidents.js';

// Incidents (issue 40) through the engine: alerts about validators of one host are one
// incident with one alert of its own; its children carry its scope and are held back from
// the receivers it reaches; it resolves when its last child does.

const MINUTE = 60_000;
const KEY = 'incident:group:mainnet:host=h1';
const FIRED = 'host h1 on mainnet: 2 validators';

function inventory(hosts: Record<string, string>): InventoryValidator[] {
  const names: Record<string, string> = { [NODE_A]: 'alpha', [NODE_B]: 'bravo', [NODE_C]: 'charlie' };
  return Object.entries(hosts).map(([nodeId, host]) => ({ nodeId, name: names[nodeId] ?? nodeId, network: 'mainnet', labels: { host } }) as InventoryValidator);
}

const H1 = inventory({ [NODE_A]: 'h1', [NODE_B]: 'h1' });
const tracker = (inv = H1, over: Record<string, unknown> = {}) => new IncidentTracker(incidentsSchema.parse({ groupBy: ['host'], k: 2, ...over }), inv);
/** validation-end over A and B, named by the inventory: the fake's periods ended long ago, so both hold at once. */
const ending = (inv = H1, name = 'end', nodeIds = [NODE_A, NODE_B]) =>
  validatorRule({ name, kind: 'validation-end', validators: Object.fromEntries(inv.map((v) => [v.nodeId, v])), spec: validationEndSpec.parse({ network: 'mainnet', nodeIds }) });
const renewed: Answer = { status: 'active', tx: 'tx-new', end: START / 1000 + 90 * 86_400 };

const told = (alerts: Array<{ kind: string; status: string; summary: string; labels: Record<string, string> }>) => alerts.map((a) => `${a.kind} ${a.status} ${a.labels['scope'] ?? '-'}: ${a.summary}`);

/** One group of notifications per alertname: the incident's and its children's rows are due apart. */
function world(incidents: IncidentTracker, store?: StateStore) {
  return engineWorld({ world: { [NODE_A]: 'active', [NODE_B]: 'active' }, incidents, targetsFor: (_r, labels) => [target('slack', { groupKey: labels['alertname'] ?? '' })], ...(store ? { store } : {}) });
}

describe('engine: incidents', () => {
  it('two validators of a host end at once: one incident alert listing both, their alerts scoped to it and held from its receivers; it resolves with its last child', async () => {
    const w = world(tracker());
    const rule = ending();
    const first = await w.run(rule);
    expect(told(first)).toEqual([
      `validation-end firing group: alpha (${NODE_A}) validation ended 1970-01-01T00:00:02Z and no new period has started`,
      `validation-end firing group: bravo (${NODE_B}) validation ended 1970-01-01T00:00:02Z and no new period has started`,
      `incident firing group: ${FIRED}`,
    ]);
    expect(first[2]).toMatchObject({ rule: 'avawatch', severity: 'critical', labels: { alertname: 'incident', rule: 'avawatch', scope: 'group', group: 'host=h1', network: 'mainnet', severity: 'critical' } });
    expect((await w.store.activeAlerts()).find((a) => a.rule === `!incident:${KEY}`)?.condition).toMatchObject({ details: { Validators: 'alpha, bravo' } });
    expect(w.engine.heldFor('end', NODE_A, 'slack')).toBe(`held by incident ${KEY}: ${FIRED}`);
    expect(w.engine.heldFor('end', NODE_A, 'pager')).toBeUndefined();
    // The children wait incidents.wait (a minute) for their incident, urgent as they are; the incident's own alert does not.
    expect((await w.store.claimDue('slack', START + 59_000, 10, 3_600_000)).map((r) => r.message.kind)).toEqual(['incident']);
    expect((await w.store.claimDue('slack', START + 60_000, 10, 3_600_000)).map((r) => r.message.kind)).toEqual(['validation-end', 'validation-end']);

    w.world[NODE_A] = renewed;
    w.at.ms += MINUTE;
    // alpha's alert resolves with the labels it fired with; the incident holds while bravo's fires, and says nothing.
    expect(told(await w.run(rule))).toEqual([`validation-end resolved group: alpha (${NODE_A}) has a new validation period: the end warning is resolved`]);
    expect(w.engine.heldFor('end', NODE_B, 'slack')).toBe(`held by incident ${KEY}: host h1 on mainnet: 1 validator`);
    expect(w.engine.heldFor('end', NODE_A, 'slack')).toBeUndefined();

    w.world[NODE_B] = renewed;
    w.at.ms += MINUTE;
    expect(told(await w.run(rule))).toEqual([`validation-end resolved group: bravo (${NODE_B}) has a new validation period: the end warning is resolved`, 'incident resolved group: over: host h1 on mainnet, 2 validators held']);
    expect(await w.store.activeAlerts()).toEqual([]);
    expect(w.engine.heldFor('end', NODE_B, 'slack')).toBeUndefined();
    expect(w.logged).toEqual([]);
    // avawatch's own alert keeps no entity state in the state file.
    expect((await w.store.stateRows(`!incident:${KEY}`)).rows).toEqual([]);
  });

  it('a worse alert joining a firing incident changes its text, never its labels or severity (Alertmanager knows it by them)', async () => {
    const three = inventory({ [NODE_A]: 'h1', [NODE_B]: 'h1', [NODE_C]: 'h1' });
    const w = engineWorld({ world: { [NODE_A]: 'active', [NODE_B]: 'active', [NODE_C]: 'active' }, incidents: tracker(three) });
    await w.run(validatorRule({ ...ending(three), severity: 'warning' }));
    const stored = async () => (await w.store.activeAlerts()).find((a) => a.rule.startsWith('!incident:'))?.condition;
    expect(await stored()).toMatchObject({ severity: 'warning', labels: { severity: 'warning' }, summary: 'host h1 on mainnet: 2 validators' });
    await w.run(ending(three, 'worse', [NODE_C]));
    expect(await stored()).toMatchObject({ severity: 'warning', labels: { severity: 'warning' }, summary: 'host h1 on mainnet: 3 validators' });
  });

  it('an incident silenced everywhere holds nothing back: its children reach their receivers', async () => {
    const w = world(tracker());
    await w.store.addSilence({ matchers: [{ name: 'alertname', value: 'incident', regex: false }], startsAt: START - MINUTE, endsAt: START + 60 * MINUTE, comment: 'known', createdBy: 'ops', createdAt: START });
    await w.run(ending());
    expect((await w.store.activeAlerts()).map((a) => a.rule)).toContain(`!incident:${KEY}`);
    expect(w.engine.heldFor('end', NODE_A, 'slack')).toBeUndefined();
  });

  it('validators of different hosts are each alone; a reload that puts them on one host makes their incident at the next evaluation', async () => {
    const apart = inventory({ [NODE_A]: 'h1', [NODE_B]: 'h2' });
    const w = world(tracker(apart));
    const rule = ending(apart);
    expect(told(await w.run(rule)).map((t) => t.split(':')[0])).toEqual(['validation-end firing validator', 'validation-end firing validator']);
    w.engine.regroup(H1);
    w.at.ms += MINUTE;
    expect(told(await w.run(ending())).filter((t) => t.startsWith('incident'))).toEqual([`incident firing group: ${FIRED}`]);
  });

  it('a restart mid-incident: the incident’s alert stands without a second notification, and resolves once with its last child', async () => {
    const before = world(tracker());
    await before.run(ending());
    const after = world(tracker(), before.store);
    await after.engine.restore(ending());
    after.at.ms += MINUTE;
    expect(told(await after.run(ending()))).toEqual([]);
    expect(after.engine.heldFor('end', NODE_A, 'slack')).toBe(`held by incident ${KEY}: ${FIRED}`);
    after.world[NODE_A] = after.world[NODE_B] = renewed;
    after.at.ms += MINUTE;
    expect(told(await after.run(ending())).filter((t) => t.startsWith('incident'))).toEqual(['incident resolved group: over: host h1 on mainnet, 2 validators held']);
  });

  it('reminders while the incident fires are held from its receivers; turned off, the incident resolves and what it held is sent at once, at any rule’s evaluation', async () => {
    const targetsFor = () => [target('slack', { repeatMs: MINUTE })];
    const w = engineWorld({ world: { [NODE_A]: 'active', [NODE_B]: 'active', [NODE_C]: 'active' }, incidents: tracker(), targetsFor });
    const other = validatorRule({ name: 'other' }, [NODE_C]);
    await w.run(ending());
    await w.run(other);
    w.at.ms += MINUTE;
    await w.run(ending());
    expect((await w.rows('muted')).filter((r) => r.includes('validation ended'))).toEqual([
      `slack: alpha (${NODE_A}) validation ended 1970-01-01T00:00:02Z and no new period has started [muted: held by incident ${KEY}: ${FIRED}]`,
      `slack: bravo (${NODE_B}) validation ended 1970-01-01T00:00:02Z and no new period has started [muted: held by incident ${KEY}: ${FIRED}]`,
    ]);
    const off = engineWorld({ world: w.world, store: w.store, incidents: tracker(H1, { enabled: false }), targetsFor });
    off.at.ms = w.at.ms + MINUTE;
    await off.engine.restore(ending());
    await off.engine.restore(other);
    const said = await off.run(other);
    expect(said.map((a) => `${a.status} ${a.rule}${a.reminder ? ' (again)' : ''}: ${a.details['Still firing'] ?? a.summary}`)).toEqual([
      'resolved avawatch: over: host h1 on mainnet, 2 validators held',
      `firing end (again): muted since ${new Date(START + MINUTE).toISOString()}; the mute has ended`,
      `firing end (again): muted since ${new Date(START + MINUTE).toISOString()}; the mute has ended`,
    ]);
    expect((await w.store.activeAlerts()).filter((a) => a.rule === 'end').map((a) => a.mutedReceivers)).toEqual([[], []]);
    // The rule's next evaluation here commits as usual (what was sent for it is no other process's commit).
    await off.run(ending());
    expect(off.logs).toEqual([]);
    expect((await w.store.stateRows('end')).rows.map((r) => r.entity)).toEqual([NODE_A, NODE_B]);
  });

  it('a restart after which one of the two recovers at once: the incident it fired holds on its last child (fewer than k), never resolved early', async () => {
    const before = world(tracker());
    await before.run(ending());
    const after = world(tracker(), before.store);
    await after.engine.restore(ending());
    after.world[NODE_A] = renewed;
    after.at.ms += MINUTE;
    expect(told(await after.run(ending())).filter((t) => t.startsWith('incident'))).toEqual([]);
    expect(after.engine.heldFor('end', NODE_B, 'slack')).toBe(`held by incident ${KEY}: host h1 on mainnet: 1 validator`);
    after.world[NODE_B] = renewed;
    after.at.ms += MINUTE;
    expect(told(await after.run(ending())).filter((t) => t.startsWith('incident'))).toEqual(['incident resolved group: over: host h1 on mainnet, 2 validators held']);
    expect(after.logged.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('after a restart, another rule evaluating first finds the incident as the store holds it: restored children keep it firing', async () => {
    const before = world(tracker());
    await before.run(ending());
    const after = world(tracker(), before.store);
    after.world[NODE_C] = 'active';
    const other = validatorRule({ name: 'other' }, [NODE_C]);
    await after.engine.restore(ending());
    await after.engine.restore(other);
    after.at.ms += MINUTE;
    expect(told(await after.run(other))).toEqual([]);
    expect((await after.store.activeAlerts()).map((a) => a.rule)).toContain(`!incident:${KEY}`);
  });

  it('a rule forgotten (removed by a reload): its children leave the incident, which resolves at the next evaluation of any rule', async () => {
    const w = world(tracker());
    await w.run(ending());
    w.engine.forget('end');
    w.at.ms += MINUTE;
    const other = validatorRule({ name: 'other' }, [NODE_C]);
    w.world[NODE_C] = 'active';
    expect(told(await w.run(other)).filter((t) => t.startsWith('incident'))).toEqual(['incident resolved group: over: host h1 on mainnet, 2 validators held']);
  });

  it('an incident whose alert the store cannot record never fails the evaluation: its children are committed, the error logged with its key', async () => {
    const w = world(tracker());
    const commit = w.store.commitEvaluation.bind(w.store);
    w.store.commitEvaluation = (storeRule, ...rest) => {
      if (storeRule.startsWith('!incident:')) throw new Error('database is locked');
      return commit(storeRule, ...rest);
    };
    expect(told(await w.run(ending())).map((t) => t.split(':')[0])).toEqual(['validation-end firing group', 'validation-end firing group']);
    expect((await w.store.activeAlerts()).map((a) => a.rule)).toEqual(['end', 'end']);
    expect(w.logged).toEqual([{ level: 'error', msg: 'could not update the alert of an incident', fields: { incident: KEY, error: 'database is locked' } }]);
    expect(await w.value('ruleConsecutiveFailures', { rule: 'end' })).toBe(0);
  });

  it('an incident that cannot be updated never fails the evaluation: its alerts are committed, the error logged', async () => {
    const incidents = tracker();
    const w = world(incidents);
    incidents.update = () => {
      throw new Error('index broken');
    };
    expect(told(await w.run(ending())).map((t) => t.split(' ')[1])).toEqual(['firing', 'firing']);
    expect(w.logged).toContainEqual({ level: 'error', msg: 'could not update the incidents', fields: { rule: 'end', error: 'index broken' } });
    expect(await w.value('ruleConsecutiveFailures', { rule: 'end' })).toBe(0);
  });

  it('a new uptime alert on a network baseline of unknown age: the network is swept first, before the alert is committed; cut short, nothing is', async () => {
    const view: BaselineView = { network: 'mainnet', at: START - 1_000, usable: true, why: undefined, count: 100, quantiles: {}, versions: {}, belowShare: () => 0, figureOf: () => undefined };
    const incidents = tracker();
    incidents.restored([view]);
    const swept: string[] = [];
    const stop = new AbortController();
    const w = engineWorld({
      world: { [NODE_A]: { status: 'active', tx: 'tx-a', start: START / 1000 - 30 * 86_400, end: START / 1000 + 30 * 86_400, uptime: 50 } },
      incidents,
      sweepFirst: async (networks) => {
        swept.push(`${networks.join(',')}: ${(await w.store.loadActive('health')).length} stored`);
        if (swept.length === 1) stop.abort();
      },
    });
    const health = validatorRule({ name: 'health', kind: 'validator-health', validators: { [NODE_A]: H1[0] }, spec: validatorHealthSpec.parse({ network: 'mainnet', nodeIds: [NODE_A] }) });
    await expect(w.engine.evaluate(health, stop.signal)).rejects.toThrow();
    expect(await w.store.loadActive('health')).toEqual([]);
    expect(await w.value('ruleFailures', { rule: 'health' })).toBeUndefined();
    const fired = await w.run(health);
    expect(swept).toEqual(['mainnet: 0 stored', 'mainnet: 0 stored']);
    // A rule of events only asks nothing.
    w.world[NODE_B] = 'active';
    expect(await w.run(validatorRule({ name: 'events', validators: { [NODE_B]: H1[1] } }, [NODE_B]))).toEqual([]);
    expect(swept).toHaveLength(2);
    expect(fired.map((a) => `${a.status} ${a.labels['check']}`)).toEqual(['firing uptime']);
    expect(w.engine.baselines()).toEqual([{ view, ageMs: undefined, stale: 'stale: no sweep read since avawatch started' }]);
  });

  it('without incidents: no baselines, nothing held; a reload’s regroup changes nothing', async () => {
    const w = engineWorld({ world: { [NODE_A]: 'active', [NODE_B]: 'active' } });
    w.engine.regroup(H1);
    await w.run(ending());
    expect(w.engine.baselines()).toEqual([]);
    expect(w.engine.heldFor('end', NODE_A, 'slack')).toBeUndefined();
    expect(world(tracker()).engine.baselines()).toEqual([]);
  });
});
