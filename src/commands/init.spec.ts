import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { initConfigText, initValidators, statePathFor, type InitArg } from './init.js';

const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const C = 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu';
const API = 'http://127.0.0.1:9650';

/** `['--node', A, '--api', x]` as commander hands them over, in order. */
function args(...list: string[]): InitArg[] {
  const out: InitArg[] = [];
  for (let i = 0; i < list.length; i += 2) out.push({ flag: list[i] as InitArg['flag'], value: list[i + 1] as string });
  return out;
}

const errorOf = (list: InitArg[]) => {
  try {
    initValidators(list);
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
};

describe('init: each --network, --api and --name belongs to the --node before it', () => {
  it('takes them per validator, in order', () => {
    expect(initValidators(args('--node', A, '--network', 'mainnet', '--name', 'alpha', '--node', C, '--network', 'fuji', '--api', API))).toEqual([
      { nodeId: A, network: 'mainnet', name: 'alpha' },
      { nodeId: C, network: 'fuji', api: API },
    ]);
  });

  it('NodeID@network,api says the same in one argument; testnet is fuji', () => {
    expect(initValidators(args('--node', `${C}@fuji,${API}`, '--node', `${A}@testnet`, '--node', A))).toEqual([
      { nodeId: C, network: 'fuji', api: API },
      { nodeId: A, network: 'fuji' },
      { nodeId: A },
    ]);
  });

  it('a --network before any --node is every node’s default (as before), a node’s own wins', () => {
    expect(initValidators(args('--network', 'fuji', '--node', A, '--node', C, '--network', 'mainnet'))).toEqual([
      { nodeId: A, network: 'fuji' },
      { nodeId: C, network: 'mainnet' },
    ]);
  });

  it('refuses, naming the argument: an --api or --name before any --node, an unknown network, a second --api for one node', () => {
    expect(errorOf(args('--api', API, '--node', A))).toBe(`--api ${API}: given before any --node; put it after the --node it belongs to (--node NodeID-… --api ${API})`);
    expect(errorOf(args('--name', 'alpha'))).toBe('--name alpha: given before any --node; put it after the --node it belongs to (--node NodeID-… --name alpha)');
    expect(errorOf(args('--node', A, '--network', 'devnet'))).toBe('--network devnet: unknown network "devnet": expected mainnet or fuji');
    expect(errorOf(args('--node', `${A}@local`))).toBe(`--node ${A}@local: unknown network "local": expected mainnet or fuji`);
    expect(errorOf(args('--node', A, '--api', API, '--api', 'http://10.0.0.2:9650'))).toBe(
      `--api http://10.0.0.2:9650: ${A} already has --api ${API}; each --node takes its own --api, right after it`,
    );
    expect(errorOf(args('--node', `${A}@fuji`, '--network', 'mainnet'))).toBe(`--network mainnet: ${A} already has --network fuji; each --node takes its own --network, right after it`);
  });
});

describe('init: the config it writes', () => {
  it('writes each validator on its own network and its own api', () => {
    const text = initConfigText({ file: join(process.cwd(), 'config/mine.yaml'), validators: [{ nodeId: A }, { nodeId: C, network: 'fuji', api: API, name: 'charlie' }], rulesDir: 'rules' });
    const config = parseYaml(text) as { validators: unknown[]; state: { path: string }; ruleFiles: string[] };
    expect(config.validators).toEqual([
      { name: 'validator-1', nodeId: A, network: 'mainnet' },
      { name: 'charlie', nodeId: C, network: 'fuji', api: API },
    ]);
    expect(config.ruleFiles.some((f) => f.endsWith('node-health.yaml'))).toBe(true);
  });

  it('gives the config a state file of its own, named after it, never the shipped data/avawatch.db', () => {
    const here = (p: string) => join(process.cwd(), p);
    expect(statePathFor(here('config/mine.yaml'))).toBe('data/mine.db');
    expect(statePathFor('mine.yaml')).toBe('data/mine.db');
    expect(statePathFor(here('conf/avawatch.yaml'))).toBe('data/conf-avawatch.db');
    expect(statePathFor('/etc/avawatch/avawatch.yaml')).toBe('data/avawatch-avawatch.db');
    expect(statePathFor(here('config/prod fleet.yml'))).toBe('data/prod_fleet.db');
    const text = initConfigText({ file: here('config/mine.yaml'), validators: [{ nodeId: A }], rulesDir: 'rules' });
    expect((parseYaml(text) as { state: { path: string } }).state.path).toBe('data/mine.db');
  });
});
