import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { buildPipeline } from '../src/alerts/pipeline/index.js';
import { filterBatches, VALIDATOR_BATCH } from '../src/api/data/filters.js';
import type { DataApi } from '../src/api/data/index.js';
import type { ValidatorList } from '../src/api/data/primary.js';
import type { Network } from '../src/api/data/reader.js';
import type { MetricsApi } from '../src/api/metrics-api.js';
import { validator, type Validator } from '../src/api/schemas.js';
import type { LoadedRule } from '../src/config/load.js';
import { configSchema, ruleSchema, type RuleCommon } from '../src/config/schema.js';
import { systemClock } from '../src/base/clock.js';
import { scrub, Secret } from '../src/base/secret.js';
import { Engine } from '../src/engine/engine.js';
import { FailureCounts } from '../src/engine/failing.js';
import { createMetrics } from '../src/metrics/registry.js';
import { ruleKinds } from '../src/rules/registry.js';
import { activeValidator, completedValidator } from '../src/sim/samples.js';
import { SqliteStore, type StateStore } from '../src/store/index.js';
import { benchLogger, median, ms, nodeId, period, sleep, type BenchResult, type Figure } from './lib.js';
import { scheduleOf } from '../src/base/schedule.js';

const STEADY_CYCLES = 5;
/**
 * A full collection before each timed cycle, the engine's and the floor's, so that neither
 * pays for the garbage of the other (npm run bench runs node with --expose-gc); then a pause,
 * so that the sweeping it leaves to other threads is done before the cycle, not during it.
 */
async function collect(): Promise<void> {
  (globalThis as { gc?: () => void }).gc?.();
  await sleep(50);
}
const SECRETS = [new Secret('bench-api-key-3f9a1c7e5b')];
/** At the largest size: a cycle where nothing changes, and one where 1% of the nodes change. */
const TARGET_STEADY_MS = 250;
const TARGET_CHANGED_MS = 350;

/**
 * The Data API's primary-network reader, in process, answering as a service would: from lists it already holds. Each
 * batch's answer is made when the world changes, between cycles (see `settle`), so its
 * making (a lookup per node in a 100k Map) is in neither the engine's figure nor the floor's:
 * it is the service's work, not the daemon's.
 */
class FakeDataApi {
  readonly #periods = new Map<string, Validator[]>();
  /** The answer to each batch asked so far (by the array asked: each side keeps its batches), per status. */
  readonly #answers = new Map<string, Map<readonly string[], Validator[]>>();

  set(id: string, periods: Validator[]): void {
    this.#periods.set(id, periods);
  }

