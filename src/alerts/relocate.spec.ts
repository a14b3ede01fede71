import { describe, expect, it } from 'vitest';
import type { LoadedRule } from '../config/load.js';
import type { InventoryValidator } from '../inventory/schema.js';
import { nameValidator } from '../inventory/name.js';
import type { ActiveAlert } from './lifecycle.js';
import { alertLabels } from './pipeline/enrich.js';
import { reasonOf, relocate, watches, type Side } from './relocate.js';
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
    const failing = { ...firing(labelled), key: `entity:${NODE}`, condition: { key: `entity:${NODE}`, subject: NODE, severity: 'critical' as const, summary: `health cannot see alpha (${NODE})`, labels: { team: 'core', validator: 'alpha', network: 'mainnet', env: 'prod', alertname: 'rule-failing', rule: 'health', severity: 'critical', entity: NODE, node: NODE }, details: { Validator: 'alpha' } } };
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

const BETA_NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const beta: InventoryValidator = { nodeId: BETA_NODE, name: 'beta', network: 'mainnet', labels: { team: 'core' } };
const routeOnly = (before: Side, targets: Side['targets']): Side => ({ ...before, targets });
const to = (receiver: string, more: Partial<Target> = {}): Target => ({ receiver, groupKey: receiver, groupWaitMs: 0, groupIntervalMs: 0, repeatMs: 0, muteTimeIntervals: [], ...more });

describe('a rule removed at the reload', () => {
  // One network's part of a rule split by network: it goes when its last validator leaves the inventory.
  const split = (validators: InventoryValidator[]): Side => ({ ...side(validators), rule: { ...ruleOf(validators), split: { of: 'health', network: 'mainnet' } } as LoadedRule });
  const onChain = (s: Side): ActiveAlert => {
    const a = firing(s);
    return { ...a, condition: { ...a.condition, subject: `${NODE}:c-chain` } };
  };

  it("a split rule's part whose validator left the inventory ends as removed from the inventory", () => {
    const before = split([alpha, beta]);
    const r = relocate({ ...input(before, undefined, [onChain(before)]), inventoryAfter: [beta] });
    expect(said(r)).toEqual([`resolved → team-core,am: alpha (${NODE}) is no longer watched: removed from the inventory`]);
  });

  it("a split rule's part whose validator is still in the inventory ends as the rule removed", () => {
    const before = split([alpha, beta]);
    const r = relocate({ ...input(before, undefined, [onChain(before)]), inventoryAfter: [alpha, beta] });
    expect(said(r)).toEqual([`resolved → team-core,am: alpha (${NODE}) is no longer watched: rule health removed`]);
  });

  it('a rule not split ends as removed, though its validator left the inventory too', () => {
    const before = side([alpha]);
    const r = relocate({ ...input(before, undefined, [firing(before)]), inventoryAfter: [] });
    expect(said(r)).toEqual([`resolved → team-core,am: alpha (${NODE}) is no longer watched: rule health removed`]);
  });

  it('a receiver the new config no longer delivers to hears nothing', () => {
    const before = side([alpha]);
    const r = relocate({ ...input(before, undefined, [firing(before)]), enabled: new Set(['team-core']) });
    expect(said(r)).toEqual([`resolved → team-core: alpha (${NODE}) is no longer watched: rule health removed`]);
  });
});

