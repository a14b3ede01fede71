import { describe, expect, it } from 'vitest';
import { spec, state, type State } from './schema.js';

// The rule's keys as `avawatch check` reads them, and the state the engine stores and reads back.

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const URLS = { [NODE]: 'http://127.0.0.1:9650' };

/** The messages of a refused rule, each with its path. */
function refused(raw: Record<string, unknown>): string[] {
  const r = spec.safeParse({ urls: URLS, ...raw });
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('node-upgrade keys', () => {
  it('defaults: mainnet, no L1, a warning 7 days before the activation and critical 1 day before, the shipped compatibility only', () => {
    expect(spec.parse({ urls: URLS })).toEqual({ network: 'mainnet', urls: URLS, l1s: [], warnBefore: 7 * 86_400_000, criticalBefore: 86_400_000, compatibility: [] });
  });

  it('at least one node', () => {
    expect(refused({ urls: {} })).toEqual(['urls: list at least one node: {NodeID-…: http://127.0.0.1:9650}']);
  });

  it('an L1: a chain id or alias and the VM as vmVersions names it, a name of 1 to 60 characters; at most 64', () => {
    const l1 = (over: Record<string, unknown>) => refused({ l1s: [{ chain: 'dfk', vm: 'subnetevm', ...over }] });
    expect(l1({})).toEqual([]);
    expect(l1({ chain: '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM', vm: 'srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy', name: 'D'.repeat(60) })).toEqual([]);
    expect(l1({ chain: 'a.b_c-9', vm: '9a.b_c-' })).toEqual([]);
    expect(l1({ chain: `a${'b'.repeat(99)}`, vm: `a${'b'.repeat(99)}` })).toEqual([]);
    const chainWords = 'expected a blockchain id (or the chain alias the node uses)';
    const vmWords = "expected the VM's name in info.getNodeVersion's vmVersions (its alias or VM ID)";
    for (const bad of ['-dfk', '.x', 'a b', 'a/b', `a${'b'.repeat(100)}`, '']) {
      expect(l1({ chain: bad }), bad).toEqual([`l1s.0.chain: ${chainWords}`]);
      expect(l1({ vm: bad }), bad).toEqual([`l1s.0.vm: ${vmWords}`]);
    }
    expect(l1({ name: '' })).toHaveLength(1);
    expect(l1({ name: 'D'.repeat(61) })).toHaveLength(1);
    expect(l1({ other: 1 })).toHaveLength(1);
    expect(refused({ l1s: Array.from({ length: 64 }, (_, i) => ({ chain: `c${i}`, vm: 'v' })) })).toEqual([]);
    expect(refused({ l1s: Array.from({ length: 65 }, (_, i) => ({ chain: `c${i}`, vm: 'v' })) })).toHaveLength(1);
  });

  it('compatibility: one absolute path or a list of up to 16', () => {
    expect(spec.parse({ urls: URLS, compatibility: '/etc/avawatch/c.json' }).compatibility).toEqual(['/etc/avawatch/c.json']);
    expect(spec.parse({ urls: URLS, compatibility: ['/a.json', '/b.json'] }).compatibility).toEqual(['/a.json', '/b.json']);
    expect(refused({ compatibility: Array.from({ length: 16 }, (_, i) => `/c${i}.json`) })).toEqual([]);
    expect(refused({ compatibility: Array.from({ length: 17 }, (_, i) => `/c${i}.json`) })).toHaveLength(1);
    const relative = (r: string[]) => r.join('\n');
    expect(relative(refused({ compatibility: 'c.json' }))).toContain('expected an absolute path, e.g. /etc/avawatch/compatibility.json');
    expect(relative(refused({ compatibility: ['/a.json', 'b.json'] }))).toContain('expected an absolute path, e.g. /etc/avawatch/compatibility.json');
  });

  it('criticalBefore may equal warnBefore, never exceed it: said at its key', () => {
    expect(spec.parse({ urls: URLS, warnBefore: '2d', criticalBefore: '2d' })).toMatchObject({ warnBefore: 172_800_000, criticalBefore: 172_800_000 });
    expect(refused({ warnBefore: '2d', criticalBefore: '49h' })).toEqual(['criticalBefore: criticalBefore must not be longer than warnBefore']);
  });
});

describe('node-upgrade state', () => {
  it('what the engine stores reads back whole after a restart', () => {
    const st: State = {
      version: 'avalanchego/1.15.0',
      protocol: 46,
      vms: { subnetevm: 'v0.8.0' },
      protocols: { subnetevm: 44 },
      compatible: { subnetevm: false },
      badProtocol: '"x"',
      lastLoaded: { subnetevm: 'v0.7.9' },
      upgrades: { helicon: 1_790_089_200 },
      chainsFailing: { dfk: 'not running' },
      said: ['version:x'],
    };
    expect(state.parse(JSON.parse(JSON.stringify(st)))).toEqual(st);
  });
});