  /** Makes every answer given so far again, from the periods now held (between cycles, untimed). */
  settle(): void {
    for (const [status, answers] of this.#answers) for (const nodeIds of answers.keys()) answers.set(nodeIds, this.#answer(nodeIds, status));
  }

  async validatorPeriods(_network: Network, id: string): Promise<Validator[] | 'not-found'> {
    return this.#periods.get(id) ?? 'not-found';
  }

  /** The bulk list: the periods of these nodes with that status (none broken). */
  async validatorList(_network: Network, q: { nodeIds: readonly string[]; validationStatus: string }): Promise<ValidatorList> {
    let answers = this.#answers.get(q.validationStatus);
    if (answers === undefined) this.#answers.set(q.validationStatus, (answers = new Map()));
    let periods = answers.get(q.nodeIds);
    // A batch never asked before (the first cycle): made now, and kept.
    if (periods === undefined) answers.set(q.nodeIds, (periods = this.#answer(q.nodeIds, q.validationStatus)));
    return { periods, broken: [] };
  }

  #answer(nodeIds: readonly string[], status: string): Validator[] {
    const out: Validator[] = [];
    for (const id of nodeIds) for (const p of this.#periods.get(id) ?? []) if (p.validationStatus === status) out.push(p);
    return out;
  }
}

export interface Cycle {
  total: number;
  load: number;
  commit: number;
  observe: number;
  /** The kind's pure evaluate(). */
  evaluate: number;
  /** The kind's samples(): the gauges from the new state. */
  samples: number;
  /** GC pauses inside the cycle (in any of the columns). */
  gc: number;
  alerts: number;
  /** When it started, on the performance timeline. */
  at: number;
}

export interface SizeResult {
  kind: string;
  n: number;
  baseline: Cycle;
  steady: Cycle[];
  changed: Cycle;
  dbBytes: number;
  /** The lean loop's time for the same cycles, run right after each (see leanCycle). */
  floor: { baseline: number; steady: number[]; changed: number };
}

/**
 * Figure 3: Engine.evaluate (fetch → evaluate → lifecycle → commit → gauges) for one rule
 * of N entities. The observation comes from an in-process fake of the DataApi; the store
 * is the real SQLite store on a temp file.
 */
export async function evaluateBench(sizes: readonly number[]): Promise<BenchResult> {
  const results: SizeResult[] = [];
  for (const kind of ['validator-status', 'validation-end'] as const) {
    for (const n of sizes) results.push(await measure(kind, n));
  }
  const largest = Math.max(...sizes);
  const vs = (engine: number, floor: number) => `${ms(engine, 0)} (floor ${ms(floor, 0)}, ×${(engine / floor).toFixed(1)})`;
  const figures: Figure[] = results
    .filter((r) => r.kind === 'validator-status')
    .flatMap((r) => {
      const steady = median(r.steady.map((c) => c.total));
      const floor = median(r.floor.steady);
      const at = r.n === largest;
      return [
        {
          name: `Evaluate + commit per cycle, ${r.n.toLocaleString('en-US')} entities, nothing changes (median of ${r.steady.length}; lean floor, ratio)`,
          value: vs(steady, floor),
          ...(at ? { target: `< ${TARGET_STEADY_MS} ms`, pass: steady < TARGET_STEADY_MS } : {}),
        },
        {
          name: `Evaluate + commit per cycle, ${r.n.toLocaleString('en-US')} entities, 1% change (lean floor, ratio)`,
          value: vs(r.changed.total, r.floor.changed),
          ...(at ? { target: `< ${TARGET_CHANGED_MS} ms`, pass: r.changed.total < TARGET_CHANGED_MS } : {}),
        },
      ];
    });
  const other = results.filter((r) => r.kind !== 'validator-status' && r.n === largest);
  for (const r of other) {
    const steady = median(r.steady.map((c) => c.total));
    figures.push({
      name: `${r.kind} (state alerts through the lifecycle), ${r.n.toLocaleString('en-US')} entities: steady / 1% change (lean floor, ratio)`,
      value: `${vs(steady, median(r.floor.steady))} / ${vs(r.changed.total, r.floor.changed)}`,
      target: `< ${TARGET_STEADY_MS} ms / < ${TARGET_CHANGED_MS} ms`,
      pass: steady < TARGET_STEADY_MS && r.changed.total < TARGET_CHANGED_MS,
    });
  }
  const row = (label: string, c: Cycle, floor: number) =>
    `| ${label} | ${ms(c.total, 0)} | ${ms(floor, 0)} | ${ms(c.load, 0)} | ${ms(c.observe, 0)} | ${ms(c.evaluate, 0)} | ${ms(c.commit, 0)} | ${ms(c.samples, 0)} | ${ms(c.total - c.load - c.observe - c.evaluate - c.commit - c.samples, 0)} | ${ms(c.gc, 0)} | ${c.alerts} |`;
  return {
    id: 'evaluate',
    title: 'Evaluation and commit time per cycle',
    figures,
    details: [
      '`Engine.evaluate` of one rule over N nodes (`src/engine/engine.ts`: states (kept in memory between cycles; read and checked from the file at the first cycle or after another process wrote it) → observe → evaluate → lifecycle → routing → commit of the states that changed), with the real SQLite store on a temp file (WAL, synchronous=NORMAL), real routing to one Slack receiver, and the observation from an in-process fake of `DataApi` (no HTTP, so this is the daemon\'s own cost). The fake answers each batch from a list it made when the world last changed, between cycles: its own lookups (one per node in a Map of N) are the service\'s work, counted in neither the engine\'s figure nor the floor\'s.',
      `Per size: the first cycle (baseline: every row inserted), ${STEADY_CYCLES} cycles where nothing changes (median shown), then one cycle where 1% of the nodes change (validator-status: active → completed, an event each; validation-end: the period now ends within 3 days, a firing state alert each). Each queued alert gets an outbox row. Each timed cycle, the engine's and the floor's, starts after a full GC (\`gc()\`), so neither pays for the garbage the other left.`,
      'Columns: *load* = `SqliteStore.stateRows` + `loadActive` (SQLite reads; 0 when the states are kept in memory); *observe* = the kind\'s `observe` (the bulk lists from the fake, 100 nodes a call, 4 at a time; their periods grouped by node and each node judged against its last period; a node asked alone when it leaves the lists); *evaluate* = the kind\'s pure `evaluate`; *commit* = `SqliteStore.commitEvaluation` (one transaction, only changed rows); *samples* = the kind\'s `samples`, now made when /metrics is read, not per cycle (see the /metrics figure); *rest* = the engine\'s own work: encoding and scrubbing the states that changed (every state, at the first cycle), checking stored states with zod at the first cycle, lifecycle, routing, scrubbing the alerts, and GC pauses in between; *GC* = the GC pauses inside the cycle, whichever column they fell in.',
      'The *lean floor* is the same work as a minimal loop, run right after each engine cycle on the same fake API and machine (`leanCycle` in bench/evaluate.ts): the same bulk lists (sorted batches of 100, made once, with each node\'s index), each node\'s periods put at its index; a node missing from the lists asked alone; the active period picked (else the one that started last); its four fields compared with the last ones, kept by index (nothing looked up by NodeID that an index can find); the changed ones collected and written to SQLite (better-sqlite3, WAL, synchronous=NORMAL) in one transaction as JSON rows. It has none of the engine\'s duties (the kind\'s alerts and states, scrubbing secrets, lifecycle, routing, outbox rows, the revision check): the ratio is what they cost on top of the bare work.',
      '',
      '| kind, entities, cycle | total | lean floor | load | observe | evaluate | commit | samples | rest | GC | alerts |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
      ...results.flatMap((r) => {
        const m = (sel: (c: Cycle) => number) => median(r.steady.map(sel));
        const steady: Cycle = { total: m((c) => c.total), load: m((c) => c.load), observe: m((c) => c.observe), evaluate: m((c) => c.evaluate), commit: m((c) => c.commit), samples: m((c) => c.samples), gc: m((c) => c.gc), alerts: 0, at: 0 };
        const label = `${r.kind}, ${r.n.toLocaleString('en-US')}`;
        return [row(`${label}, baseline`, r.baseline, r.floor.baseline), row(`${label}, steady (median)`, steady, median(r.floor.steady)), row(`${label}, 1% change`, r.changed, r.floor.changed)];
      }),
      '',
      `State file after the run: ${results.map((r) => `${r.kind} ${r.n.toLocaleString('en-US')}: ${(r.dbBytes / 1024 / 1024).toFixed(1)} MB`).join(', ')}.`,
    ],
  };
}

/** A store for one measurement, and the bytes it holds at the end (SQLite: its file and WAL). */
export type OpenBenchStore = (dir: string) => Promise<{ store: StateStore; bytes: () => Promise<number> }>;

const sqliteFile: OpenBenchStore = async (dir) => {
  const file = join(dir, 'state.db');
  return { store: SqliteStore.open(file), bytes: async () => statSync(file).size + (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0) };
};

export async function measure(kind: 'validator-status' | 'validation-end', n: number, open: OpenBenchStore = sqliteFile): Promise<SizeResult> {
  const dir = mkdtempSync(join(tmpdir(), 'avawatch-bench-eval-'));
  const { store, bytes } = await open(dir);
  try {
    const nowS = Math.floor(Date.now() / 1000);
    const fake = new FakeDataApi();
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      ids.push(nodeId(i));
      fake.set(nodeId(i), [validator.parse(activeValidator(period(i, nowS)))]);
    }
    const parsed = ruleSchema.parse({ name: 'bench', kind, every: '30s', severity: 'critical', network: 'mainnet', nodeIds: ids }) as Record<string, unknown>;
    const { every, schedule, ...common } = parsed as unknown as RuleCommon;
    const rule: LoadedRule = {
      ...common,
      schedule: scheduleOf({ every, schedule }),
      spec: parsed,
      file: 'bench',
      line: 1,
      col: 1,
      locate: () => {
        throw new Error('not a file');
      },
    };
    const config = configSchema.parse({ route: { receivers: ['ops-slack'] } });
    // The metrics read the engine's samples; the engine needs the metrics.
    const ref: { engine?: Engine } = {};
    const metrics = createMetrics({
      version: 'bench',
      outboxPending: () => 0,
      firing: () => [],
      ruleSamples: (metric) => ref.engine?.samples(metric) ?? [],
      ruleGauges: Object.values(ruleKinds).flatMap((k) => k.gauges),
    });
    const engine = new Engine({
      store,
      data: { primary: fake } as unknown as DataApi,
      metricsApi: {} as MetricsApi,
      metrics,
      log: benchLogger().log,
      // As the App builds it: the route tree, its one receiver enabled.
      // As with an API key configured: every alert and state is scrubbed of it.
      pipeline: buildPipeline(config, { enabled: new Set(['ops-slack']), store, clock: systemClock, redact: (t) => scrub(t, SECRETS) }),
      failures: new FailureCounts(),
      failingAfter: config.health.failingAfter,
      failingSeverity: config.health.failingSeverity,
      clock: systemClock,
    });
    ref.engine = engine;
    // Time spent in the store and in the kind, by wrapping their methods (this process only).
    const spent = { load: 0, commit: 0, observe: 0, evaluate: 0, samples: 0 };
    const kindObject = ruleKinds[kind] as unknown as Record<'observe' | 'evaluate' | 'samples', (...args: unknown[]) => unknown>;
    const restore: Array<() => void> = [];
    for (const method of ['observe', 'evaluate', 'samples'] as const) {
      const original = kindObject[method];
      kindObject[method] = (...args: unknown[]) => {
        const t = performance.now();
        const out = original(...args);
        // observe is async: until its promise settles.
        if (out instanceof Promise) return out.finally(() => (spent[method] += performance.now() - t));
        spent[method] += performance.now() - t;
        return out;
      };
      restore.push(() => (kindObject[method] = original));
    }
    const wrap = <K extends 'stateRows' | 'loadActive' | 'commitEvaluation' | 'stateRowsOf' | 'revisionsOf' | 'loadActiveOf' | 'commitParts'>(name: K, bucket: keyof typeof spent) => {
      const original = store[name].bind(store) as (...args: unknown[]) => unknown;
      (store as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
        const t = performance.now();
        // Until its promise settles (PostgreSQL's work is all after the call returns).
        return (original(...args) as Promise<unknown>).finally(() => (spent[bucket] += performance.now() - t));
      };
    };
    wrap('stateRows', 'load');
    wrap('loadActive', 'load');
    wrap('commitEvaluation', 'commit');
    // A rule spread by entity (a shared store: PostgreSQL) reads and commits its parts.
    for (const name of ['stateRowsOf', 'revisionsOf', 'loadActiveOf'] as const) wrap(name, 'load');
    wrap('commitParts', 'commit');
    const signal = new AbortController().signal;
    const cycle = async (): Promise<Cycle> => {
      spent.load = 0;
      spent.commit = 0;
      spent.observe = 0;
      spent.evaluate = 0;
      spent.samples = 0;
      await collect();
      const t = performance.now();
      const alerts = await engine.evaluate(rule, signal);
      const total = performance.now() - t;
      return { total, load: spent.load, commit: spent.commit, observe: spent.observe, evaluate: spent.evaluate, samples: spent.samples, gc: 0, alerts: alerts.length, at: t };
    };
    const pauses = gcPauses();
    const lean = openLean(join(dir, 'lean.db'), ids);
    const floor = { baseline: 0, steady: [] as number[], changed: 0 };
    const baseline = await cycle();
    floor.baseline = await leanCycle(lean, fake);
    const steady: Cycle[] = [];
    for (let i = 0; i < STEADY_CYCLES; i++) {
      steady.push(await cycle());
      floor.steady.push(await leanCycle(lean, fake));
    }
    // 1% of the nodes change.
    for (let i = 0; i < n; i += 100) {
      const p = period(i, nowS);
      const item =
        kind === 'validator-status'
          ? completedValidator(p)
          : activeValidator({ ...p, endTimestamp: nowS + 2 * 86_400 });
      fake.set(nodeId(i), [validator.parse(item)]);
    }
    fake.settle();
    const changed = await cycle();
    floor.changed = await leanCycle(lean, fake);
    lean.db.close();
    await pauses.arrived();
    for (const c of [baseline, ...steady, changed]) c.gc = pauses.within(c.at, c.total);
    pauses.stop();
    const dbBytes = await bytes();
    for (const undo of restore) undo();
    return { kind, n, baseline, steady, changed, dbBytes, floor };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The GC pauses from now on, to count those inside a cycle. */
function gcPauses(): { within(at: number, ms: number): number; arrived(): Promise<void>; stop(): void } {
  const seen: Array<{ startTime: number; duration: number }> = [];
  const observer = new PerformanceObserver((list) => seen.push(...list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  return {
    within: (at, ms) => seen.filter((e) => e.startTime >= at && e.startTime < at + ms).reduce((sum, e) => sum + e.duration, 0),
    // Entries are delivered some time after the pause (not within one turn of the event loop).
    arrived: () => sleep(100),
    stop: () => observer.disconnect(),
  };
}

/** The lean loop's own things: its SQLite file, the batches, the periods it last saw. */
interface Lean {
  db: Database.Database;
  upsert: Database.Statement;
  ids: readonly string[];
  batches: string[][];
  /** Per batch, each node's index in ids (made once, with the batches). */
  places: Array<Map<string, number>>;
  /** The period each node had, by its index in ids. */
  last: Array<{ txHash: string; status: string; startTimestamp: number; endTimestamp: number } | undefined>;
}

function openLean(file: string, ids: readonly string[]): Lean {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE entity_state (rule TEXT NOT NULL, entity TEXT NOT NULL, state TEXT NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (rule, entity))');
  const upsert = db.prepare('INSERT INTO entity_state (rule, entity, state, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (rule, entity) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at');
  const index = new Map(ids.map((id, i) => [id, i]));
  const batches = filterBatches(ids, VALIDATOR_BATCH);
  const places = batches.map((batch) => new Map(batch.map((id) => [id, index.get(id) as number])));
  return { db, upsert, ids, batches, places, last: new Array(ids.length) };
}

/**
 * The floor: the same work as the engine's cycle, as a minimal loop (group the bulk answers,
 * pick the active period, compare its fields, collect the changes, write them in one
 * transaction), on the same fake API, with nothing looked up by NodeID that an index can
 * find. Returns its time in ms.
 */
async function leanCycle(lean: Lean, fake: FakeDataApi): Promise<number> {
  await collect();
  const t = performance.now();
  const listed = new Array<Validator | Validator[] | undefined>(lean.ids.length);
  for (const [b, nodeIds] of lean.batches.entries()) {
    const place = lean.places[b] as Map<string, number>;
    const list = await fake.validatorList('mainnet', { nodeIds, validationStatus: 'active' });
    for (const v of list.periods) {
      const i = place.get(v.nodeId);
      if (i === undefined) continue;
      const mine = listed[i];
      listed[i] = mine === undefined ? v : Array.isArray(mine) ? [...mine, v] : [mine, v];
    }
  }
  const changes: Array<[string, string]> = [];
  for (let i = 0; i < lean.ids.length; i++) {
    const id = lean.ids[i] as string;
    let seen = listed[i];
    if (seen === undefined) {
      const own = await fake.validatorPeriods('mainnet', id);
      if (own === 'not-found' || own.length === 0) continue;
      seen = own;
    }
    let chosen = Array.isArray(seen) ? (seen[0] as Validator) : seen;
    if (Array.isArray(seen)) for (const p of seen) if ((p.validationStatus === 'active') !== (chosen.validationStatus === 'active') ? p.validationStatus === 'active' : p.startTimestamp > chosen.startTimestamp) chosen = p;
    const last = lean.last[i];
    if (last && last.txHash === chosen.txHash && last.status === chosen.validationStatus && last.startTimestamp === chosen.startTimestamp && last.endTimestamp === chosen.endTimestamp) continue;
    const now = { txHash: chosen.txHash, status: chosen.validationStatus, startTimestamp: chosen.startTimestamp, endTimestamp: chosen.endTimestamp };
    lean.last[i] = now;
    changes.push([id, JSON.stringify({ period: now })]);
  }
  const at = Date.now();
  lean.db.transaction(() => {
    for (const [id, json] of changes) lean.upsert.run('lean', id, json, at);
  })();
  return performance.now() - t;
}
