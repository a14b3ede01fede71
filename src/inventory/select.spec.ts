import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config/load.js';
import { formatProblem } from '../base/source.js';

const tmp = mkdtempSync(join(tmpdir(), 'avawatch-inventory-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const B = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const C = 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu';
const INVENTORY = `validators:
  - { name: alpha, nodeId: ${A}, labels: { team: infra, region: eu }, validationIds: [v-alpha] }
  - { name: beta, nodeId: ${B}, labels: { team: ops } }
  - { name: fuji-one, network: fuji, nodeId: ${C}, labels: { team: infra } }
`;

let n = 0;
function load(config: string, rules: string) {
  n += 1;
  writeFileSync(join(tmp, `${n}.rules.yaml`), `rules:\n${rules}`);
  const file = join(tmp, `${n}.yaml`);
  writeFileSync(file, `${config}ruleFiles: [${n}.rules.yaml]\n`);
  return loadConfig(file, {});
}

function problems(config: string, rules: string): string[] {
  try {
    load(config, rules);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map((p) => formatProblem(p).replace(/^.*\/(?=[^/]+:\d+:\d+: )/, '').replace(/^\d+\./, 'N.'));
    throw err;
  }
  return [];
}

const rule = (extra: string) => `  - { name: r, kind: validator-status, every: 1m, severity: warning, network: mainnet, ${extra} }\n`;

describe('validators: selectors in rules', () => {
  it('all: every validator of the rule network, after the explicit nodeIds, once each', () => {
    const loaded = load(INVENTORY, rule(`nodeIds: [${C}, ${A}], validators: all`));
    const [r] = loaded.rules;
    expect(r?.spec['nodeIds']).toEqual([C, A, B]);
    expect(r?.spec['validators']).toBeUndefined();
    expect(Object.keys(r?.validators ?? {}).sort()).toEqual([A, B].sort());
  });

  it('a label selector takes the validators with every label; name picks one; a fuji rule sees fuji validators', () => {
    expect(load(INVENTORY, rule('validators: { team: infra }')).rules[0]?.spec['nodeIds']).toEqual([A]);
    expect(load(INVENTORY, rule('validators: { name: beta }')).rules[0]?.spec['nodeIds']).toEqual([B]);
    const fuji = rule('validators: { team: infra }').replace('network: mainnet', 'network: fuji');
    expect(load(INVENTORY, fuji).rules[0]?.spec['nodeIds']).toEqual([C]);
  });

  it('l1-validator-balance takes the validation ids; delegation-end the NodeIDs', () => {
    const l1 = load(INVENTORY, '  - { name: l1, kind: l1-validator-balance, every: 1h, severity: warning, network: mainnet, minBalance: 1, validators: { team: infra } }\n');
    expect(l1.rules[0]?.spec['validationIds']).toEqual(['v-alpha']);
    expect(l1.rules[0]?.spec['nodeIds']).toBeUndefined();
    const de = load(INVENTORY, '  - { name: d, kind: delegation-end, every: 1h, severity: warning, network: mainnet, validators: all }\n');
    expect(de.rules[0]?.spec['nodeIds']).toEqual([A, B]);
  });

  it('a selector that selects nothing is an error at the key naming the labels that exist', () => {
    expect(problems(INVENTORY, rule('validators: { team: nobody }'))).toEqual([
      'N.rules.yaml:2:100: rules[0].validators: {"team":"nobody"} selects no validator on mainnet; labels in the inventory: region=eu, team=infra, team=ops; names: alpha, beta',
    ]);
    // `all` over an empty inventory is the shipped profile before any validator is listed: left out, with a warning.
    expect(problems('', rule('validators: all'))).toEqual([]);
    expect(problems('', rule('validators: { team: infra }'))).toEqual(['N.rules.yaml:2:100: rules[0].validators: the inventory lists no validator on mainnet']);
    expect(problems(INVENTORY, rule('validators: [alpha]'))).toEqual([
      'N.rules.yaml:2:100: rules[0].validators: expected "all" or labels every selected validator has, e.g. {team: infra} (or {name: alpha})',
    ]);
    const l1 = '  - { name: l1, kind: l1-validator-balance, every: 1h, severity: warning, network: mainnet, minBalance: 1, validators: { name: beta } }\n';
    expect(problems(INVENTORY, l1)).toEqual(['N.rules.yaml:2:120: rules[0].validators: the selected validators (beta) list no validationIds in the inventory']);
  });

  it('validatorsFile: the inventory from its own file, its problems at their line there', () => {
    writeFileSync(join(tmp, 'fleet.yaml'), `validators:\n  - name: alpha\n    nodeId: ${A}\n  - name: beta\n    nodeId: ${B.slice(0, -1)}z\n`);
    expect(problems('validatorsFile: fleet.yaml\n', rule('validators: all'))).toEqual([
      `fleet.yaml:5:13: validators[1].nodeId: ${B.slice(0, -1)}z: checksum does not match (a typo?)`,
    ]);
    writeFileSync(join(tmp, 'fleet.yaml'), `validators:\n  - name: alpha\n    nodeId: ${A}\n`);
    const loaded = load('validatorsFile: fleet.yaml\n', rule('validators: all'));
    expect(loaded.rules[0]?.spec['nodeIds']).toEqual([A]);
    expect(loaded.inventoryFile).toBe(join(tmp, 'fleet.yaml'));
    expect(problems(`validatorsFile: fleet.yaml\n${INVENTORY}`, rule('validators: all'))).toEqual(['N.yaml:1:17: validatorsFile: set validators or validatorsFile, not both']);
  });
});

describe('a rule without network: over validators on mainnet and fuji', () => {
  const profile = (extra = '') => `  - { name: status, kind: validator-status, every: 1m, severity: critical, validators: all${extra} }\n`;

  it('splits into one rule per network: the mainnet part keeps the name, the fuji part is status@fuji', () => {
    const loaded = load(INVENTORY, profile());
    expect(loaded.rules.map((r) => [r.name, r.spec['name'], r.spec['network'], r.spec['nodeIds'], Object.keys(r.validators ?? {})])).toEqual([
      ['status', 'status', 'mainnet', [A, B], [A, B]],
      ['status@fuji', 'status@fuji', 'fuji', [C], [C]],
    ]);
    expect(loaded.rules.map((r) => r.split)).toEqual([{ of: 'status', network: 'mainnet' }, { of: 'status', network: 'fuji' }]);
  });

  it('one network keeps the rule whole and its name, fuji alone as mainnet alone', () => {
    const fujiOnly = `validators:\n  - { name: fuji-one, network: testnet, nodeId: ${C} }\n`;
    expect(load(fujiOnly, profile()).rules.map((r) => [r.name, r.spec['network'], r.split])).toEqual([['status', 'fuji', undefined]]);
    expect(load(INVENTORY, profile(', network: mainnet')).rules.map((r) => r.name)).toEqual(['status']);
    // A selector that picks one network's validators out of a mixed inventory is not split.
    expect(load(INVENTORY, profile().replace('validators: all', 'validators: { team: ops }')).rules.map((r) => [r.name, r.spec['nodeIds']])).toEqual([['status', [B]]]);
  });

  it('node-API rules split too, each part reading its own network’s nodes; a part with no api is left out', () => {
    const apis = `validators:\n  - { name: alpha, nodeId: ${A}, api: "http://10.0.0.1:9650" }\n  - { name: fuji-one, network: fuji, nodeId: ${C}, api: "http://10.0.0.3:9650" }\n  - { name: beta, nodeId: ${B} }\n`;
    const node = '  - { name: node, kind: node-health, every: 1m, severity: warning, validators: all }\n';
    expect(load(apis, node).rules.map((r) => [r.name, r.spec['network'], r.spec['urls']])).toEqual([
      ['node', 'mainnet', { [A]: 'http://10.0.0.1:9650' }],
      ['node@fuji', 'fuji', { [C]: 'http://10.0.0.3:9650' }],
    ]);
    const fujiApi = apis.replace(`, api: "http://10.0.0.1:9650"`, '');
    const loaded = load(fujiApi, node);
    expect(loaded.rules.map((r) => r.name)).toEqual(['node@fuji']);
    expect(loaded.warnings.join('\n')).not.toContain('declares its node');
  });

  it('a problem of the rule as written is said once, not once per network', () => {
    expect(problems(INVENTORY, profile(', bogus: 1'))).toEqual(['N.rules.yaml:2:93: rules[0].bogus: unknown key "bogus"']);
  });
});

describe('a rule that names IDs of its own', () => {
  it('over validators on both networks is not split (its IDs carry no network): an error says to set network:', () => {
    const rule = `  - { name: status, kind: validator-status, every: 1m, severity: critical, nodeIds: [${A}], validators: all }\n`;
    expect(problems(INVENTORY, rule)).toEqual([
      'N.rules.yaml:2:141: rules[0].validators: the selected validators are on mainnet and fuji, and the rule names nodeIds of its own, which could be on either: set network: on this rule (and copy it for the other)',
    ]);
  });
});

describe('l1-validator-balance over a mixed inventory', () => {
  it('takes the networks of the validators that list validationIds: only mainnet here, so one rule, no error', () => {
    const l1 = '  - { name: l1, kind: l1-validator-balance, every: 1h, severity: warning, minBalance: 1, validators: all }\n';
    expect(load(INVENTORY, l1).rules.map((r) => [r.name, r.spec['network'], r.spec['validationIds']])).toEqual([['l1', 'mainnet', ['v-alpha']]]);
    const both = INVENTORY.replace('labels: { team: infra } }', 'labels: { team: infra }, validationIds: [v-fuji] }');
    expect(load(both, l1).rules.map((r) => [r.name, r.spec['network'], r.spec['validationIds']])).toEqual([
      ['l1', 'mainnet', ['v-alpha']],
      ['l1@fuji', 'fuji', ['v-fuji']],
    ]);
  });
  it('subnets: from-inventory fills NodeID → the subnets each selected validator lists; without validators: it is an error at the key', () => {
    const L1 = '2XDnKyAEr1RhhWpTpMXqrjeejN23vETmDkA5H8aSsGLBj5d4Uh';
    const config = `validators:
  - { name: alpha, nodeId: ${A}, api: "http://127.0.0.1:9650", subnets: [${L1}] }
  - { name: beta, nodeId: ${B}, api: "http://127.0.0.1:9651" }
  - { name: fuji-one, network: fuji, nodeId: ${C}, api: "http://127.0.0.1:9652", subnets: [fuji-subnet] }
`;
    const l1 = '  - { name: l1, kind: node-metrics, every: 1m, severity: critical, validators: all, subnets: from-inventory, metric: avalanche_health_checks_failing, above: 0 }\n';
    const loaded = load(config, l1);
    // Split by network as any selecting rule: the fuji part gets fuji's validators.
    expect(loaded.rules.map((r) => [r.name, r.spec['subnets']])).toEqual([
      ['l1', { [A]: [L1], [B]: [] }],
      ['l1@fuji', { [C]: ['fuji-subnet'] }],
    ]);
    const bare = '  - { name: l1, kind: node-metrics, every: 1m, severity: critical, urls: { x: "http://127.0.0.1:9650" }, subnets: from-inventory, metric: avalanche_health_checks_failing, above: 0 }\n';
    expect(problems('', bare)).toEqual([expect.stringMatching(/rules\[0\]\.subnets: subnets: from-inventory takes them from the inventory/)]);
  });
});
