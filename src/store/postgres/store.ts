import type pg from 'pg';
import { FencedError, StoreError } from '../errors.js';
import { checkParts, partBases } from '../parts.js';
import type {
  ActiveRow,
  CommitPart,
  DeadLetters,
  HistoryEntry,
  NewAlert,
  OutboxListRow,
  OutboxRow,
  OutboxState,
  ReceiverStats,
  Sample,
  ShardFence,
  SharedBudget,
  SharedShards,
  Silence,
  StateDiff,
  StateRows,
  StateStore,
  TimelineQuery,
} from '../types.js';
import { firingRows, loadActive, loadActiveOf, owedAfterMute, writeActive, writeActiveOf } from './active.js';
import { pgBudget } from './budget.js';
import { describeUrl, endNow, openPool, timed, transaction, type PoolOptions } from './connect.js';
import * as history from './history.js';
import { balance, fenceParams, fenceSql, leave } from './leases.js';
import { migrate } from './migrate.js';
import * as read from './outbox-read.js';
import * as outbox from './outbox.js';
import { bumpRevisions, fenced, partsOf, revisionsOf, stateRowsOf, writePartStates } from './parts.js';
import { reanchor } from './reanchor.js';
import * as silences from './silences.js';
import { bumpDataVersion, bumpRevision, dataVersion, stateRows, writeStates } from './states.js';

// The PostgreSQL implementation of StateStore (../types.ts): one database (a schema of it)
// that several instances share, one module per concern as for SQLite:
//   states.ts    entity_state, rule_revision, data_version
//   active.ts    active_alerts
//   outbox.ts    alerts, outbox (insert, claim, mark); outbox-read.ts what is only read
//   silences.ts  silences
//   history.ts   samples, and alerts read as a timeline
//   migrate.ts   the schema (migrations.ts), once under a lock
//   reanchor.ts  the steady clock's times of a previous run, brought back to this run's
//   leases.ts    leases, members: the shards (`shards`)
//   budget.ts    compute_units: the compute-unit budget shared per API key (`budget`)
// Every write that belongs together runs in one transaction, opened here.

export class PgStore implements StateStore {
  #pool: pg.Pool;
  /** What the pool was opened with: afresh() opens another. */
  readonly #opened: { url: string; o: PoolOptions };
  /** How many times this store bumped data_version: dataVersion() leaves them out, as SQLite's data_version leaves out a connection's own commits. */
  #ownBumps = 0;
  #closed = false;
  /** Set once instances share the work (the App's shard keeper): every rule's commit is fenced. */
  #fenceOf: ((storeRule: string) => ShardFence | undefined) | undefined;
  readonly shards: SharedShards;
  readonly budget: SharedBudget;

  /**
   * The leases' own connection: a round never waits behind the work (commits and claims stuck
   * on a blackholed connection hold the main pool until their 30 s cap, and the daemon could
   * not rejoin when the network healed). Opened at the first round.
   */
  readonly #leasePool: pg.Pool;

