import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Clock } from '../base/clock.js';
import type { Logger } from '../base/log.js';
import { ruleShard } from '../base/shard.js';
import { within, type Cancel } from '../base/timers.js';
import { errorText } from '../engine/engine.js';
import { FAILING_PREFIX } from '../engine/failing.js';
import type { Metrics } from '../metrics/registry.js';
import type { LoadedRule } from '../config/load.js';
import type { Engine } from '../engine/engine.js';
import { entityShards, partShard } from '../engine/parts.js';
import type { ShardFence, SharedShards, StateStore } from '../store/index.js';

// The shards this instance holds of a shared store (docs/operations.md "Shared state"). A
// rule is evaluated here only while its shard's lease is: leases are timed by the database,
// and counted here from before each renewal was asked on the steady clock, so this process
// stops believing in a lease no later than the database ends it (a pause, a cut, a jump of
// the host's clock). Every commit carries the shard's epoch (the store refuses a stale one).

/** How long leave() may take at shutdown: the lease ends by itself otherwise. */
const LEAVE_CAP_MS = 2_000;

export interface KeeperDeps {
  shards: SharedShards;
  ttlMs: number;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  /** Shards gained and lost since the last round (the App restores and forgets their rules). */
  changed: (gained: ReadonlySet<number>, lost: ReadonlySet<number>) => Promise<void>;
  /** The shards of a rule spread by entity (engine/parts.ts); undefined for a rule-level one. */
  spreadOf?: (rule: string) => ReadonlySet<number> | undefined;
}

/**
 * A store rule's shard: a rule's rule-failing alerts go with the rule, a part (`name#SSS`) is
 * shard SSS; cause and incident alerts have their own.
 */
export function storeRuleShard(storeRule: string): number {
  const name = storeRule.startsWith(FAILING_PREFIX) ? storeRule.slice(FAILING_PREFIX.length) : storeRule;
  return partShard(name) ?? ruleShard(name);
}

export class ShardKeeper {
  /** This process's run: a restart is a new holder (its old leases are not its own). */
  readonly holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  readonly #deps: KeeperDeps;
  /** Shard → its epoch and until when (steady clock) this process counts on it. */
  #held = new Map<number, { epoch: number; until: number }>();
  /** The steady time of the last round the database answered. */
  #lastOk: number | undefined;
  #lastError = '';
  #timer: Cancel | undefined;
  #stopped = false;

  constructor(deps: KeeperDeps) {
    this.#deps = deps;
    deps.shards.fenceBy((storeRule) => this.fenceOf(storeRule));
  }

  /** The first round (the rules it holds are known before any evaluates), then one every third of a lease; `teardown` gets its stop. */
  async start(teardown: Array<() => Promise<void> | void>): Promise<void> {
    teardown.push(() => this.stop());
    await this.#once();
    this.#schedule();
  }

