import { describe, expect, it } from 'vitest';
import type { LoadedRule } from '../config/load.js';
import type { InventoryValidator } from '../inventory/schema.js';
import { nameValidator } from '../inventory/name.js';
import type { ActiveAlert } from './lifecycle.js';
import { alertLabels } from './pipeline.js';
import { reasonOf, relocate, type Side } from './relocate.js';
import type { Target } from './route.js';

const NODE = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const NOW = Date.UTC(2026, 5, 1);
const alpha: InventoryValidator = { nodeId: NODE, name: 'alpha', network: 'mainnet', labels: { team: 'core' } };

function ruleOf(validators: InventoryValidator[], nodeIds = validators.map((v) => v.nodeId)): LoadedRule {
  return { name: 'health', kind: 'validator-health', severity: 'warning', spec: { nodeIds }, validators: Object.fromEntries(validators.map((v) => [v.nodeId, v])) } as unknown as LoadedRule;
}

/** Routes by team: core and infra each to their own receiver, everything to Alertmanager too. */
function side(validators: InventoryValidator[], nodeIds?: string[]): Side {
  const target = (receiver: string, group: string): Target => ({ receiver, groupKey: group, groupWaitMs: 0, groupIntervalMs: 0, repeatMs: 0, muteTimeIntervals: [], ...(receiver === 'am' ? { resendMs: 60_000 } : {}) });
  return {
    rule: ruleOf(validators, nodeIds),
    inventory: validators,
    targets: (labels) => [...(labels['team'] ? [target(`team-${labels['team']}`, labels['team'])] : []), target('am', 'all')],
  };
}

/** The uptime alert as the engine stores it for this rule and inventory. */
function firing(s: Side): ActiveAlert {
  const raw = { key: `${NODE}:uptime`, subject: NODE, severity: 'warning' as const, summary: `${NODE} uptime is 84%, under 86%`, labels: { node: NODE, check: 'uptime' }, details: { Uptime: '84%' } };
  const named = nameValidator(s.rule.validators, raw);
  const condition = { ...named, labels: alertLabels(s.rule, named.labels, 'warning') };
  return { key: raw.key, tier: '', state: 'firing', startedAt: NOW - 60_000, notifiedAt: NOW - 60_000, clearedAt: null, mutedAt: null, mutedReceivers: [], notifiedReceivers: { 'team-core': NOW - 60_000, am: NOW - 60_000 }, condition };
}

const enabled = new Set(['team-core', 'team-infra', 'am']);
const input = (before: Side, after: Side | undefined, active: ActiveAlert[]) => ({ before, after, active, kindLabels: ['node', 'check'], enabled, now: NOW });
const said = (r: ReturnType<typeof relocate>) => r.planned.map((p) => `${p.draft.status} → ${p.targets.map((t) => t.receiver).join(',')}: ${p.draft.summary}`);