describe('what an alert is about, when the rule changes', () => {
  it('a rule now of another kind ends its alerts saying so', () => {
    const before = side([alpha]);
    const after = { ...side([alpha]), rule: { ...ruleOf([alpha]), kind: 'node-health' } as LoadedRule };
    const r = relocate(input(before, after, [firing(before)]));
    expect(said(r)).toEqual([`resolved → team-core,am: alpha (${NODE}) is no longer watched: rule health is now of kind node-health`]);
    expect(r.active).toEqual([]);
  });

  it('an alert about a chain of the node (its subject not in the spec) stays while the rule still watches the node', () => {
    const before = side([alpha]);
    const a = firing(before);
    const chain = { ...a, condition: { ...a.condition, subject: `${NODE}:c-chain` } };
    expect(relocate(input(before, side([alpha]), [chain]))).toEqual({ active: undefined, planned: [], rules: [] });
  });

  it('the node named only in the node label (subject not a NodeID) ends when the rule stops selecting it', () => {
    const before = side([alpha]);
    const a = firing(before);
    const byLabel = { ...a, condition: { ...a.condition, subject: 'c-chain' } };
    const r = relocate(input(before, { ...side([]), inventory: [alpha] }, [byLabel]));
    expect(said(r)).toEqual([`resolved → team-core,am: alpha (${NODE}) is no longer watched: no longer selected by rule health`]);
  });

  it('a rule-failing alert about a chain of the node (entity `NodeID…:c-chain`) ends by its node label when the rule stops selecting it', () => {
    const before = side([alpha]);
    const a = firing(before);
    const failing = { ...a, condition: { ...a.condition, subject: `${NODE}:c-chain`, labels: { ...a.condition.labels, entity: `${NODE}:c-chain`, alertname: 'rule-failing' } } };
    const r = relocate(input(before, { ...side([]), inventory: [alpha] }, [failing]));
    expect(said(r)).toEqual([`resolved → team-core,am: alpha (${NODE}) is no longer watched: no longer selected by rule health`]);
  });

  it('a NodeID only in the text (entity label, summary, a subject it starts) is not the alert’s node: without a node label it is about no validator', () => {
    const before = side([alpha]);
    const a = firing(before);
    const { node: _node, ...labels } = a.condition.labels;
    const textOnly = { ...a, condition: { ...a.condition, subject: `${NODE}:c-chain`, labels: { ...labels, entity: NODE, alertname: 'rule-failing' } } };
    // Not ended as "no longer selected" (nothing says which node it is), and not renamed either.
    expect(relocate(input(before, { ...side([]), inventory: [alpha] }, [textOnly])).planned).toEqual([]);
  });

  it('a validator removed from the inventory while others stay ends as removed, not as no longer selected', () => {
    const before = side([alpha, beta]);
    const r = relocate(input(before, side([beta]), [firing(before)]));
    expect(said(r)).toEqual([`resolved → team-core,am: alpha (${NODE}) is no longer watched: removed from the inventory`]);
  });

  it('a reward address that left with its validator ends as removed, beside validators with no addresses', () => {
    const plain: InventoryValidator = { ...beta };
    const payer: InventoryValidator = { ...alpha, rewardAddresses: ['P-avax1payer'] };
    const rule = (addresses: string[]) => ({ name: 'rewards', kind: 'reward-address', severity: 'warning', spec: { addresses }, validators: {} }) as unknown as LoadedRule;
    const targets = () => [to('am')];
    const active = { ...firing(side([alpha])), key: 'P-avax1payer', condition: { key: 'P-avax1payer', subject: 'P-avax1payer', severity: 'warning' as const, summary: 'P-avax1payer got no reward', labels: { rule: 'rewards', severity: 'warning' }, details: {} } };
    const r = relocate({ ...input({ rule: rule(['P-avax1payer']), inventory: [plain, payer], targets }, { rule: rule([]), inventory: [plain], targets }, [active]), kindLabels: [] });
    expect(said(r)).toEqual(['resolved → am: P-avax1payer is no longer watched: removed from the inventory']);
  });

  it('a validation ID that left with its validator ends as removed, beside validators with no validation IDs', () => {
    const l1: InventoryValidator = { ...alpha, validationIds: ['vid-1'] };
    const rule = (validationIds: string[]) => ({ name: 'balance', kind: 'l1-validator-balance', severity: 'warning', spec: { validationIds }, validators: {} }) as unknown as LoadedRule;
    const targets = () => [to('am')];
    const active = { ...firing(side([alpha])), key: 'vid-1', condition: { key: 'vid-1', subject: 'vid-1', severity: 'warning' as const, summary: 'vid-1 balance lasts 3d', labels: { rule: 'balance', severity: 'warning' }, details: {} } };
    const r = relocate({ ...input({ rule: rule(['vid-1']), inventory: [beta, l1], targets }, { rule: rule([]), inventory: [beta], targets }, [active]), kindLabels: [] });
    expect(said(r)).toEqual(['resolved → am: vid-1 is no longer watched: removed from the inventory']);
  });

  it('a spec with amounts (bigint) is read, and an unchanged alert stays', () => {
    const before: Side = { ...side([alpha]), rule: { ...ruleOf([alpha]), spec: { nodeIds: [NODE], minStake: 2_000_000_000_000n } } as unknown as LoadedRule };
    expect(relocate(input(before, before, [firing(before)]))).toEqual({ active: undefined, planned: [], rules: [] });
  });

  it('watches: what the rule names (the node of a chain alert), not what it does not', () => {
    const s = side([alpha]);
    const a = firing(s).condition;
    expect(watches(s.rule, { ...a, subject: `${NODE}:c-chain` })).toBe(true);
    expect(watches(side([beta]).rule, a)).toBe(false);
  });
});

