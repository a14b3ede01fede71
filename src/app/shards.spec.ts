import { hostname } from 'node:os';
import { Agent } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpClient } from '../api/http.js';
import { Limiter } from '../api/limiter.js';
import { budgetName, SharedAllowance, type BudgetLedger } from '../api/shared-budget.js';
import { clockAt } from '../base/clock.js';
import { Secret } from '../base/secret.js';
import { CAUSE_PREFIX, causeOf } from '../engine/cause.js';
import { createLogger } from '../base/log.js';
import { ruleShard, shardOf } from '../base/shard.js';
import type { LoadedRule } from '../config/load.js';
import type { Engine } from '../engine/engine.js';
import { FAILING_PREFIX } from '../engine/failing.js';
import { createMetrics } from '../metrics/registry.js';
import type { ShardFence, SharedShards, StateStore } from '../store/index.js';
import { nodesApart, testNodeId } from '../../test/helpers/node-ids.js';
import { buildKeeper, ShardKeeper, storeRuleShard } from './shards.js';

afterEach(() => {
  vi.useRealTimers();
});

const TTL = 3_000;

/** The store's side, as the database would answer: a fixed set of shards at an epoch, or no answer. */
function shards(held: number[], epoch = 1) {
  const state = { held, epoch, down: false, rounds: 0, left: [] as string[], afresh: 0, fenceOf: undefined as ((rule: string) => ShardFence | undefined) | undefined };
  const api: SharedShards = {
    balance: () => {
      state.rounds++;
      return state.down ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')) : Promise.resolve({ leases: state.held.map((shard) => ({ shard, epoch: state.epoch })), members: 1, released: [] });
    },
    leave: (holder) => {
      state.left.push(holder);
      return Promise.resolve();
    },
    fenceBy: (f) => {
      state.fenceOf = f;
    },
    afresh: () => {
      state.afresh++;
    },
  };
  return { state, api };
}

function keeper(api: SharedShards, changes: Array<{ gained: number[]; lost: number[] }> = []) {
  vi.useFakeTimers();
  const metrics = createMetrics({ version: 't', outboxPending: () => 0, firing: () => [], ruleSamples: () => [], ruleGauges: [] });
  const k = new ShardKeeper({
    shards: api,
    ttlMs: TTL,
    clock: clockAt(() => Date.now()),
    log: createLogger('fatal', false).log,
    metrics,
    changed: (gained, lost) => {
      changes.push({ gained: [...gained], lost: [...lost] });
      return Promise.resolve();
    },
  });
  return { k, metrics };
}

const heldRule = 'uptime'; // its shard is held below
const otherRule = 'balance';