  private constructor(pool: pg.Pool, leasePool: pg.Pool, opened: { url: string; o: PoolOptions }) {
    this.#pool = pool;
    this.#opened = opened;
    this.#leasePool = leasePool;
    this.shards = {
      // A round is answered within its period (a third of the lease, 1 s at least), or fails and its connection goes.
      balance: (holder, ttlMs, start) => balance(timed(leasePool, Math.max(ttlMs / 3, 1_000)), holder, ttlMs, start),
      leave: (holder) => leave(timed(leasePool, 2_000), holder),
      fenceBy: (fenceOf) => {
        this.#fenceOf = fenceOf;
      },
      afresh: () => {
        const old = this.#pool;
        this.#pool = openPool(this.#opened.url, this.#opened.o);
        // A statement still waiting on an old connection (sent into a blackhole) fails now, not at
        // its 30 s cap: the evaluation it holds is made again, and the daemon is ready again at once.
        endNow(old).catch(() => undefined);
      },
    };
    // The limiter waits 2 s for a block; a statement still unanswered at 5 s gives its connection up (a blackhole).
    this.budget = pgBudget({ query: (text, values) => timed(this.#pool, 5_000).query(text, values) });
  }

  /** Connects and migrates (`schema`: the store's own schema in the database, created if missing); fails naming the database, never its password. */
  static async open(url: string, o: PoolOptions = {}): Promise<PgStore> {
    const pool = openPool(url, o);
    try {
      await migrate(pool, { ...o, url });
    } catch (err) {
      await pool.end();
      throw err instanceof StoreError ? err : new StoreError(`cannot open the state in ${describeUrl(url)}: ${(err as Error).message}`);
    }
    return new PgStore(pool, openPool(url, { ...o, max: 1 }), { url, o });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([this.#pool.end(), this.#leasePool.end()]);
  }

  async ping(): Promise<void> {
    await this.#pool.query('SELECT 1');
  }

  async dataVersion(): Promise<number> {
    return (await dataVersion(this.#pool)) - this.#ownBumps;
  }

  /** A write of states or state alerts in one transaction, then the data version bumped (states.ts), counted as this store's own. */
  async #write<T>(work: (db: pg.PoolClient, versionBefore: number) => Promise<T>): Promise<T> {
    const result = await transaction(this.#pool, async (db) => work(db, (await dataVersion(db)) - this.#ownBumps));
    await bumpDataVersion(this.#pool);
    this.#ownBumps += 1;
    return result;
  }

  // ---- states

  stateRows(rule: string): Promise<StateRows> {
    // One snapshot for the rows and the revision.
    return transaction(this.#pool, (db) => stateRows(db, rule), 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  }

  stateRowsOf(rules: readonly string[]): Promise<Map<string, StateRows>> {
    return stateRowsOf(this.#pool, rules);
  }

  revisionsOf(rules: readonly string[]): Promise<Map<string, number>> {
    return revisionsOf(this.#pool, rules);
  }

  async ruleNames(): Promise<string[]> {
    const { rows } = await this.#pool.query<{ rule: string }>('SELECT rule FROM entity_state UNION SELECT rule FROM active_alerts');
    return rows.map((r) => r.rule);
  }

  forgetExactly(storeRules: readonly string[]): Promise<void> {
    return this.#write(async (db) => {
      for (const table of ['entity_state', 'active_alerts']) await db.query(`DELETE FROM ${table} WHERE rule = ANY($1::text[])`, [storeRules]);
      await db.query('INSERT INTO rule_revision (rule, revision) SELECT r, 1 FROM unnest($1::text[]) AS r ORDER BY r ON CONFLICT (rule) DO UPDATE SET revision = rule_revision.revision + 1', [[...new Set(storeRules)].sort()]);
    });
  }

  pruneRule(...rules: string[]): Promise<void> {
    return this.#write(async (db) => {
      for (const table of ['entity_state', 'active_alerts']) {
        await db.query(`DELETE FROM ${table} WHERE rule = ANY($1::text[])`, [rules]);
        await db.query(`DELETE FROM ${table} USING unnest($1::text[]) AS b (base) WHERE ${partsOf('b.base')}`, [partBases(rules)]);
      }
    });
  }

  // ---- active alerts

  loadActive(rule: string): Promise<ActiveRow[]> {
    return loadActive(this.#pool, rule);
  }

  loadActiveOf(rules: readonly string[]): Promise<Map<string, ActiveRow[]>> {
    return loadActiveOf(this.#pool, rules);
  }

  activeAlerts(): Promise<Array<ActiveRow & { rule: string }>> {
    return firingRows(this.#pool);
  }

  commitEvaluation(
    rule: string,
    states: Record<string, unknown> | StateDiff,
    alerts: readonly NewAlert[],
    now: number,
    active?: readonly ActiveRow[],
    expectRevision?: number,
    startedAt = now,
  ): Promise<number[]> {
    return this.#write(async (db, versionBefore) => {
      await this.#fenced(db, rule);
      // The rule's revision row stays locked to the commit: a concurrent commit of the rule waits, then sees it moved.
      await writeStates(db, rule, states, now, (version) => version !== versionBefore, expectRevision);
      if (active) await writeActive(db, rule, active);
      return outbox.insertAlerts(db, alerts, now, startedAt);
    });
  }

  commitParts(parts: readonly CommitPart[], alerts: readonly NewAlert[], now: number, startedAt = now): Promise<number[]> {
    checkParts(parts);
    const rules = parts.map((p) => p.rule);
    return this.#write(async (db, versionBefore) => {
      if (this.#fenceOf) await fenced(db, rules, this.#fenceOf);
      // The revision rows stay locked to the commit: a concurrent commit of any part waits, then sees it moved.
      await bumpRevisions(db, parts);
      await writePartStates(db, parts, now, (version) => version !== versionBefore);
      const active = parts.flatMap((p) => (p.active ? [{ rule: p.rule, active: p.active }] : []));
      if (active.length > 0) await writeActiveOf(db, active);
      return outbox.insertAlerts(db, alerts, now, startedAt);
    });
  }

  /**
   * Within a commit's transaction, first: the rule's shard is still this instance's at the
   * epoch it took it, by the database's clock. The lease row stays locked FOR SHARE to the
   * commit, so a takeover waits for it: a write lands before the new epoch or not at all.
   */
  async #fenced(db: pg.PoolClient, rule: string): Promise<void> {
    if (!this.#fenceOf) return;
    const fence = this.#fenceOf(rule);
    if (!fence) throw new FencedError(`rule "${rule}": its shard is not held here; nothing written`);
    const { rows } = await db.query<{ ok: boolean }>(`SELECT ${fenceSql(1)} AS ok`, fenceParams(fence));
    if (rows[0]?.ok !== true) throw new FencedError(`rule "${rule}": shard ${fence.shard} moved on from epoch ${fence.epoch} (or its lease ended); nothing written`);
  }

  // ---- outbox

  claimDue(receiver: string, now: number, limit: number, leaseMs: number, skipGroups: readonly string[] = []): Promise<OutboxRow[]> {
    return outbox.claimDue(this.#pool, receiver, now, limit, leaseMs, skipGroups);
  }

  extendLease(ids: readonly number[], until: number): Promise<void> {
    return outbox.extendLease(this.#pool, ids, until);
  }

  nextDue(receiver: string, skipGroups: readonly string[] = []): Promise<number | undefined> {
    return outbox.nextDue(this.#pool, receiver, skipGroups);
  }

  markSent(id: number, now: number): Promise<void> {
    return outbox.markSent(this.#pool, id, now);
  }

  markRetry(id: number, nextAttemptAt: number, error: string, now: number, unknownOutcome = false): Promise<void> {
    return outbox.markRetry(this.#pool, id, nextAttemptAt, error, now, unknownOutcome);
  }

  markDead(id: number, error: string, now: number): Promise<void> {
    return outbox.markDead(this.#pool, id, error, now);
  }

  release(id: number): Promise<void> {
    return outbox.release(this.#pool, id);
  }

  muteWaiting(row: Pick<OutboxRow, 'id' | 'receiver' | 'message'>, reason: string, now: number): Promise<void> {
    return this.#write(async (db) => {
      await outbox.markMuted(db, row.id, reason, now);
      const { rule, status, conditionKey } = row.message;
      if (status !== 'firing' || conditionKey === undefined) return;
      for (const owed of await owedAfterMute(db, rule, conditionKey, row.receiver, now)) await bumpRevision(db, owed);
    });
  }

  pendingCount(): Promise<number> {
    return read.pendingCount(this.#pool);
  }

  outboxCounts(): Promise<Record<OutboxState, number>> {
    return read.outboxCounts(this.#pool);
  }

  receiverStats(): Promise<ReceiverStats[]> {
    return read.receiverStats(this.#pool);
  }

  deadLetters(since: number): Promise<DeadLetters[]> {
    return read.deadLetters(this.#pool, since);
  }

  outbox(state?: OutboxState): Promise<OutboxListRow[]> {
    return read.listOutbox(this.#pool, state);
  }

  // ---- silences

  addSilence(s: Omit<Silence, 'id'>): Promise<number> {
    return silences.addSilence(this.#pool, s);
  }

  silences(now: number, all = false): Promise<Silence[]> {
    return silences.silences(this.#pool, now, all);
  }

  expireSilence(id: number, now: number): Promise<boolean> {
    return silences.expireSilence(this.#pool, id, now);
  }

  // ---- history

  timeline(q: TimelineQuery): Promise<HistoryEntry[]> {
    return history.timeline(this.#pool, q);
  }

  lastEvents(since: number, limit?: number): Promise<HistoryEntry[]> {
    return history.lastEvents(this.#pool, since, limit);
  }

  addSamples(samples: readonly Sample[]): Promise<void> {
    return history.addSamples(this.#pool, samples);
  }

  lastSampleAt(series: string): Promise<Map<string, number>> {
    return history.lastSampleAt(this.#pool, series);
  }

  samples(series: string, entity: string, since: number, o: { until?: number; points?: number } = {}): Promise<Sample[]> {
    return history.samples(this.#pool, series, entity, since, o);
  }

  pruneHistory(before: number, limit?: number): Promise<{ samples: number; alerts: number }> {
    return history.pruneHistory(this.#pool, before, limit);
  }

  // ---- maintenance

  reanchor(now: number, toleranceMs: number): Promise<number> {
    return reanchor(this.#pool, now, toleranceMs);
  }
}
