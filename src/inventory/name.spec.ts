import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveRoutes } from '../alerts/route.js';
import type { DataApi } from '../api/data/index.js';
import type { MetricsApi } from '../api/metrics-api.js';
import type { Validator } from '../api/schemas.js';
import { loadConfig } from '../config/load.js';
import { Pipeline } from '../alerts/pipeline/index.js';
import { Engine } from '../engine/engine.js';
import { FailureCounts } from '../engine/failing.js';
import { createMetrics } from '../metrics/registry.js';
import { PRIMARY_NETWORK } from '../rules/fields.js';
import { ruleKinds } from '../rules/registry.js';
import { SqliteStore } from '../store/index.js';
import { systemClock } from '../base/clock.js';
import { nameResolution, nameValidator, nodeOfEntity, validatorOf, whoResolves } from './name.js';
import { inventory } from './schema.js';

const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const B = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const C = 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu';
const tmp = mkdtempSync(join(tmpdir(), 'avawatch-named-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const CONFIG = `receivers:
  - { name: ops, type: webhook, url: "https://ops.example/hook" }
  - { name: infra, type: webhook, url: "https://infra.example/hook" }
route:
  receivers: [ops]
  routes:
    - { match: { team: infra }, receivers: [infra] }
validators:
  - { name: alpha, nodeId: ${A}, labels: { team: infra, region: eu } }
  - { name: beta, nodeId: ${B}, labels: { team: ops } }
ruleFiles: [rules.yaml]
`;
const RULES = `rules:
  - { name: status, kind: validator-status, every: 1m, severity: warning, network: mainnet, labels: { region: rule-says, team: rule-says }, nodeIds: [${C}], validators: all }
`;

const period = (nodeId: string, validationStatus: string): Validator => ({ txHash: `tx-${nodeId}`, nodeId, subnetId: PRIMARY_NETWORK, validationStatus, startTimestamp: 1, endTimestamp: 2 });

function setup(world: Record<string, string>) {
  writeFileSync(join(tmp, 'avawatch.yaml'), CONFIG);
  writeFileSync(join(tmp, 'rules.yaml'), RULES);
  const loaded = loadConfig(join(tmp, 'avawatch.yaml'), {});
  const store = SqliteStore.open(':memory:');
  const data = {
    primary: {
      validatorList: async (_net: string, q: { nodeIds: string[]; validationStatus: string }) => ({
        periods: q.nodeIds.filter((n) => world[n] === q.validationStatus).map((n) => period(n, q.validationStatus)),
        broken: [],
      }),
      validatorPeriods: async (_net: string, node: string) => (world[node] === undefined ? 'not-found' : [period(node, world[node])]),
    },
  } as unknown as DataApi;
  const quiet = () => undefined;
  const engine = new Engine({
    store,
    data,
    metricsApi: {} as MetricsApi,
    metrics: createMetrics({ version: '0', outboxPending: () => 0, firing: () => [], ruleSamples: () => [], ruleGauges: [] }),
    log: { warn: quiet, info: quiet, error: quiet } as never,
    pipeline: new Pipeline({ store, clock: systemClock, route: (rule, labels) => resolveRoutes(loaded.config.route, labels, rule.receivers), digestAt: () => undefined, timeIntervals: [], repeatIntervalMs: 0, redact: (t) => t }),
    failures: new FailureCounts(),
    failingAfter: 2,
    failingSeverity: 'warning',
    clock: systemClock,
  });
  const rule = loaded.rules[0]!;
  return { store, run: () => engine.evaluate(rule, new AbortController().signal) };
}

describe('alerts about inventory validators', () => {
  it('carry the validator name and its labels, name it by name and NodeID, and route by team', async () => {
    const world: Record<string, string> = { [A]: 'active', [B]: 'active', [C]: 'active' };
    const { store, run } = setup(world);
    await run();
    world[A] = world[B] = world[C] = 'completed';
    const alerts = await run();
    const alpha = alerts.find((a) => a.subject === A);
    expect(alpha?.summary).toBe(`alpha (${A}) validation active → completed`);
    expect(alpha?.details['Validator']).toBe('alpha');
    // Rule labels < inventory labels < the kind's own.
    expect(alpha?.labels).toMatchObject({ validator: 'alpha', team: 'infra', region: 'eu', node: A, rule: 'status', status: 'completed' });
    // A node the inventory does not list keeps its alert as it was, with the rule's labels.
    const stranger = alerts.find((a) => a.subject === C);
    expect(stranger?.summary).toBe(`${C} validation active → completed`);
    expect(stranger?.labels['validator']).toBeUndefined();
    expect(stranger?.labels['team']).toBe('rule-says');
    const sent = (await store.outbox('pending')).map((r) => `${r.receiver}: ${r.summary}`).sort();
    expect(sent).toEqual([
      `infra: alpha (${A}) validation active → completed`,
      `ops: ${C} validation active → completed`,
      `ops: beta (${B}) validation active → completed`,
    ]);
  });
});

describe('nameValidator: the network', () => {
  it('an alert about an inventory validator carries its network (testnet as fuji); the kind’s own label wins', () => {
    const fuji = { nodeId: C, name: 'charlie', network: 'testnet' as const, labels: { team: 'infra' } };
    const item = { subject: C, summary: `${C} uptime 70%`, labels: { node: C }, details: {} };
    expect(nameValidator({ [C]: fuji }, item).labels).toEqual({ team: 'infra', validator: 'charlie', network: 'fuji', node: C });
    expect(nameValidator({ [C]: fuji }, { ...item, labels: { node: C, network: 'testnet' } }).labels['network']).toBe('testnet');
  });
});

describe('nameResolution: a present named as its alert is (issue 38)', () => {
  it('carries the validator in its details, so a resolved notice does not repeat it as "When it fired: Validator"', () => {
    const [alpha] = inventory.parse([{ name: 'alpha', nodeId: A }]);
    const present = nameResolution({ [A]: alpha! }, { summary: `${A} uptime is back at 92%`, details: { Node: A, Uptime: '92%' } }, { labels: { node: A } });
    expect(present).toEqual({ summary: `alpha (${A}) uptime is back at 92%`, details: { Validator: 'alpha', Node: A, Uptime: '92%' } });
  });

  it('names the validator of the condition it resolves (its node label), not a NodeID its text names; without that condition, none', () => {
    const validators = Object.fromEntries(inventory.parse([{ name: 'alpha', nodeId: A }, { name: 'beta', nodeId: B }]).map((v) => [v.nodeId, v]));
    const r = { summary: `${B} sees ${A} again` };
    expect(nameResolution(validators, r, { labels: { node: A, entity: B } })?.summary).toBe(`${B} sees alpha (${A}) again`);
    expect(nameResolution(validators, r, { labels: { entity: A } })).toBe(r);
    expect(nameResolution(validators, r)).toBe(r);
  });
});

describe('validatorOf: by its key, never by text', () => {
  const validators = Object.fromEntries(inventory.parse([{ name: 'alpha', nodeId: A }, { name: 'beta', nodeId: B }]).map((v) => [v.nodeId, v]));

  it('a text that merely contains another validator’s NodeID (summary, entity, subject) names the one its node label is', () => {
    const item = { subject: `${B}:c-chain`, summary: `${A} lost its peer ${B}`, labels: { node: A, entity: B } as Record<string, string>, details: {} as Record<string, string> };
    const named = nameValidator(validators, item);
    expect([named.labels['validator'], named.summary, named.details['Validator']]).toEqual(['alpha', `alpha (${A}) lost its peer ${B}`, 'alpha']);
  });

  it('an alert with no node label is about no validator, whatever its subject, entity or summary say', () => {
    const item = { subject: A, summary: `${A} is down`, labels: { entity: A, node_id: A }, details: {} };
    expect(validatorOf(validators, item)).toBeUndefined();
    expect(nameValidator(validators, item)).toBe(item);
  });

  it('exactly the key: a longer or shorter NodeID, or an Object property name, is no validator', () => {
    for (const node of [`${A}x`, A.slice(0, -1), 'constructor', '__proto__', 'toString']) expect(validatorOf(validators, { labels: { node } })).toBeUndefined();
    expect(validatorOf(validators, { labels: { node: B } })?.name).toBe('beta');
  });
});

describe('whoResolves: the validator a stored condition was named after', () => {
  it('its node key and the name it fired with; a rule’s own `validator` label (no Validator detail) names none', () => {
    expect(whoResolves({ labels: { node: A, validator: 'alpha' }, details: { Validator: 'alpha' } })).toEqual({ name: 'alpha', nodeId: A });
    expect(whoResolves({ labels: { node: A, validator: 'from-a-rule' }, details: {} })).toBeUndefined();
    expect(whoResolves({ labels: { validator: 'alpha' }, details: { Validator: 'alpha' } })).toBeUndefined();
  });
});

describe('nodeOfEntity: the validator a kind’s entity key belongs to', () => {
  const validators = Object.fromEntries(inventory.parse([{ name: 'alpha', nodeId: A }]).map((v) => [v.nodeId, v]));
  it('the key itself or `NodeID…:part`; a NodeID elsewhere in the key, or another node, is none', () => {
    expect([A, `${A}:c-chain`, `tx:${A}`, `${A}x:c-chain`, B, 'hasOwnProperty'].map((e) => nodeOfEntity(validators, e))).toEqual([A, A, undefined, undefined, undefined, undefined]);
  });
});

describe('every kind that watches inventory validators says which: a `node` label', () => {
  it('each kind that fills keys from the inventory lists `node` among its labels', () => {
    const watching = Object.values(ruleKinds).filter((k) => (k.selects ?? []).length > 0);
    expect(watching.length).toBeGreaterThan(5);
    expect(watching.filter((k) => !k.labelNames.includes('node')).map((k) => k.kind)).toEqual([]);
  });
});
