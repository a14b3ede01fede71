import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { delegator, l1Validator, validator, type Delegator } from '../api/schemas.js';
import { delegatorItem, l1ValidatorItem, validatorSample } from '../sim/samples.js';
import { partition, type Part } from '../engine/partition.js';
import { delegationEnd, type Observation as DelegationObs } from './delegation-end/index.js';
import { spec as delegationSpec } from './delegation-end/schema.js';
import { l1ValidatorBalance, type Observation as BalanceObs } from './l1-validator-balance/index.js';
import { spec as balanceSpec } from './l1-validator-balance/schema.js';
import { validationEnd } from './validation-end/index.js';
import { spec as validationEndSpec } from './validation-end/schema.js';
import { validatorStatus } from './validator-status/index.js';
import { nodeMetrics } from './node-metrics/index.js';
import { l1Liveness, type L1Reading, type Observation as LivenessObs } from './l1-liveness/index.js';
import { spec as livenessSpec } from './l1-liveness/schema.js';
import { NodeApiError } from '../api/node-api.js';
import { at as metricsAt, ctx as metricsCtx, exposition as metricsText, fakeNode, parse as metricsParse } from '../../test/helpers/metrics-node.js';
import { nodeHealth } from './node-health/index.js';
import { spec as healthSpec } from './node-health/schema.js';
import { validatorHealth } from './validator-health/index.js';
import { spec as validatorHealthSpec } from './validator-health/schema.js';
import { at, BLS, down, reading } from '../../test/helpers/health-node.js';
import { blockProduction, type Observation as BlockObs, type Read as BlockRead } from './block-production/index.js';
import { spec as blockSpec } from './block-production/schema.js';
import { nodeUpgrade } from './node-upgrade/index.js';
import type { NodeReading } from './node-upgrade/observe.js';
import { spec as upgradeSpec } from './node-upgrade/schema.js';
import type { Seen } from './validators.js';
import type { RuleKind, Spread } from './types.js';

// NodeIDs the kinds' own specs use.
const N = ['NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', 'NodeID-2KVBngjXkeN8nNSZJCEw6XmDrToUW1RJh', 'NodeID-3ArS1RdFnHrVRG97PtrALNtmuKWg3eSbx', 'NodeID-BRUg4Vb5twst3ngUUwqRRn1oPVDim8Pgx', 'NodeID-FdHoCb6zTYhYxt5QwUAjSXRUPSyAj16iV'] as const;

/** A kind on one fixture: the full spec, the states before, and what observe() would give a (narrowed) spec. */
interface Case<Spec, Obs, S> {
  kind: RuleKind<Spec, Obs, S>;
  full: Spec;
  previous: ReadonlyMap<string, S>;
  observe(spec: Spec): Obs;
  now: Date;
  /** The fixture has a failed lookup (false: the kind's fixture has none). */
  expectFailed?: boolean;
  /** The failed keys no entity owns (validator-health's `p-chain`). */
  ruleWideFailed?: string[];
}

/** A part, in a form to compare: states by key, condition keys, events as subject+labels, failed. */
function shape<S>(part: Part<S> | undefined) {
  const p = part ?? { states: new Map(), conditions: [], events: [], failed: {} };
  return {
    states: [...p.states].sort(([a], [b]) => a.localeCompare(b)),
    conditions: p.conditions.map((c) => c.key).sort(),
    events: p.events.map((e) => `${e.subject} ${JSON.stringify(e.labels)}`).sort(),
    failed: Object.entries(p.failed).sort(),
  };
}

/**
 * Evaluates the full spec once, and each of `sets` narrowed (with the states its parts hold):
 * each set's own shard must come out the same, and rule-wide items the same set.
 */