describe('ShardKeeper', () => {
  it('evaluates only the rules of the shards it holds; fences their commits (and their rule-failing alerts) with the epoch', async () => {
    const { state, api } = shards([ruleShard(heldRule)], 4);
    const changes: Array<{ gained: number[]; lost: number[] }> = [];
    const { k } = keeper(api, changes);
    await k.start([]);
    expect(ruleShard(otherRule)).not.toBe(ruleShard(heldRule));
    expect(k.holds(heldRule)).toBe(true);
    expect(k.holds(otherRule)).toBe(false);
    expect(state.fenceOf?.(heldRule)).toEqual({ shard: ruleShard(heldRule), holder: k.holder, epoch: 4 });
    expect(state.fenceOf?.(FAILING_PREFIX + heldRule)).toEqual(state.fenceOf?.(heldRule));
    expect(storeRuleShard('!incident:mainnet')).toBe(ruleShard('!incident:mainnet'));
    expect(changes).toEqual([{ gained: [ruleShard(heldRule)], lost: [] }]);
  });

  it('renews every third of a lease; a shard taken again at a new epoch is lost and gained (its rules restored from the store)', async () => {
    const { state, api } = shards([1, 2]);
    const changes: Array<{ gained: number[]; lost: number[] }> = [];
    const { k } = keeper(api, changes);
    await k.start([]);
    await vi.advanceTimersByTimeAsync(TTL / 3);
    expect(state.rounds).toBe(2);
    state.held = [2, 3];
    await vi.advanceTimersByTimeAsync(TTL / 3);
    state.epoch = 2;
    await vi.advanceTimersByTimeAsync(TTL / 3);
    expect(changes).toEqual([
      { gained: [1, 2], lost: [] },
      { gained: [3], lost: [1] },
      { gained: [2, 3], lost: [2, 3] },
    ]);
  });

  it('PostgreSQL out of reach: keeps its leases until they end by its own count, then steps down (evaluates and sends nothing) and says why; resumes when it answers', async () => {
    const { state, api } = shards([ruleShard(heldRule)]);
    const { k, metrics } = keeper(api);
    await k.start([]);
    state.down = true;
    await vi.advanceTimersByTimeAsync(TTL - 1);
    expect(k.holds(heldRule)).toBe(true);
    expect(k.problem()).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(k.holds(heldRule)).toBe(false);
    expect(state.fenceOf?.(heldRule)).toBeUndefined();
    expect(k.steppedDown()).toBe(true);
    expect(k.problem()).toBe('shared state: PostgreSQL not reached for 3s (a lease is 3s); stepped down, evaluating and sending nothing until it answers (connect ECONNREFUSED 127.0.0.1:5432)');
    await vi.advanceTimersByTimeAsync(TTL / 3);
    expect(await metrics.registry.getSingleMetricAsString('avawatch_shared_state_stepped_down')).toContain('avawatch_shared_state_stepped_down 1');
    expect(await metrics.registry.getSingleMetricAsString('avawatch_shards_held')).toContain('avawatch_shards_held 0');
    expect(state.afresh).toBe(0);
    state.down = false;
    await vi.advanceTimersByTimeAsync(TTL / 3);
    expect(k.steppedDown()).toBe(false);
    expect(k.holds(heldRule)).toBe(true);
    // Connections from before the fault may have lost what they sent: opened anew.
    expect(state.afresh).toBe(1);
  });

  it('PostgreSQL that takes the connection and never answers (a blackhole): each round gives up after its period, and the step-down comes after one lease, not the statement cap', async () => {
    const { state, api } = shards([ruleShard(heldRule)]);
    const { k, metrics } = keeper(api);
    await k.start([]);
    api.balance = () => {
      state.rounds++;
      return new Promise(() => undefined);
    };
    await vi.advanceTimersByTimeAsync(TTL);
    expect(state.rounds).toBe(3); // at 0, at 1s (given up at 2s), at 2s: one every third of a lease
    expect(k.holds(heldRule)).toBe(false);
    expect(k.problem()).toContain('stepped down, evaluating and sending nothing until it answers (PostgreSQL did not answer within 1s)');
    await vi.advanceTimersByTimeAsync(TTL / 3);
    expect(await metrics.registry.getSingleMetricAsString('avawatch_shared_state_stepped_down')).toContain('avawatch_shared_state_stepped_down 1');
  });

  it('a process paused past its lease (SIGSTOP, a frozen VM) holds nothing when it wakes, before any renewal', async () => {
    const { api } = shards([ruleShard(heldRule)]);
    let now = 1_000_000;
    vi.useFakeTimers();
    const k = new ShardKeeper({ shards: api, ttlMs: TTL, clock: clockAt(() => now), log: createLogger('fatal', false).log, metrics: createMetrics({ version: 't', outboxPending: () => 0, firing: () => [], ruleSamples: () => [], ruleGauges: [] }), changed: () => Promise.resolve() });
    await k.start([]);
    expect(k.holds(heldRule)).toBe(true);
    now += TTL; // no timer ran: the process was stopped
    expect(k.holds(heldRule)).toBe(false);
  });

  it('gives its leases back at stop, and stops renewing', async () => {
    const { state, api } = shards([1]);
    const { k } = keeper(api);
    const teardown: Array<() => Promise<void> | void> = [];
    await k.start(teardown);
    await teardown[0]!();
    expect(state.left).toEqual([k.holder]);
    const rounds = state.rounds;
    await vi.advanceTimersByTimeAsync(TTL * 3);
    expect(state.rounds).toBe(rounds);
    expect(k.holds('anything')).toBe(false);
  });
});