describe('a moved alert: what each receiver hears, and what is kept', () => {
  it('a receiver dropped by the route hears it left; the one still routed is not told again, and keeps its state', () => {
    const before = side([alpha]);
    const a = firing(before);
    const r = relocate(input(before, routeOnly(before, () => [to('am', { resendMs: 60_000 })]), [a]));
    expect(said(r)).toEqual([`resolved → team-core: routed elsewhere by the new route, still firing: alpha (${NODE}) uptime is 84%, under 86%`]);
    expect(r.planned[0]?.draft.details).toEqual({ Moved: 'routed elsewhere by the new route', Validator: 'alpha', Uptime: '84%', 'Failing since': new Date(NOW - 60_000).toISOString() });
    const [kept] = r.active ?? [];
    expect(kept).toMatchObject({ notifiedAt: NOW - 60_000, notifiedReceivers: { am: NOW - 60_000 }, mutedReceivers: [], mutedAt: null });
    expect(kept?.notifiedReceivers).not.toHaveProperty('team-core');
  });

  it('moved to a team whose receiver is silenced: recorded as muted there, not as told; a receiver muted before and heard now is unmuted', () => {
    const before = side([alpha]);
    const a = { ...firing(before), mutedReceivers: ['am'], mutedAt: NOW - 30_000 };
    const after = side([{ ...alpha, labels: { team: 'infra' } }]);
    const silenced: Side = { ...after, targets: (labels) => after.targets(labels).map((t) => (t.receiver === 'team-infra' ? { ...t, mutedBy: 'silence s1' } : t)) };
    const r = relocate(input(before, silenced, [a]));
    const [kept] = r.active ?? [];
    expect(kept?.notifiedReceivers).toEqual({ am: NOW });
    expect(kept?.mutedReceivers).toEqual(['team-infra']);
    expect(kept?.mutedAt).toBe(NOW - 30_000);
    expect(kept?.notifiedAt).toBe(NOW);
  });

  it('a route change keeps the mute of a receiver still routed and drops the one of a receiver it lost', () => {
    const before = side([alpha]);
    const a = { ...firing(before), mutedReceivers: ['am', 'team-core'], mutedAt: NOW - 30_000 };
    const r = relocate(input(before, routeOnly(before, () => [to('team-infra'), to('am')]), [a]));
    expect(said(r)).toEqual([
      `resolved → team-core: routed elsewhere by the new route, still firing: alpha (${NODE}) uptime is 84%, under 86%`,
      `firing → team-infra: alpha (${NODE}) uptime is 84%, under 86%`,
    ]);
    expect(r.active?.[0]).toMatchObject({ mutedReceivers: ['am'], mutedAt: NOW - 30_000, notifiedAt: NOW, notifiedReceivers: { am: NOW - 60_000, 'team-infra': NOW } });
  });

  it('a pending alert takes its new name silently: nobody heard of it yet', () => {
    const before = side([alpha]);
    const pending = { ...firing(before), state: 'pending' as const, notifiedAt: null, notifiedReceivers: {} };
    const r = relocate(input(before, side([{ ...alpha, name: 'beta' }]), [pending]));
    expect(r.planned).toEqual([]);
    expect(r.active?.[0]?.condition.summary).toBe(`beta (${NODE}) uptime is 84%, under 86%`);
    expect(r.active?.[0]?.condition.labels['validator']).toBe('beta');
  });

  it('renamed while routed nowhere: kept under its new name, nothing said', () => {
    const before = routeOnly(side([alpha]), () => []);
    const after = routeOnly(side([{ ...alpha, name: 'beta' }]), () => []);
    const r = relocate(input(before, after, [firing(before)]));
    expect(r.planned).toEqual([]);
    expect(r.active?.[0]?.condition.labels['validator']).toBe('beta');
  });

  it('renamed: the resolved text says the new name, and the labels the kind set stay', () => {
    const before = side([alpha]);
    const a = firing(before);
    const withResolved = { ...a, condition: { ...a.condition, resolvedSummary: `alpha (${NODE}) uptime is back above 86%` } };
    const r = relocate({ ...input(before, side([{ ...alpha, name: 'beta' }]), [withResolved]), kindLabels: [] });
    expect(r.active?.[0]?.condition.resolvedSummary).toBe(`beta (${NODE}) uptime is back above 86%`);
    expect(r.active?.[0]?.condition.labels).toMatchObject({ check: 'uptime', node: NODE, validator: 'beta' });
  });

  it("a kind's own label that the inventory also set keeps its value when the inventory's labels change", () => {
    const tagged = { ...alpha, labels: { team: 'core', check: 'uptime' } };
    const before = side([tagged]);
    const r = relocate(input(before, side([{ ...alpha, labels: { team: 'infra' } }]), [firing(before)]));
    expect(r.active?.[0]?.condition.labels).toMatchObject({ check: 'uptime', team: 'infra' });
  });

  it('the severity the alert carries (its label) is kept when it moves', () => {
    const before = side([alpha]);
    const a = firing(before);
    const critical = { ...a, condition: { ...a.condition, labels: { ...a.condition.labels, severity: 'critical' } } };
    const r = relocate(input(before, side([{ ...alpha, labels: { team: 'infra' } }]), [critical]));
    expect(r.active?.[0]?.condition.labels['severity']).toBe('critical');
    expect(r.planned.at(-1)?.labels['severity']).toBe('critical');
  });

  it('an alert about no inventory validator (its own Validator detail) keeps its detail when the route changes', () => {
    const rule = { name: 'balance', kind: 'l1-validator-balance', severity: 'warning', spec: { validationIds: ['vid-1'] }, validators: {} } as unknown as LoadedRule;
    const active = { ...firing(side([alpha])), key: 'vid-1', condition: { key: 'vid-1', subject: 'vid-1', severity: 'warning' as const, summary: 'vid-1 balance lasts 3d', labels: { rule: 'balance', severity: 'warning' }, details: { Validator: 'l1-node' } } };
    const r = relocate({ ...input({ rule, inventory: [], targets: () => [to('am')] }, { rule, inventory: [], targets: () => [to('team-infra')] }, [active]), kindLabels: [] });
    expect(said(r)).toEqual(['resolved → am: routed elsewhere by the new route, still firing: vid-1 balance lasts 3d', 'firing → team-infra: vid-1 balance lasts 3d']);
    expect(r.active?.[0]?.condition.details).toEqual({ Validator: 'l1-node' });
  });

  it('labels and details stored in another key order are the same alert: nothing said', () => {
    const before = side([alpha]);
    const a = firing(before);
    const reverse = (r: Record<string, string>) => Object.fromEntries(Object.entries(r).reverse());
    const shuffled = { ...a, condition: { ...a.condition, labels: reverse(a.condition.labels), details: reverse(a.condition.details) } };
    expect(relocate(input(before, side([alpha]), [shuffled]))).toEqual({ active: undefined, planned: [], rules: [] });
  });

  it('says what changed: a name given, labels in name order, a label added or removed', () => {
    expect(reasonOf({ team: 'core' }, { validator: 'b', team: 'core' })).toEqual({ to: 'named b', from: 'named b' });
    expect(reasonOf({ zone: 'a', team: 'core' }, { zone: 'b', team: 'infra' })).toEqual({ to: 'moved to team infra, zone b', from: 'moved from team core, zone a' });
    expect(reasonOf({ team: 'core', zone: 'a' }, { team: 'core' })).toEqual({ to: 'moved to zone (none)', from: 'moved from zone a' });
    expect(reasonOf({ team: 'core' }, { team: 'core', zone: 'a' })).toEqual({ to: 'moved to zone a', from: 'moved from zone (none)' });
  });
});
