import { describe, expect, it } from 'vitest';
import { spec, state, type State } from './schema.js';

// The rule's keys as `avawatch check` reads them: defaults, what it refuses and the words it says;
// and the state the engine stores and reads back after a restart.

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const OTHER = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const URLS = { [NODE]: 'http://127.0.0.1:9650' };
/** A blockchain id's length of base58 characters. */
const id = (n: number) => '2'.repeat(n);

/** The messages of a refused rule, each with its path. */
function refused(raw: Record<string, unknown>): string[] {
  const r = spec.safeParse({ urls: URLS, ...raw });
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('node-health keys', () => {
  it('defaults: mainnet, the P, X and C chains, rewarding stake 90/80 with 1 point of hysteresis, 10 peers, down below 80% reachability', () => {
    expect(spec.parse({ urls: URLS })).toEqual({
      network: 'mainnet',
      urls: URLS,
      chains: ['P', 'X', 'C'],
      rewardingStake: { warning: 90, critical: 80, hysteresis: 1 },
      minPeers: 10,
      outside: { downBelow: 80 },
    });
    expect(spec.parse({ urls: URLS, rewardingStake: {}, outside: {} })).toMatchObject({ rewardingStake: { warning: 90, critical: 80, hysteresis: 1 }, outside: { downBelow: 80 } });
  });

  it('a chain is P, X, C or a blockchain id of 40 to 60 base58 characters', () => {
    for (const ok of [['P'], ['X', 'C'], [id(40)], [id(60)]]) expect(refused({ chains: ok }), ok.join()).toEqual([]);
    for (const bad of ['D', 'PX', 'p', id(39), id(61), `${id(39)}0`, ` ${id(40)}`]) expect(refused({ chains: [bad] }), bad).toEqual(['chains.0: expected P, X, C or a blockchain id']);
    expect(refused({ chains: [] })).toHaveLength(1);
  });

  it('at least one node; nodeIds at least one; minVersion a version', () => {
    expect(refused({ urls: {} })).toEqual(['urls: list at least one node: {NodeID-…: http://127.0.0.1:9650}']);
    expect(refused({ nodeIds: [NODE, OTHER] })).toEqual([]);
    expect(refused({ nodeIds: [] })).toHaveLength(1);
    expect(refused({ minVersion: '1.14.1' })).toEqual([]);
    expect(refused({ minVersion: 'latest' })).toEqual(['minVersion: expected a version such as 1.14.1']);
  });

  it('percentages within 0..100, hysteresis within 0..10, peers a whole number from 0; false turns a check off', () => {
    expect(refused({ rewardingStake: { warning: 100, critical: 0, hysteresis: 10 }, outside: { downBelow: 0 }, minPeers: 0 })).toEqual([]);
    expect(refused({ rewardingStake: { warning: 100.5 } })).toHaveLength(1);
    expect(refused({ rewardingStake: { critical: -1 } })).toHaveLength(1);
    expect(refused({ rewardingStake: { hysteresis: 10.5 } })).toHaveLength(1);
    expect(refused({ rewardingStake: { hysteresis: -0.5 } })).toHaveLength(1);
    expect(refused({ outside: { downBelow: 101 } })).toHaveLength(1);
    expect(refused({ minPeers: -1 })).toHaveLength(1);
    expect(refused({ minPeers: 2.5 })).toHaveLength(1);
    expect(spec.parse({ urls: URLS, rewardingStake: false, minPeers: false, outside: false })).toMatchObject({ rewardingStake: false, minPeers: false, outside: false });
  });

  it('rewardingStake.critical may equal warning, never exceed it: said at its key', () => {
    expect(refused({ rewardingStake: { warning: 85, critical: 85 } })).toEqual([]);
    expect(refused({ rewardingStake: { warning: 85, critical: 85.5 } })).toEqual(['rewardingStake.critical: rewardingStake.critical must not be above rewardingStake.warning']);
  });
});

describe('node-health state', () => {
  it('what the engine stores reads back whole after a restart: the stake tier, the APIs off, the verdict on a silent API', () => {
    const st: State = {
      at: 1_750_000_000,
      unreachableSince: 1_749_999_940,
      unreachable: 'ECONNREFUSED',
      failing: { bls: { error: 'e', contiguousFailures: 2, since: '2026-01-02T10:00:00Z', absent: 1 } },
      bootstrapped: { P: true },
      nodeId: NODE,
      version: 'avalanchego/1.14.2',
      rewardingStake: 85,
      peers: 3,
      upgrades: { etna: 1_734_368_400 },
      rpcErrors: { uptime: { count: 2, error: 'not a validator' } },
      stakeTier: 'warning',
      period: null,
      missing: true,
      outside: { active: true, uptime: 99, reachability: 100, bls: '0x1' },
      uptimeAtLoss: 99.5,
      off: ['health', 'info'],
      apiVerdict: { tier: 'critical', view: 'listed active', why: 'its uptime fell' },
    };
    expect(state.parse(JSON.parse(JSON.stringify(st)))).toEqual(st);
    expect(state.parse({ stakeTier: 'critical', apiVerdict: { tier: 'warning', view: 'v' } })).toEqual({ stakeTier: 'critical', apiVerdict: { tier: 'warning', view: 'v' } });
    expect(state.safeParse({ stakeTier: 'info' }).success).toBe(false);
    expect(state.safeParse({ off: ['metrics'] }).success).toBe(false);
  });
});
