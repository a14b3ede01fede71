import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, expect } from 'vitest';
import { activeValidator } from '../../src/sim/samples.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import type { Daemon } from './cli.js';
import { testNodeId } from './node-ids.js';
import { postgresForFile } from './postgres-file.js';
import { pollLeases, type RunningPostgres } from './postgres.js';
import { startSharing } from './shared-daemons.js';
import type { TcpProxy } from './tcp-proxy.js';

// Shared state (issue 43): three `avawatch run` processes on one config and one PostgreSQL
// database. The 256 virtual shards are held on leases; a rule of one node is evaluated only by
// the holder of its node's shard, and every commit is fenced by that shard's epoch. What an operator sees
// is what is asserted: each instance's /metrics and /readyz, its JSON log, and the one
// webhook receiver every instance sends to. Each instance reaches PostgreSQL through a TCP
// proxy of its own (test/helpers/tcp-proxy.ts), the network a test can cut.
//
// The fixture of test/integration/shared-state*.test.ts, three files run side by side (one was
// the suite's longest, 96 s): each its own PostgreSQL cluster, its tests one after another.
//
// Everything here is on the wall clock: three processes, and leases timed by PostgreSQL's
// now(). Every wait goes through poll() below, and each deadline is derived from LEASE_MS.

/** `state.lease`: short, so that a takeover is seconds away. Renewals run every lease/3. */
export const LEASE_MS = 2_000;
/** Every rule's `every`. */
export const INTERVAL_MS = 1_000;
/**
 * What a loaded machine adds to a deadline (two cores shared: three daemons, PostgreSQL, the
 * test): a process late to its timer, a statement late to commit.
 */
export const SLACK_MS = LEASE_MS;
/** Rebalancing: instances join one by one and each settles at about 256/n. */
export const SETTLE_MS = 6 * LEASE_MS + SLACK_MS;
/** A dead or paused holder's rules are evaluated elsewhere once its lease ends: one lease, the rule's next tick. */
export const TAKEOVER_MS = LEASE_MS + INTERVAL_MS + SLACK_MS;
/** One poll of the service, a commit and a post to the loopback receiver. */
export const NOTIFY_MS = 2 * INTERVAL_MS + SLACK_MS;
/**
 * Back after PostgreSQL restarted: the server answers again; each instance's next round (a third
 * of a lease) takes what is free, the first back may take every shard, and its next round gives
 * the surplus back for the others to take (their round after). A few leases.
 */
export const REJOIN_MS = 3 * LEASE_MS + SLACK_MS;
export const SHARDS = 256;

/**
 * Six rules of one cheap kind (validation-end: one bulk call a poll), each on a node of its own.
 * validation-end is spread by entity: a rule of one node is evaluated by the holder of its node's
 * shard. The nodes are chosen so their shards are spread over the 256 (one in each sixth of the
 * range): however the shards are split between three instances, the rules fall on more than one.
 */
export const RULES = ['ending-t', 'ending-v', 'ending-g', 'ending-i', 'ending-p', 'ending-r'] as const;
export type Rule = (typeof RULES)[number];
export const RULE_SHARDS: Readonly<Record<Rule, number>> = { 'ending-t': 15, 'ending-v': 53, 'ending-g': 114, 'ending-i': 152, 'ending-p': 195, 'ending-r': 233 };
const SEEDS: Readonly<Record<Rule, string>> = { 'ending-t': 'ending-t/143', 'ending-v': 'ending-v/85', 'ending-g': 'ending-g/141', 'ending-i': 'ending-i/719', 'ending-p': 'ending-p/171', 'ending-r': 'ending-r/41' };
export const NODES: Readonly<Record<Rule, string>> = Object.fromEntries(RULES.map((r) => [r, testNodeId(SEEDS[r])])) as Record<Rule, string>;

/** Every real wait of these files: three `avawatch run` processes on PostgreSQL's leases (test/helpers/postgres.ts). */
export const poll = pollLeases;

/** One alert of a notification: `<rule> <status>`, and which instance sent it (the path it posted to). */
interface Notified {
  alert: string;
  from: string;
}