  /** The next round a third of a lease after the last one began, however long it took. */
  #schedule(began = this.#deps.clock.mono()): void {
    if (this.#stopped) return;
    const { clock, ttlMs } = this.#deps;
    this.#timer = clock.setTimer(() => {
      const now = clock.mono();
      void this.#once().finally(() => this.#schedule(now));
    }, Math.max(0, ttlMs / 3 - (clock.mono() - began)));
  }

  /** The fence a commit of this store rule carries, while its lease runs by this process's count. */
  fenceOf(storeRule: string): ShardFence | undefined {
    const shard = storeRuleShard(storeRule);
    const lease = this.#held.get(shard);
    if (!lease || lease.until <= this.#deps.clock.mono()) return undefined;
    return { shard, holder: this.holder, epoch: lease.epoch };
  }

  /** Whether this instance evaluates the rule now: its shard, or one of its entities' shards, is held. */
  holds(rule: string): boolean {
    const shards = this.#deps.spreadOf?.(rule);
    if (shards) return [...shards].some((s) => this.holdsShard(s));
    return this.fenceOf(rule) !== undefined;
  }

  /** Whether this shard's lease runs now by this process's count. */
  holdsShard(shard: number): boolean {
    const lease = this.#held.get(shard);
    return lease !== undefined && lease.until > this.#deps.clock.mono();
  }

  /** Not one round answered for a whole lease: this instance evaluates and sends nothing. */
  steppedDown(): boolean {
    return this.#lastOk !== undefined && this.#deps.clock.mono() - this.#lastOk >= this.#deps.ttlMs;
  }

  /** What /readyz, the heartbeat and the page say while stepped down. */
  problem(): string | undefined {
    if (!this.steppedDown()) return undefined;
    const s = Math.round((this.#deps.clock.mono() - this.#lastOk!) / 1000);
    return `shared state: PostgreSQL not reached for ${s}s (a lease is ${this.#deps.ttlMs / 1000}s); stepped down, evaluating and sending nothing until it answers (${this.#lastError})`;
  }

  async #once(): Promise<void> {
    const { shards, ttlMs, clock, log, metrics } = this.#deps;
    // Counted from before the request: the database's lease ends no earlier than this.
    const asked = clock.mono();
    const before = this.#held;
    try {
      // A round answered later than its period is a failed one (a blackholed connection waits
      // for the statement cap): the next starts on time, the leases end on their own count.
      const round = await within(clock, ttlMs / 3, shards.balance(this.holder, ttlMs, Math.floor(Math.random() * 256)), () => {
        throw new Error(`PostgreSQL did not answer within ${ttlMs / 3000}s`);
      });
      if (this.#stopped) return;
      const wasDown = this.steppedDown();
      this.#held = new Map(round.leases.map((l) => [l.shard, { epoch: l.epoch, until: asked + ttlMs }]));
      this.#lastOk = asked;
      if (wasDown) {
        shards.afresh();
        log.warn({ held: this.#held.size }, 'PostgreSQL answers again: taking shards and evaluating again');
      }
    } catch (err) {
      this.#lastError = errorText(err);
      log.warn({ error: this.#lastError }, 'could not renew the shard leases; kept until they end');
      // Leases past their count are gone: their rules are another's (or no one's) now.
      this.#held = new Map([...before].filter(([, l]) => l.until > clock.mono()));
    }
    metrics.shardsHeld.set(this.#held.size);
    metrics.sharedStateSteppedDown.set(this.steppedDown() ? 1 : 0);
    const gained = new Set([...this.#held].filter(([s, l]) => before.get(s)?.epoch !== l.epoch).map(([s]) => s));
    const lost = new Set([...before].filter(([s, l]) => this.#held.get(s)?.epoch !== l.epoch).map(([s]) => s));
    if (gained.size === 0 && lost.size === 0) return;
    log.info({ held: this.#held.size, gained: [...gained], lost: [...lost] }, 'shards changed');
    try {
      await this.#deps.changed(gained, lost);
    } catch (err) {
      log.error({ error: errorText(err) }, 'could not restore the rules of the shards taken');
    }
  }

  /** Stops renewing and gives the leases back (capped: they end by themselves otherwise). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#timer?.();
    this.#held = new Map();
    this.#deps.metrics.shardsHeld.set(0);
    try {
      await within(this.#deps.clock, LEAVE_CAP_MS, this.#deps.shards.leave(this.holder), () => undefined);
    } catch (err) {
      this.#deps.log.warn({ error: errorText(err) }, 'could not give the shard leases back; they end by themselves');
    }
  }
}

/** What the keeper moves when shards change hands: the rules configured now, and the engine and runs that keep them. */
export interface KeptRules {
  rules: () => readonly LoadedRule[];
  engine: () => Engine;
}

/**
 * The keeper of a shared store's shards, or none (one machine). A rule lost is forgotten here
 * (its gauges and kept states are the new holder's); one taken is restored from the store
 * before it evaluates, so its first evaluation here starts from what the last holder committed.
 */
export function buildKeeper(s: Pick<KeeperDeps, 'clock' | 'log' | 'metrics'> & { store: StateStore }, ttlMs: number, kept: KeptRules): ShardKeeper | undefined {
  const shards = s.store.shards;
  if (!shards) return undefined;
  // Each spread rule's entity shards, made once per set of rules (at start and at each reload).
  const spreads = new WeakMap<readonly LoadedRule[], Map<string, Set<number>>>();
  const spreadOf = (rule: string): Set<number> | undefined => {
    const rules = kept.rules();
    let map = spreads.get(rules);
    if (!map) spreads.set(rules, (map = new Map(rules.flatMap((r) => [[r.name, entityShards(s.store, r)] as const]).filter((e): e is [string, Set<number>] => e[1] !== undefined))));
    return map.get(rule);
  };
  const keeper: ShardKeeper = new ShardKeeper({
    ...s,
    shards,
    ttlMs,
    spreadOf,
    changed: async (gained, lost) => {
      for (const rule of kept.rules()) {
        const spread = spreadOf(rule.name);
        if (spread) {
          // A spread rule: forgotten when any of its entities' shards moves, and read again if some are still held here.
          if (![...spread].some((x) => lost.has(x) || gained.has(x))) continue;
          kept.engine().forget(rule.name);
          if (keeper.holds(rule.name)) await kept.engine().restore(rule);
          continue;
        }
        const shard = ruleShard(rule.name);
        if (lost.has(shard) || gained.has(shard)) {
          // Not the rule's `looked`: /readyz would flap to "starting" at every rebalance.
          kept.engine().forget(rule.name);
        }
        if (gained.has(shard)) await kept.engine().restore(rule);
      }
    },
  });
  return keeper;
}