function sameSplit<Spec, Obs, S>(c: Case<Spec, Obs, S>, setOf: ReadonlyMap<string, number>, sets: number): void {
  const spread = c.kind.spread as Spread<Spec, S>;
  const shardOf = (e: string) => setOf.get(e) ?? Number.NaN;
  const run = (spec: Spec, previous: ReadonlyMap<string, S>) =>
    partition({ spread, full: c.full, evaluation: c.kind.evaluate(previous, c.observe(spec), c.now, spec), previous, shardOf });
  const whole = run(c.full, c.previous);
  // Only a failure may be rule-wide (validator-health's p-chain): every row, condition and event has an owner.
  expect(shape({ ...whole.ruleWide, failed: {} })).toEqual(shape(undefined));
  // What each part stores now, as the engine would load it for a holder of that part alone.
  const stored = partition({ spread, full: c.full, evaluation: { states: new Map(c.previous), alerts: [] }, previous: c.previous, shardOf });
  const wide = new Set<string>();
  for (let i = 0; i < sets; i++) {
    const narrowed = spread.narrow(c.full, (e) => shardOf(e) === i);
    const part = run(narrowed, stored.shards.get(i)?.states ?? new Map());
    expect(shape(part.shards.get(i)), `set ${i}`).toEqual(shape(whole.shards.get(i)));
    for (const [key] of Object.entries(part.ruleWide.failed)) wide.add(key);
  }
  expect([...wide].sort()).toEqual(Object.keys(whole.ruleWide.failed).sort());
  expect(Object.keys(whole.ruleWide.failed), 'rule-wide failures').toEqual(c.ruleWideFailed ?? []);
}

/** Random divisions of the case's entities into 2–4 sets (seeded: the same runs each time). */
function checkSpread<Spec, Obs, S>(c: Case<Spec, Obs, S>): void {
  const entities = c.kind.spread?.entities(c.full) ?? [];
  expect(entities.length).toBeGreaterThan(1);
  // The fixture must say something, or the property holds of nothing.
  const said = c.kind.evaluate(c.previous, c.observe(c.full), c.now, c.full);
  expect([said.alerts.length + (said.conditions?.length ?? 0), Object.keys(said.failed ?? {}).length].map((n) => n > 0), 'alerts or conditions, and failed').toEqual([true, c.expectFailed ?? true]);
  fc.assert(
    fc.property(fc.integer({ min: 2, max: 4 }), fc.array(fc.nat(), { minLength: entities.length, maxLength: entities.length }), (sets, picks) => {
      sameSplit(c, new Map(entities.map((e, i) => [e, (picks[i] as number) % sets])), sets);
    }),
    { numRuns: 30, seed: 20261130 },
  );
}

/** The observation of `nodeIds` in their order, sliced out of one made for the full spec (the kinds index it by position). */
function byPosition<T>(full: readonly string[], seen: readonly T[], nodeIds: readonly string[]): T[] {
  return nodeIds.map((n) => seen[full.indexOf(n)] as T);
}

// ---- validator-status, validation-end: positional observations, sliced.

const P = (node: string, tx: string) => ({ nodeId: node, txHash: tx, startTimestamp: 1_700_000_000, endTimestamp: 1_800_000_000 });
const listed = (status: 'active' | 'completed' | 'pending', node: string, tx = `tx-${node.slice(7, 11)}`): Seen => [validator.parse(validatorSample[status](P(node, tx)))];
const before: Seen[] = [listed('active', N[0]), listed('pending', N[1]), listed('active', N[2]), 'not-found', listed('active', N[4])];
const seenNow: Seen[] = [listed('completed', N[0]), listed('active', N[1]), { failed: 'timeout' }, listed('active', N[3]), listed('active', N[4], 'tx-new')];