/** The webhook receiver: every alert of every notification (a digest's each on its own), in order. */
interface Receiver {
  /** Its base URL: each instance posts to `<url>/<its name>`. */
  url: string;
  got: Notified[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const got: Notified[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { alerts: Array<{ rule: string; status: string }> };
      const from = (req.url ?? '').replace(/^\/hook\//, '');
      for (const a of body.alerts) got.push({ alert: `${a.rule} ${a.status}`, from });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    got,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** What one scrape of an instance's /metrics says. */
export interface Scrape {
  /** avawatch_rule_evaluations_total by rule (0 for a rule it never evaluated). */
  evaluations: Record<Rule, number>;
  held: number | undefined;
  steppedDown: number | undefined;
  outboxPending: number | undefined;
}

export interface Instance {
  name: string;
  daemon: Daemon;
  /** Its server's base URL (/metrics, /readyz). */
  url: string;
  /** Between it and PostgreSQL. */
  proxy: TcpProxy;
}

/** The last answer of each instance's /metrics that was not a 200 (what a failed test shows). */
const badScrapes = new Map<string, string>();

/** One scrape; an instance that does not answer with its metrics within a lease (paused, dead, failing) gives undefined. */
export async function scrape(i: Instance): Promise<Scrape | undefined> {
  let text: string;
  try {
    const res = await fetch(`${i.url}/metrics`, { signal: AbortSignal.timeout(LEASE_MS) });
    text = await res.text();
    if (res.status !== 200) {
      badScrapes.set(i.name, `${new Date().toISOString()} ${res.status}: ${text.slice(0, 300)}`);
      return undefined;
    }
  } catch (err) {
    badScrapes.set(i.name, `${new Date().toISOString()} ${String(err)}`);
    return undefined;
  }
  const value = (name: string): number | undefined => {
    const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
    return m ? Number(m[1]) : undefined;
  };
  const evaluations = Object.fromEntries(
    RULES.map((r) => [r, Number(new RegExp(`^avawatch_rule_evaluations_total\\{rule="${r}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0)]),
  ) as Record<Rule, number>;
  return { evaluations, held: value('avawatch_shards_held'), steppedDown: value('avawatch_shared_state_stepped_down'), outboxPending: value('avawatch_outbox_pending') };
}

/** Scrapes of all of them, or undefined if one does not answer. */
export async function scrapeAll(instances: readonly Instance[]): Promise<Scrape[] | undefined> {
  const all = await Promise.all(instances.map(scrape));
  return all.every((s) => s !== undefined) ? all : undefined;
}

/** Scrapes of all of them now: each must answer. */
export async function scrapeNow(instances: readonly Instance[]): Promise<Scrape[]> {
  const all = await Promise.all(instances.map(scrape));
  const silent = instances.filter((_, k) => all[k] === undefined).map((i) => i.name);
  if (silent.length > 0) throw new Error(`no answer from /metrics of ${silent.join(', ')}`);
  return all as Scrape[];
}

/** GET /readyz: its status and text. */
export async function readyz(i: Instance): Promise<{ status: number; text: string }> {
  const res = await fetch(`${i.url}/readyz`, { signal: AbortSignal.timeout(LEASE_MS) });
  return { status: res.status, text: await res.text() };
}

/** The instance's 'shards changed' log lines, in order. */
export function shardChanges(i: Instance): Array<{ held: number; gained: number[]; lost: number[] }> {
  return i.daemon
    .log()
    .split('\n')
    .flatMap((line) => {
      if (!line.includes('"shards changed"')) return [];
      const entry = JSON.parse(line) as { msg: string; held: number; gained: number[]; lost: number[] };
      return entry.msg === 'shards changed' ? [entry] : [];
    });
}

/** The shards it holds, by its log: every gain and loss replayed. */
export function heldByLog(i: Instance): Set<number> {
  const held = new Set<number>();
  for (const change of shardChanges(i)) {
    for (const s of change.gained) held.add(s);
    for (const s of change.lost) held.delete(s);
  }
  return held;
}

export const moved = (before: Scrape, after: Scrape, rule: Rule): number => after.evaluations[rule] - before.evaluations[rule];

// The running test's: a worker runs its files one after another, and each test sets these anew.
let postgres: RunningPostgres;
let sim: SimServer;
let receiver: Receiver;
let dir: string;
/** Every daemon and proxy the test started, to be stopped after it (a daemon that never came up too). */
let daemons: Daemon[] = [];
let proxies: TcpProxy[] = [];
/** The test's three, once up, and their database (its direct URL): what a failure is explained by. */
let running: { live: Instance[]; database: string } | undefined;
/** A watch of the shards held (watchHeld()) the test started: stopped after it, whatever happened. */
let watching: HeldWatch | undefined;

/**
 * Registers the calling file's fixture: its own PostgreSQL cluster, and around each test a
 * simulator, the receiver and a directory; after it, every process it started is killed.
 */
export function threeOnPostgres(): void {
  const cluster = postgresForFile();
  beforeEach(async () => {
    postgres = cluster;
    await setUp();
  });
  afterEach(tearDown);
}

async function setUp(): Promise<void> {
  sim = await startSim();
  receiver = await startReceiver();
  dir = mkdtempSync(join(tmpdir(), 'avawatch-shared-'));
  // Every node's period ends in 200 days: nothing to say until the test changes one.
  for (const rule of RULES) sim.world.setValidators('mainnet', NODES[rule], [period(rule, 'first', 200)]);
}

async function tearDown({ task }: { task: { result?: { state?: string } } }): Promise<void> {
  if (task.result?.state === 'fail' && running) await explain(running.live, running.database);
  running = undefined;
  await watching?.stop().catch(() => undefined);
  watching = undefined;
  // SIGKILL ends a stopped process too.
  await Promise.all(daemons.map((d) => d.kill()));
  daemons = [];
  await Promise.all(proxies.map((p) => p.close()));
  proxies = [];
  await sim.close();
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
}

/** The running test's simulated service, its receiver's notifications, its cluster, its three's database (direct URL). */
export const world = () => sim.world;
export const received = (): readonly Notified[] => receiver.got;
export const cluster = (): RunningPostgres => postgres;
export const databaseUrl = (): string => running?.database ?? '';

/** watchHeld(), stopped after the test whatever happened. */
export function watchHeldInTest(live: readonly Instance[], timeoutMs: number): HeldWatch {
  watching = watchHeld(live, timeoutMs);
  return watching;
}

/** The node of `rule` in a validation period that ends `days` from the simulator's now. */
export function period(rule: Rule, txHash: string, days: number) {
  const now = sim.world.clock.now();
  return activeValidator({ nodeId: NODES[rule], txHash, startTimestamp: now - 86_400, endTimestamp: now + days * 86_400 });
}

/**
 * The one config all instances run (each in a directory of its own: nothing local is shared).
 * What differs is each one's environment, as on hosts of their own: STATE_URL, the database
 * through its proxy, and HOOK_URL, the receiver's path that names it.
 */
function writeConfig(): string {
  const configFile = join(dir, 'avawatch.yaml');
  writeFileSync(
    configFile,
    `api:
  dataUrl: ${sim.url}
  retries: 0
  timeout: 2s
  dedupeWindow: 0s
state:
  url: \${STATE_URL}
  lease: ${LEASE_MS / 1000}s
server:
  listen: 127.0.0.1:0
route:
  receivers: [hook]
receivers:
  - name: hook
    type: webhook
    url: \${HOOK_URL}
    timeout: 2s
delivery:
  backoff: 100ms
  backoffMax: 500ms
health:
  failingAfter: 20    # blindness is not what these tests judge: a loaded machine's slow answers must not page
ruleFiles: [${join(dir, 'rules.yaml')}]
`,
  );
  writeFileSync(
    join(dir, 'rules.yaml'),
    `rules:\n${RULES.map((r) => `  - {name: ${r}, kind: validation-end, every: ${INTERVAL_MS / 1000}s, severity: warning, network: mainnet, nodeIds: [${NODES[r]}], warnBefore: [3d]}`).join('\n')}\n`,
  );
  return configFile;
}

/** Three `avawatch run` on one config and a fresh database, each listening on a port of its own. */
export async function startThree(database: string): Promise<Instance[]> {
  const direct = await postgres.database(database);
  const { pathname } = new URL(direct);
  const configFile = writeConfig();
  const started = await startSharing({ configFile, dir, names: ['one', 'two', 'three'], postgresPort: postgres.port, pathname, hookUrl: receiver.url, into: { daemons, proxies } });
  const live = await Promise.all(started.map(async (s) => ({ ...s, url: await s.daemon.started(20_000) })));
  badScrapes.clear();
  running = { live, database: direct };
  return live;
}

/**
 * What a failed test prints, before its processes are killed: the database's sessions that are
 * not idle (one "idle in transaction" that others wait for is a paused process holding a row
 * lock), and for each instance its last log lines (the repeated "previous evaluation still
 * running", an instance waiting on the database, counted) and the last answer of its /metrics
 * that was not its metrics.
 */
async function explain(live: readonly Instance[], database: string): Promise<void> {
  const client = new pg.Client({ connectionString: database, connectionTimeoutMillis: LEASE_MS });
  try {
    await client.connect();
    const { rows } = await client.query<{ pid: number; state: string; wait: string | null; since: string; query: string }>(
      `SELECT pid, state, wait_event_type || ':' || wait_event AS wait, xact_start::text AS since, left(query, 120) AS query
         FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'`,
    );
    console.error(`--- sessions not idle:\n${rows.map((r) => `${r.pid} ${r.state} ${r.wait ?? ''} since ${r.since}: ${r.query}`).join('\n')}`);
  } catch (err) {
    console.error(`--- sessions: ${String(err)}`);
  } finally {
    await client.end().catch(() => undefined);
  }
  for (const i of live) {
    const lines = i.daemon.log().trimEnd().split('\n');
    const stillRunning = lines.filter((l) => l.includes('"previous evaluation still running')).length;
    // A fatal line (a fault nothing handled, with its stack) in full; the others cut.
    const shown = lines.filter((l) => !l.includes('"previous evaluation still running')).slice(-15).map((l) => (l.startsWith('{"level":60') ? l : l.slice(0, 300)));
    const bad = badScrapes.get(i.name);
    console.error(`--- ${i.name}: ${stillRunning} "previous evaluation still running" lines, then its last others:\n${shown.join('\n')}${bad ? `\n--- its last failed /metrics: ${bad}` : ''}`);
  }
}

/**
 * Waits until the instances hold all 256 shards between them, each some, and then for a window
 * in which no instance's count changed and every rule was evaluated at least three times; returns
 * which instance evaluated each rule in that window (every one that did).
 */
export async function settled(live: readonly Instance[]): Promise<Record<Rule, Instance[]>> {
  await poll(
    async () => {
      const s = await scrapeAll(live);
      return s !== undefined && s.every((x) => (x.held ?? 0) > 0) && s.reduce((sum, x) => sum + (x.held ?? 0), 0) === SHARDS;
    },
    `${live.length} instances to hold the ${SHARDS} shards between them, each some`,
    SETTLE_MS,
  );
  let start: Scrape[] | undefined;
  let changes: number[] = [];
  const [first, last] = await poll(
    async () => {
      const now = await scrapeAll(live);
      if (now === undefined) return undefined;
      // A shard that moved keeps the counts as they were (one lost, one gained): its log says so.
      const logged = live.map((i) => shardChanges(i).length);
      if (start === undefined || now.some((x, k) => x.held !== start?.[k]?.held) || logged.some((n, k) => n !== changes[k])) {
        start = now;
        changes = logged;
        return undefined;
      }
      const window = start;
      return RULES.every((r) => now.reduce((sum, x, k) => sum + moved(window[k] as Scrape, x, r), 0) >= 3) ? [window, now] : undefined;
    },
    'a window with every rule evaluated three times and no shard moving',
    SETTLE_MS,
  );
  return Object.fromEntries(RULES.map((r) => [r, live.filter((_, k) => moved(first[k] as Scrape, last[k] as Scrape, r) > 0)])) as Record<Rule, Instance[]>;
}

/** The one instance that evaluated `rule` (settled() found exactly one). */
export function holderOf(evaluators: Record<Rule, Instance[]>, rule: Rule): Instance {
  const [holder, ...more] = evaluators[rule];
  expect(more, `${rule} is evaluated by one instance`).toEqual([]);
  if (holder === undefined) throw new Error(`no instance evaluated ${rule}`);
  return holder;
}

/** Waits until some instance of `others` evaluated `rule` again (after `before`, their scrapes in the same order). */
export async function evaluatedElsewhere(others: readonly Instance[], before: readonly Scrape[], rule: Rule, timeoutMs: number): Promise<Instance> {
  return poll(
    async () => {
      const now = await scrapeAll(others);
      return now?.map((s, k) => (moved(before[k] as Scrape, s, rule) > 0 ? others[k] : undefined)).find((i) => i !== undefined);
    },
    `another instance to evaluate ${rule}`,
    timeoutMs,
  );
}

/**
 * Waits until a duplicate would be on its way: `rule` evaluated twice more (by whoever holds it)
 * and every instance's outbox empty. A commit that was not refused would be sent by then.
 */
export async function quiet(live: readonly Instance[], rule: Rule): Promise<void> {
  const before = await scrapeNow(live);
  await poll(
    async () => {
      const now = await scrapeAll(live);
      return now !== undefined && now.reduce((sum, s, k) => sum + moved(before[k] as Scrape, s, rule), 0) >= 2 && now.every((s) => s.outboxPending === 0);
    },
    `${rule} evaluated twice more and every outbox empty`,
    NOTIFY_MS + 2 * INTERVAL_MS,
  );
}

/** What the webhook receiver got, as `<rule> <status>` → count. */
export function notified(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { alert } of receiver.got) counts[alert] = (counts[alert] ?? 0) + 1;
  return counts;
}

/** Waits for the receiver to get `alert` (`<rule> <status>`). */
export const notifiedOf = (alert: string) => poll(() => receiver.got.some((n) => n.alert === alert), `the notification "${alert}"`, NOTIFY_MS);

/** What each instance's avawatch_shards_held said at one sampled moment (undefined: it did not answer). */
export interface HeldSample {
  at: number;
  held: Array<number | undefined>;
}

export interface HeldWatch {
  samples: HeldSample[];
  /** Ends the watch (its poll answers within one scrape). */
  stop(): Promise<void>;
}

/**
 * Samples every instance's avawatch_shards_held at each poll (every 200 ms, the instances
 * scraped at once) until stopped: what an operator's scraper would have seen meanwhile.
 */
export function watchHeld(live: readonly Instance[], timeoutMs: number): HeldWatch {
  const samples: HeldSample[] = [];
  let stopped = false;
  const done = poll(
    async () => {
      if (stopped) return true;
      const all = await Promise.all(live.map(scrape));
      samples.push({ at: Date.now(), held: all.map((s) => s?.held) });
      return undefined;
    },
    'the watch of the shards held to be stopped',
    timeoutMs,
  );
  done.catch(() => undefined);
  return {
    samples,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

/** The shards held at a sampled moment by those that answered (a lower bound when one did not). */
export const heldSum = (s: HeldSample): number => s.held.reduce<number>((sum, h) => sum + (h ?? 0), 0);

/** The `leases` table as the database has it now: each shard's holder while its lease runs (by the database's clock), else null. */
async function liveLeases(database: string): Promise<Array<{ shard: number; holder: string | null }>> {
  const client = new pg.Client({ connectionString: database, connectionTimeoutMillis: LEASE_MS });
  await client.connect();
  try {
    const { rows } = await client.query<{ shard: number; holder: string | null }>(`SELECT shard, CASE WHEN expires_at > now() THEN holder END AS holder FROM leases ORDER BY shard`);
    return rows;
  } finally {
    await client.end();
  }
}

/** The instance a lease holder names (`<host>:<pid>:<random>`, app/shards.ts), by its process id; else the holder as it is. */
function instanceOf(live: readonly Instance[], holder: string | null): string {
  return live.find((i) => holder?.startsWith(`${hostname()}:${i.daemon.child.pid}:`) === true)?.name ?? holder ?? 'no one';
}

/**
 * Each shard's holder by the leases table, when the table, the instances' logs (every gain and
 * loss replayed) and their avawatch_shards_held all agree that each shard has exactly one
 * holder, one of the instances; else where they disagree.
 */
export async function oneHolderEach(live: readonly Instance[], database: string): Promise<{ holders: string[] } | { disagree: string[] }> {
  const [leases, scrapes] = await Promise.all([liveLeases(database), scrapeAll(live)]);
  const holders = leases.map((l) => instanceOf(live, l.holder));
  const disagree = leases.flatMap((l, k) => {
    const byLog = live.filter((i) => heldByLog(i).has(l.shard)).map((i) => i.name);
    return byLog.length === 1 && byLog[0] === holders[k] ? [] : [`shard ${l.shard}: ${holders[k]} by the table, [${byLog.join(', ')}] by the logs`];
  });
  if (leases.length !== SHARDS) disagree.push(`${leases.length} leases in the table`);
  for (const [k, i] of live.entries()) {
    const inTable = holders.filter((h) => h === i.name).length;
    if (scrapes?.[k]?.held !== inTable) disagree.push(`${i.name}: ${scrapes?.[k]?.held} held by its gauge, ${inTable} by the table`);
  }
  return disagree.length === 0 ? { holders } : { disagree };
}
