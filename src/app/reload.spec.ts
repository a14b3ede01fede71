import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, type LoadedConfig } from '../config/load.js';
import { planReload } from './reload.js';

// planReload on configs as an operator writes them: what stops, starts, is rebuilt or forgotten.
const dir = mkdtempSync(join(tmpdir(), 'avawatch-reload-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const B = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';

interface Parts {
  apiKey?: string;
  listen?: string;
  groupBy?: string;
  webhook?: string;
  heartbeat?: string;
  team?: string;
  rules?: string;
}

const RULES = `  - { name: status, kind: validator-status, every: 1m, severity: critical, validators: all }
  - { name: ending, kind: validation-end, every: 1m, severity: warning, network: mainnet, nodeIds: [${B}], warnBefore: [3d] }
`;

let n = 0;
function load(p: Parts = {}): LoadedConfig {
  const file = join(dir, `c${n}.yaml`);
  writeFileSync(join(dir, `r${n}.yaml`), `rules:\n${p.rules ?? RULES}`);
  writeFileSync(
    file,
    `validators: [{ name: alpha, nodeId: ${A}, network: mainnet, labels: { team: ${p.team ?? 'infra'} } }]
api: { dataUrl: 'http://127.0.0.1:1', apiKey: '${p.apiKey ?? 'k1'}' }
state: { path: ${join(dir, 'state.db')} }
server: { listen: '${p.listen ?? '127.0.0.1:0'}' }
route: { receivers: [ops], groupBy: [${p.groupBy ?? 'rule'}] }
receivers: [{ name: ops, type: slack, webhookUrl: '${p.webhook ?? 'https://hooks.slack.com/services/T/B/one'}' }]
${p.heartbeat ? `heartbeat: { url: '${p.heartbeat}' }\n` : ''}ruleFiles: [r${n++}.yaml]
`,
  );
  return loadConfig(file, {});
}

const names = (rules: ReadonlyArray<{ name: string }>) => rules.map((r) => r.name);

describe('planReload', () => {
  it('the same config again: nothing stops, starts or is rebuilt', () => {
    const plan = planReload(load(), load());
    expect(plan).toMatchObject({ apis: false, delivery: false, engine: false, heartbeat: false, restartOnly: [], stop: [], start: [], forget: [] });
  });

  it('one rule changed: only it stops and starts again, its state kept', () => {
    const plan = planReload(load(), load({ rules: RULES.replace('warnBefore: [3d]', 'warnBefore: [7d]') }));
    expect(names(plan.modified)).toEqual(['ending']);
    expect(plan.stop).toEqual(['ending']);
    expect(names(plan.start)).toEqual(['ending']);
    expect(plan.forget).toEqual([]);
  });

  it('a rule added, one removed, one of another kind: the removed and the retyped are forgotten', () => {
    const rules = `  - { name: status, kind: validator-health, every: 1m, severity: critical, validators: all }
  - { name: new, kind: validation-end, every: 5m, severity: warning, network: mainnet, nodeIds: [${B}], warnBefore: [1d] }
`;
    const plan = planReload(load(), load({ rules }));
    expect(names(plan.added)).toEqual(['new']);
    expect(names(plan.removed)).toEqual(['ending']);
    expect(plan.stop.sort()).toEqual(['ending', 'status']);
    expect(names(plan.start).sort()).toEqual(['new', 'status']);
    expect(names(plan.forget).sort()).toEqual(['ending', 'status']);
  });

  it('an inventory label changes what a rule\'s alerts say: the rules that select it change', () => {
    const plan = planReload(load(), load({ team: 'payments' }));
    expect(names(plan.modified)).toEqual(['status']);
    expect(plan.engine).toBe(false);
  });

  it('routing changed: a new engine, every rule stops and starts again, none forgotten', () => {
    const plan = planReload(load(), load({ groupBy: 'validator' }));
    expect(plan).toMatchObject({ engine: true, apis: false, delivery: false, forget: [] });
    expect(plan.stop).toEqual(['status', 'ending']);
    expect(names(plan.start)).toEqual(['status', 'ending']);
  });

  it('a rotated secret is a change: the API key rebuilds the clients, a webhook URL the receivers', () => {
    expect(planReload(load(), load({ apiKey: 'k2' }))).toMatchObject({ apis: true, engine: true, delivery: false });
    expect(planReload(load(), load({ webhook: 'https://hooks.slack.com/services/T/B/two' }))).toMatchObject({ delivery: true, engine: true, apis: false });
    expect(planReload(load(), load({ heartbeat: 'https://hc.example/one' })).heartbeat).toBe(true);
  });

  it('server and state take effect at a restart: kept at their running value, and said', () => {
    const prev = load();
    const plan = planReload(prev, load({ listen: '127.0.0.1:9999' }));
    expect(plan.restartOnly).toEqual(['server']);
    expect(plan.next.config.server).toEqual(prev.config.server);
    expect(plan).toMatchObject({ engine: false, stop: [] });
  });
});