describe('spread: evaluate(narrow(part)) gives the whole evaluation’s part', () => {
  it('validator-status (observation sliced by position)', () => {
    const full = { network: 'mainnet' as const, nodeIds: [...N], subnetId: '11111111111111111111111111111111LpoYY' };
    const previous = validatorStatus.evaluate(new Map(), before, new Date(1_750_000_000_000), full).states;
    checkSpread({ kind: validatorStatus, full, previous, now: new Date(1_750_000_060_000), observe: (s) => byPosition(full.nodeIds, seenNow, s.nodeIds) });
  });

  it('validation-end (observation sliced by position)', () => {
    const full = validationEndSpec.parse({ network: 'mainnet', nodeIds: [...N] });
    const previous = validationEnd.evaluate(new Map(), { service: before }, new Date(1_790_000_000_000), full).states;
    // Within the 14-day warning: the active ones hold a condition.
    checkSpread({ kind: validationEnd, full, previous, now: new Date(1_799_000_000_000), observe: (s) => ({ service: byPosition(full.nodeIds, seenNow, s.nodeIds) }) });
  });

  it('delegation-end (observation sliced as observe reads it: the delegations listed under a kept node or address)', () => {
    const A = ['avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw', 'avax1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq'] as const;
    const full = delegationSpec.parse({ network: 'mainnet', nodeIds: [N[0], N[1], N[2]], rewardAddresses: [`P-${A[0]}`, A[1]], notifyNew: true, warnBefore: ['400d'] });
    const d = (tx: string, node: string, addresses: string[], end = 1_800_000_000, status = 'active'): Delegator =>
      delegator.parse(delegatorItem({ txHash: tx, nodeId: node, rewardAddresses: addresses.map((a) => `P-${a}`), amountDelegated: '25000000000', startTimestamp: 1_700_000_000, endTimestamp: end }, status));
    // t1 under a node and an address (its node owns it), t2 and t4 under addresses only, t3 ends, t6 is new to a node.
    const first = [d('t1', N[0], [A[0]]), d('t2', N[3], [A[1]]), d('t3', N[1], [A[0]], 1_760_000_000), d('t5', N[2], ['avax1other'])];
    const then = [d('t1', N[0], [A[0]]), d('t2', N[3], [A[1]]), d('t4', N[4], [A[1], A[0]]), d('t5', N[2], ['avax1other']), d('t6', N[1], ['avax1other'])];
    const entities = [...(full.nodeIds ?? []), ...(full.rewardAddresses ?? [])];
    const seen = (s: typeof full, active: Delegator[], failed: Record<string, string>, completed: Record<string, Delegator> = {}): DelegationObs => {
      const kept = new Set([...(s.nodeIds ?? []), ...(s.rewardAddresses ?? [])]);
      const under = (x: Delegator) => kept.has(x.nodeId) || x.rewardAddresses.some((a) => kept.has(a.replace(/^P-/, '')));
      const mine = Object.fromEntries(Object.entries(failed).filter(([e]) => kept.has(e)));
      return { active: active.filter(under), completed, failed: mine, read: entities.filter((e) => kept.has(e) && !Object.hasOwn(failed, e)) };
    };
    const previous = delegationEnd.evaluate(new Map(), seen(full, first, {}), new Date(1_750_000_000_000), full).states;
    checkSpread({ kind: delegationEnd, full, previous, now: new Date(1_770_000_000_000), observe: (s) => seen(s, then, { [N[2]]: 'timeout' }, { t3: d('t3', N[1], [A[0]], 1_760_000_000, 'completed') }) });
  });

  it('l1-validator-balance, by nodeIds and by validationIds (observation sliced: the validators the narrowed spec watches)', () => {
    const T0 = 1_800_000_000;
    const v = (id: string, node: string, balance: number) => l1Validator.parse(l1ValidatorItem({ validationId: id, nodeId: node, subnetId: 's1', weight: 100, creationTimestamp: 0 }, balance));
    const first = [v('v1', N[0], 5e9), v('v2', N[1], 2e9), v('v3', N[2], 5e9), v('v4', N[0], 1.5e9), v('v5', N[3], 3e9)];
    const then = [v('v1', N[0], 0.5e9), v('v2', N[1], 1.9e9), v('v4', N[0], 0.9e9), v('v5', N[3], 2e9)];
    for (const by of ['nodeIds', 'validationIds'] as const) {
      const ids = by === 'nodeIds' ? [N[0], N[1], N[2], N[3]] : ['v1', 'v2', 'v3', 'v4', 'v5'];
      const full = balanceSpec.parse({ network: 'mainnet', [by]: ids, minBalance: '1', minRunway: '30d' });
      const watches = (s: typeof full, x: { validationId: string; nodeId: string }) => (s.nodeIds ?? s.validationIds ?? []).includes(by === 'nodeIds' ? x.nodeId : x.validationId);
      const previous = l1ValidatorBalance.evaluate(new Map(), { active: first, gone: {}, failed: {} }, new Date(T0 * 1000), full).states;
      // v3 left the active set; v5's lookup failed (by its node or its id).
      const failedKey = by === 'nodeIds' ? N[3] : 'v5';
      const observe = (s: typeof full): BalanceObs => ({
        active: then.filter((x) => watches(s, x) && x.validationId !== 'v5'),
        gone: (s.nodeIds ?? s.validationIds ?? []).includes(by === 'nodeIds' ? N[2] : 'v3') ? { v3: v('v3', N[2], 4e9) } : {},
        failed: (s.nodeIds ?? s.validationIds ?? []).includes(failedKey) ? { [failedKey]: 'timeout' } : {},
      });
      checkSpread({ kind: l1ValidatorBalance, full, previous, now: new Date((T0 + 86_400) * 1000), observe });
    }
  });

  it('block-production (observation keyed by node:chain: the whole one serves every narrowed spec)', () => {
    const T = 1_800_000_000;
    const full = blockSpec.parse({ network: 'mainnet', nodeIds: [...N], silentFor: { 'c-chain': '3h', 'p-chain': '3d' } });
    const blocks = (...times: number[]): BlockRead => ({ hour: times.map((t, i) => ({ at: t, number: String(1000 - i) })), complete: true });
    const reads = (read: BlockRead, except: Record<string, BlockObs['reads'][string]> = {}): BlockObs => ({
      reads: { ...Object.fromEntries(N.flatMap((n) => ['c-chain', 'p-chain'].map((c) => [`${n}:${c}`, read]))), ...except },
    });
    const previous = blockProduction.evaluate(new Map(), reads(blocks(T - 600)), new Date(T * 1000), full).states;
    const later = T + 3 * 3600 + 60;
    // N0's and N3's C-chain are silent, N1's read fails; the others proposed.
    const o = reads(blocks(later - 60), { [`${N[0]}:c-chain`]: { hour: [], complete: true }, [`${N[3]}:c-chain`]: { hour: [], complete: true }, [`${N[1]}:c-chain`]: { failed: 'timeout' } });
    checkSpread({ kind: blockProduction, full, previous, now: new Date(later * 1000), observe: () => o });
  });

  it("node-upgrade (observation keyed by node; the compatibility files' notice stays on the full spec's first node)", () => {
    const HELICON = Date.parse('2026-09-22T15:00:00Z') / 1000;
    const full = upgradeSpec.parse({ urls: Object.fromEntries(N.map((n, i) => [n, `http://10.0.0.${i + 1}:9650`])) });
    const reading = (version: string): NodeReading => ({
      health: { healthy: true, checks: [] },
      version: { ok: { version: `avalanchego/${version}`, rpcProtocolVersion: '45', vmVersions: { platform: `v${version}` } } },
      upgrades: { ok: { durango: 1_709_740_800, etna: 1_734_368_400, fortuna: 1_744_124_400, granite: 1_763_568_000, helicon: HELICON + 3_600 } },
    });
    const nodes = { [N[0]]: reading('1.14.2'), [N[1]]: { failed: 'refused' }, [N[2]]: reading('1.15.0'), [N[3]]: reading('1.14.2'), [N[4]]: reading('1.15.0') };
    const o = { nodes, tables: [], tableErrors: { '/etc/avawatch/compatibility.json': 'not JSON' } };
    checkSpread({ kind: nodeUpgrade, full, previous: new Map(), now: new Date((HELICON - 3 * 86_400) * 1000), observe: () => o });
  });

  it('node-health (observation keyed by node: the whole one serves every narrowed spec)', () => {
    const full = healthSpec.parse({ urls: Object.fromEntries(N.map((n, i) => [n, `http://10.0.0.${i + 1}:9650`])) });
    const own = (n: string, over: Parameters<typeof reading>[0] = {}) => reading({ identity: { ok: { nodeId: n, blsPublicKey: BLS } }, ...over });
    const service = new Map<string, Seen>(N.map((n) => [n, [validator.parse(validatorSample.active(P(n, `tx-${n}`)))]]));
    const previous = nodeHealth.evaluate(new Map(), { nodes: Object.fromEntries(N.map((n) => [n, own(n)])), service }, at(0), full).states;
    // N1 down, N2 with few peers, N3's answer unreadable, N4 unhealthy.
    const nodes = { [N[0]]: own(N[0]), [N[1]]: down, [N[2]]: own(N[2], { peers: { ok: 3 } }), [N[3]]: { failed: 'not JSON' }, [N[4]]: own(N[4], { health: { healthy: false, checks: [{ name: 'C', contiguousFailures: 5, error: 'stuck' }] } }) };
    checkSpread({ kind: nodeHealth, full, previous, now: at(1), observe: () => ({ nodes, service }) });
  });

  it("validator-health (the service's view sliced by position; a failed P-Chain read is rule-wide, said by every part)", () => {
    const full = validatorHealthSpec.parse({ network: 'mainnet', nodeIds: [...N], pChainApi: 'http://10.0.0.9:9650' });
    const up = (n: string, uptime: number): Seen => [validator.parse({ ...validatorSample.active(P(n, `tx-${n}`)), uptimePerformance: uptime })];
    const first: Seen[] = N.map((n) => up(n, 99));
    const t0 = new Date(1_750_000_000_000);
    const previous = validatorHealth.evaluate(new Map(), { service: first }, t0, full).states;
    const now: Seen[] = [up(N[0], 79), up(N[1], 99), { failed: 'timeout' }, 'not-found', up(N[4], 70)];
    const observe = (s: typeof full) => ({ service: byPosition(full.nodeIds, now, s.nodeIds), pchain: { failed: 'no P-Chain API answered' } });
    checkSpread({ kind: validatorHealth, full, previous, now: new Date(t0.getTime() + 60_000), observe, ruleWideFailed: ['p-chain'] });
  });

  it('node-metrics (the whole observation made once by its own observe against the specs\' fake node; keyed by target)', async () => {
    const urls = Object.fromEntries(N.slice(0, 4).map((n, i) => [n, `http://n${i}:9650`]));
    const full = metricsParse({ urls, above: 15 });
    const value = (v: number[]) => Object.fromEntries(v.map((x, i) => [`http://n${i}:9650/ext/metrics`, metricsText([`avalanche_snowman_blks_processing{chain="C"} ${x}`, 'avalanche_snowman_blks_processing{chain="P"} 2'])]));
    const first = await nodeMetrics.observe(full, metricsCtx(fakeNode(value([1, 1, 1, 1])), metricsAt(0)));
    const previous = nodeMetrics.evaluate(new Map(), first, metricsAt(0), full).states;
    // n0 and n3 above the level; n2 does not answer.
    const { [`http://n2:9650/ext/metrics`]: _, ...answering } = value([20, 2, 2, 30]);
    const o = await nodeMetrics.observe(full, metricsCtx(fakeNode(answering), metricsAt(60)));
    checkSpread({ kind: nodeMetrics, full, previous, now: metricsAt(60), observe: () => o });
  });

  it('l1-liveness (its observation lists the L1s read: sliced to the narrowed spec\'s subnets, as observe reads them)', () => {
    const S = ['2XDnKyAEr1RhhWpTpMXqrjeejN23vETmDkA5H8aSsGLBj5d4Uh', '2XDnKyAEr1RhhWpTpMXqrjeejN23vETmDkA5H8aSsGLBj5d4Ua', '2XDnKyAEr1RhhWpTpMXqrjeejN23vETmDkA5H8aSsGLBj5d4Ub'] as const;
    const CHAIN = '2tsLsNQUZfZnqDD9WBhTyj2XyMcmSGJHWTo7qFrVqzaiWvWbjN';
    const full = livenessSpec.parse({ network: 'mainnet', urls: { [N[0]]: 'http://127.0.0.1:9650', [N[1]]: 'http://127.0.0.2:9650' }, subnets: { [N[0]]: [S[0], S[1]], [N[1]]: [S[2]] } });
    const reading = (subnetId: string, nodeId: string, ms: number, part: Partial<L1Reading> = {}): L1Reading => ({
      subnetId,
      nodeId,
      blockchainId: { ok: CHAIN },
      epoch: { ok: { number: 56, startTime: 1_767_225_600, pChainHeight: 21_000_000 } },
      proposed: { ok: 21_000_000 + ms / 2_000 },
      slot: ms / 5_000,
      healthy: true,
      validators: [{ validationId: `v-${subnetId.slice(-2)}`, nodeId: 'NodeID-big', subnetId, remainingBalance: String(2e9 - 10 * ms), weight: 50 }],
      ...part,
    });
    const T0 = Date.parse('2026-01-01T00:00:00Z');
    const polls = (ms: number, parts: Array<Partial<L1Reading>>): LivenessObs => ({ l1s: S.map((id, i) => reading(id, i < 2 ? N[0] : N[1], ms, parts[i])), steadyMs: ms });
    const previous = l1Liveness.evaluate(new Map(), polls(0, []), new Date(T0), full).states;
    // Twenty minutes on: S0 at a tiny balance, S1's node stopped answering, S2's validators could not be read.
    const then = polls(1_200_000, [{ validators: [{ validationId: 'v-h', nodeId: 'NodeID-big', subnetId: S[0], remainingBalance: '1000', weight: 50 }] }, { proposed: { error: new NodeApiError('refused', 'unreachable') }, epoch: { error: new NodeApiError('refused', 'unreachable') } }, { validators: 'timeout' }]);
    const observe = (s: typeof full): LivenessObs => ({ ...then, l1s: then.l1s.filter((r) => (l1Liveness.spread?.entities(s) ?? []).includes(r.subnetId)) });
    checkSpread({ kind: l1Liveness, full, previous, now: new Date(T0 + 1_200_000), observe });
  });
});