describe('a reload relocates stored alerts', () => {
  it('a validator removed from the inventory: its receivers hear it is no longer watched, never "back above"', () => {
    const before = side([alpha]);
    const r = relocate(input(before, side([]), [firing(before)]));
    expect(said(r)).toEqual([`resolved → team-core,am: alpha (${NODE}) is no longer watched: removed from the inventory`]);
    expect(r.planned[0]?.draft.details).toMatchObject({ 'No longer watched': 'removed from the inventory', 'Was firing': `alpha (${NODE}) uptime is 84%, under 86%`, 'When it fired: Uptime': '84%' });
    expect(r.planned[0]?.labels).toMatchObject({ team: 'core', validator: 'alpha' });
    expect(r.active).toEqual([]);
  });

  it('a rule removed ends its alerts saying so; a pending one ends without a word', () => {
    const before = side([alpha]);
    const pending = { ...firing(before), key: 'other', state: 'pending' as const };
    const r = relocate(input(before, undefined, [firing(before), pending]));
    expect(said(r)).toEqual([`resolved → team-core,am: alpha (${NODE}) is no longer watched: rule health removed`]);
    expect(r.active).toEqual([]);
  });

  it('a validator the rule no longer selects (still in the inventory) ends as no longer selected', () => {
    const before = side([alpha]);
    const r = relocate(input(before, { ...side([]), inventory: [alpha] }, [firing(before)]));
    expect(said(r)).toEqual([`resolved → team-core,am: alpha (${NODE}) is no longer watched: no longer selected by rule health`]);
  });

  it("a node rule's node whose api: is removed ends as no longer selected, though the rule still asks the service's list for it", () => {
    const OTHER = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
    const beta: InventoryValidator = { nodeId: OTHER, name: 'beta', network: 'mainnet', labels: {} };
    // node-health as the inventory fills it: urls of the nodes with api:, nodeIds of every one (the shared list).
    const nodeRule = (urls: string[]): Side => ({ ...side([alpha, beta]), rule: { ...ruleOf([alpha, beta]), kind: 'node-health', spec: { urls: Object.fromEntries(urls.map((n) => [n, 'http://127.0.0.1:9650'])), nodeIds: [NODE, OTHER] } } });
    const before = nodeRule([NODE, OTHER]);
    const r = relocate(input(before, nodeRule([OTHER]), [firing(before)]));
    expect(said(r)).toEqual([`resolved → team-core,am: alpha (${NODE}) is no longer watched: no longer selected by rule health`]);
  });

  it('moved to another team: the old team hears it left, the new one hears it fire, Alertmanager ends the old label set in the new one\'s group', () => {
    const before = side([alpha]);
    const after = side([{ ...alpha, labels: { team: 'infra' } }]);
    const r = relocate(input(before, after, [firing(before)]));
    expect(said(r)).toEqual([
      `resolved → team-core: moved to team infra, still firing: alpha (${NODE}) uptime is 84%, under 86%`,
      `resolved → am: moved to team infra, still firing: alpha (${NODE}) uptime is 84%, under 86%`,
      `firing → team-infra,am: alpha (${NODE}) uptime is 84%, under 86%`,
    ]);
    expect(r.planned[1]?.labels['team']).toBe('core');
    expect(r.planned[1]?.targets[0]?.groupKey).toBe('all');
    expect(r.planned[2]?.draft.details).toMatchObject({ Moved: 'moved from team core', Uptime: '84%' });
    const [kept] = r.active ?? [];
    expect(kept?.condition.labels).toMatchObject({ team: 'infra', validator: 'alpha', node: NODE, check: 'uptime', rule: 'health', severity: 'warning' });
    expect(kept?.notifiedReceivers).toEqual({ 'team-infra': NOW, am: NOW });
  });

  it('renamed: the alert is named anew where it fires, and Alertmanager ends the old name\'s label set', () => {
    const before = side([alpha]);
    const after = side([{ ...alpha, name: 'beta' }]);
    const r = relocate(input(before, after, [firing(before)]));
    expect(said(r)).toEqual([
      `resolved → am: renamed to beta, still firing: alpha (${NODE}) uptime is 84%, under 86%`,
      `firing → team-core,am: beta (${NODE}) uptime is 84%, under 86%`,
    ]);
    expect(r.planned[1]?.labels).toMatchObject({ validator: 'beta', team: 'core' });
    expect(r.planned[1]?.draft.details).toMatchObject({ Validator: 'beta', Moved: 'renamed from alpha' });
  });

  it('nothing changed for it: nothing said, nothing rewritten', () => {
    const before = side([alpha]);
    const r = relocate(input(before, side([alpha]), [firing(before)]));
    expect(r).toEqual({ active: undefined, planned: [], rules: [] });
  });

  it('says what changed', () => {
    expect(reasonOf({ validator: 'a', team: 'core' }, { validator: 'b', team: 'infra' })).toEqual({ to: 'renamed to b, moved to team infra', from: 'renamed from a, moved from team core' });
    expect(reasonOf({ validator: 'a', team: 'core' }, { team: 'core' })).toEqual({ to: 'no longer named a in the inventory', from: 'no longer named a in the inventory' });
    expect(reasonOf({ team: 'core' }, { team: 'core' })).toEqual({ to: 'routed elsewhere by the new route', from: 'routed here by the new route' });
  });
});

describe('a reload that changes only the route', () => {
  it('moves an alert whose receivers changed; a rule-failing alert with rule labels, unchanged, stays as it is', () => {
    const before = side([alpha]);
    const after: Side = { ...side([alpha]), targets: () => [{ receiver: 'team-infra', groupKey: 'x', groupWaitMs: 0, groupIntervalMs: 0, repeatMs: 0, muteTimeIntervals: [] }] };
    const r = relocate(input(before, after, [firing(before)]));
    expect(said(r)).toEqual([
      `resolved → team-core,am: routed elsewhere by the new route, still firing: alpha (${NODE}) uptime is 84%, under 86%`,
      `firing → team-infra: alpha (${NODE}) uptime is 84%, under 86%`,
    ]);

    const labelled = { ...before, rule: { ...before.rule, labels: { env: 'prod' } } as LoadedRule };
    const failing = { ...firing(labelled), key: `entity:${NODE}`, condition: { key: `entity:${NODE}`, subject: NODE, severity: 'critical' as const, summary: `health cannot see alpha (${NODE})`, labels: { team: 'core', validator: 'alpha', network: 'mainnet', env: 'prod', alertname: 'rule-failing', rule: 'health', severity: 'critical', entity: NODE }, details: { Validator: 'alpha' } } };
    expect(relocate(input(labelled, labelled, [failing]))).toEqual({ active: undefined, planned: [], rules: [] });
  });
});

describe('an alert about something other than a node', () => {
  it('ends when the ID it is about (a validation ID) leaves the rule with the validator', () => {
    const l1: InventoryValidator = { ...alpha, validationIds: ['vid-1'] };
    const rule = (validationIds: string[]) => ({ name: 'balance', kind: 'l1-validator-balance', severity: 'warning', spec: { name: 'balance', validationIds }, validators: {} }) as unknown as LoadedRule;
    const targets = () => [{ receiver: 'am', groupKey: 'all', groupWaitMs: 0, groupIntervalMs: 0, repeatMs: 0, muteTimeIntervals: [] }];
    const before: Side = { rule: rule(['vid-1']), inventory: [l1], targets };
    const active = { ...firing(side([alpha])), key: 'vid-1', condition: { key: 'vid-1', subject: 'vid-1', severity: 'warning' as const, summary: 'vid-1 balance lasts 3d', labels: { rule: 'balance', severity: 'warning' }, details: {} } };
    const r = relocate({ ...input(before, { rule: rule([]), inventory: [], targets }, [active]), kindLabels: [] });
    expect(said(r)).toEqual(['resolved → am: vid-1 is no longer watched: removed from the inventory']);
  });
});