describe("a shared budget's day spent: one alert, not one per instance", () => {
  it('every instance fails its requests with the same cause, so one store rule on one shard: only its holder commits the alert', async () => {
    const limits = { perMinute: 8_000, perDay: 2_000_000 };
    // The ledger every instance shares, its day spent.
    const ledger: BudgetLedger = { reserve: () => Promise.resolve({ second: 1, granted: 0, window: 0, day: limits.perDay, members: 3 }), giveBack: () => Promise.resolve() };
    const agent = new Agent();
    const causes = [];
    try {
      for (const instance of ['a', 'b', 'c']) {
        const clock = clockAt(() => Date.UTC(2026, 0, 1, 12));
        const log = createLogger('fatal', false).log;
        const shared = new SharedAllowance({ ledger, budget: budgetName('data', new Secret('glc_shared_key_1234567890')), limits, api: 'data', log, clock });
        const http = new HttpClient({ api: 'data', baseUrl: `http://${instance}.invalid`, headers: {}, dispatcher: agent, timeoutMs: 1_000, maxResponseBytes: 1_000_000, retries: 0, backoffInitialMs: 1, backoffMaxMs: 1, maxRetryAfterMs: 1, limiter: new Limiter({ limits, clock, shared }), clock });
        const failed = await http.getJson({ endpoint: `/v1/${instance}`, path: `/v1/${instance}` }).catch((e: unknown) => e);
        causes.push(causeOf(failed));
      }
    } finally {
      await agent.close();
    }
    expect(causes.map((c) => c?.key)).toEqual(['budget:data', 'budget:data', 'budget:data']);
    const storeRules = new Set(causes.map((c) => CAUSE_PREFIX + (c?.key ?? '')));
    expect([...storeRules]).toEqual(['!cannot-see:budget:data']);
    // Nothing of the host or the process in it: the same shard on every machine.
    expect([...storeRules][0]).not.toContain(hostname());
    expect(new Set(causes.map((c) => storeRuleShard(CAUSE_PREFIX + (c?.key ?? ''))))).toEqual(new Set([ruleShard('!cannot-see:budget:data')]));
  });
});

describe('a rule spread by entity (validation-end on a shared store)', () => {
  const a = testNodeId('spread-a');
  const b = testNodeId('spread-b');
  // Past one page of the bulk list: spread by entity (engine/parts.ts).
  const rule = { name: 'ends', kind: 'validation-end', spec: { network: 'mainnet', nodeIds: [a, b, ...nodesApart(99, [a, b])], warnBefore: [] } } as unknown as LoadedRule;
  const level = { name: heldRule, kind: 'subnet-changes', spec: {} } as unknown as LoadedRule;

  it("a part's store rule is fenced by its suffix's shard, its rule-failing alerts' too", async () => {
    const { state, api } = shards([17], 3);
    const { k } = keeper(api);
    await k.start([]);
    expect(storeRuleShard('ends#017')).toBe(17);
    expect(storeRuleShard(`${FAILING_PREFIX}ends#017`)).toBe(17);
    expect(storeRuleShard('ends#17')).toBe(ruleShard('ends#17'));
    expect(state.fenceOf?.('ends#017')).toEqual({ shard: 17, holder: k.holder, epoch: 3 });
    expect(state.fenceOf?.('ends#018')).toBeUndefined();
  });

  it('held while any of its entities\' shards is; forgotten and read again from the store when one of them moves, and only forgotten when none is left', async () => {
    vi.useFakeTimers();
    expect(shardOf(a)).not.toBe(shardOf(b));
    const { state, api } = shards([shardOf(a)]);
    const moves: string[] = [];
    const engine = { forget: (r: string) => moves.push(`forget ${r}`), restore: (r: LoadedRule) => Promise.resolve(void moves.push(`restore ${r.name}`)) } as unknown as Engine;
    const metrics = createMetrics({ version: 't', outboxPending: () => 0, firing: () => [], ruleSamples: () => [], ruleGauges: [] });
    const store = { shards: api } as unknown as StateStore;
    const k = buildKeeper({ store, clock: clockAt(() => Date.now()), log: createLogger('fatal', false).log, metrics }, TTL, { rules: () => [rule, level], engine: () => engine })!;
    await k.start([]);
    expect(k.holds('ends')).toBe(true);
    expect(moves.splice(0)).toEqual(['forget ends', 'restore ends']);
    state.held = [shardOf(a), shardOf(b)];
    await vi.advanceTimersByTimeAsync(TTL / 3);
    expect(moves.splice(0)).toEqual(['forget ends', 'restore ends']);
    state.held = [shardOf(b)];
    await vi.advanceTimersByTimeAsync(TTL / 3);
    expect(k.holds('ends')).toBe(true);
    expect(moves.splice(0)).toEqual(['forget ends', 'restore ends']);
    state.held = [];
    await vi.advanceTimersByTimeAsync(TTL / 3);
    expect(k.holds('ends')).toBe(false);
    expect(moves.splice(0)).toEqual(['forget ends']);
  });
});
