import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shardOf } from '../../src/base/shard.js';
import { activeValidator } from '../../src/sim/samples.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import type { Daemon } from '../helpers/cli.js';
import { testNodeId } from '../helpers/node-ids.js';
import { postgresForFile } from '../helpers/postgres-file.js';
import { pollLeases } from '../helpers/postgres.js';
import { startSharing } from '../helpers/shared-daemons.js';
import type { TcpProxy } from '../helpers/tcp-proxy.js';

// Work spread by entity (issue 43, docs/design/entity-spread.md): three `avawatch run`
// processes on one PostgreSQL database and ONE validation-end rule over 150 nodes. Each
// instance evaluates the nodes whose shard (a hash of the NodeID) it holds, and keeps them in
// the rule's part `ends#SSS`. What is asserted is what an operator sees: each instance's
// /metrics and log, the database's rows, the simulator's requests, and the one webhook receiver.
// Every wait goes through poll() (onLeases: leases timed by PostgreSQL's now()).

const LEASE_MS = 2_000;
const INTERVAL_MS = 1_000;
/** What a loaded machine adds to a deadline (two cores: three daemons, PostgreSQL, the test). */
const SLACK_MS = LEASE_MS;
const SETTLE_MS = 6 * LEASE_MS + SLACK_MS;
/** A dead holder's nodes are evaluated elsewhere once its leases end: one lease, a renewal round, the next tick. */
const TAKEOVER_MS = LEASE_MS + LEASE_MS / 3 + INTERVAL_MS + SLACK_MS;
const NOTIFY_MS = 2 * INTERVAL_MS + SLACK_MS;
const SHARDS = 256;
const RULE = 'ends';
/** Two pages of the bulk list: a rule of one page (100 nodes or fewer) stays whole (engine/parts.ts, worthSpreading). */
const NODES = Array.from({ length: 150 }, (_, k) => testNodeId(`spread-${k}`));
/** The Data API's page of a bulk list: at most this many NodeIDs a call. */
const BATCH = 100;

const poll = pollLeases;

interface Instance {
  name: string;
  daemon: Daemon;
  url: string;
}

/** What one scrape of an instance's /metrics says: the rule's evaluations, the shards held, the NodeIDs it exports. */
interface Scrape {
  evaluations: number;
  held: number;
  nodes: Set<string>;
  pending: number;
}

async function scrape(i: Instance): Promise<Scrape | undefined> {
  try {
    const res = await fetch(`${i.url}/metrics`, { signal: AbortSignal.timeout(LEASE_MS) });
    if (res.status !== 200) return undefined;
    const text = await res.text();
    const value = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
    const nodes = new Set([...text.matchAll(/^avawatch_validation_end_timestamp_seconds\{[^}]*node_id="([^"]+)"/gm)].map((m) => m[1] as string));
    return {
      evaluations: value(new RegExp(`^avawatch_rule_evaluations_total\\{rule="${RULE}"\\} (\\S+)$`, 'm')),
      held: value(/^avawatch_shards_held (\S+)$/m),
      nodes,
      pending: value(/^avawatch_outbox_pending (\S+)$/m),
    };
  } catch {
    return undefined;
  }
}

async function scrapeAll(live: readonly Instance[]): Promise<Scrape[] | undefined> {
  const all = await Promise.all(live.map(scrape));
  return all.every((s) => s !== undefined) ? all : undefined;
}

/** The shards an instance holds, by its 'shards changed' log lines replayed. */
function heldByLog(i: Instance): Set<number> {
  const held = new Set<number>();
  for (const line of i.daemon.log().split('\n')) {
    if (!line.includes('"shards changed"')) continue;
    const entry = JSON.parse(line) as { gained: number[]; lost: number[] };
    for (const s of entry.gained) held.add(s);
    for (const s of entry.lost) held.delete(s);
  }
  return held;
}

/** The nodes whose shard the instance holds. */
const nodesOf = (i: Instance): string[] => NODES.filter((n) => heldByLog(i).has(shardOf(n)));

const postgres = postgresForFile();
let sim: SimServer;
let dir: string;
let daemons: Daemon[] = [];
let proxies: TcpProxy[] = [];
/** Each alert posted to the webhook: `<node> <status>`, and which instance sent it. */
let got: Array<{ alert: string; from: string }> = [];
let hook: Server;
let hookUrl: string;

/** The node's validation period, ending `days` from the simulator's now. */
function period(node: string, days: number) {
  const now = sim.world.clock.now();
  return activeValidator({ nodeId: node, txHash: `tx-${node.slice(7, 15)}`, startTimestamp: now - 86_400, endTimestamp: now + days * 86_400 });
}

beforeEach(async () => {
  sim = await startSim();
  dir = mkdtempSync(join(tmpdir(), 'avawatch-spread-'));
  got = [];
  hook = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { alerts: Array<{ status: string; labels: Record<string, string> }> };
      for (const a of body.alerts) got.push({ alert: `${a.labels['node'] ?? '?'} ${a.status}`, from: (req.url ?? '').replace(/^\/hook\//, '') });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  // Every period ends in 200 days: nothing to say until the test changes one.
  for (const node of NODES) sim.world.setValidators('mainnet', node, [period(node, 200)]);
});

afterEach(async () => {
  await Promise.all(daemons.map((d) => d.kill()));
  daemons = [];
  await Promise.all(proxies.map((p) => p.close()));
  proxies = [];
  await sim.close();
  hook.closeAllConnections();
  await new Promise<void>((r) => hook.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

/** Three `avawatch run` on one config (the rule over the 150 nodes) and a fresh database. */
async function startThree(database: string): Promise<{ live: Instance[]; direct: string }> {
  const direct = await postgres.database(database);
  const configFile = join(dir, 'avawatch.yaml');
  writeFileSync(
    configFile,
    `api:\n  dataUrl: ${sim.url}\n  retries: 0\n  timeout: 2s\n  dedupeWindow: 0s\nstate:\n  url: \${STATE_URL}\n  lease: ${LEASE_MS / 1000}s\nserver:\n  listen: 127.0.0.1:0\n` +
      `route:\n  receivers: [hook]\nreceivers:\n  - name: hook\n    type: webhook\n    url: \${HOOK_URL}\n    timeout: 2s\ndelivery:\n  backoff: 100ms\n  backoffMax: 500ms\n` +
      `health:\n  failingAfter: 20\nruleFiles: [${join(dir, 'rules.yaml')}]\n`,
  );
  writeFileSync(join(dir, 'rules.yaml'), `rules:\n  - {name: ${RULE}, kind: validation-end, every: ${INTERVAL_MS / 1000}s, severity: warning, network: mainnet, nodeIds: [${NODES.join(', ')}], warnBefore: [3d]}\n`);
  const { pathname } = new URL(direct);
  const started = await startSharing({ configFile, dir, names: ['one', 'two', 'three'], postgresPort: postgres.port, pathname, hookUrl, into: { daemons, proxies } });
  return { live: await Promise.all(started.map(async (s) => ({ ...s, url: await s.daemon.started(20_000) }))), direct };
}

/**
 * All 256 shards held between the instances, then a window with no shard moving in which every
 * instance holding a node evaluated the rule three times and shows exactly its nodes.
 */
async function settled(live: readonly Instance[]): Promise<{ last: Scrape[] }> {
  await poll(async () => (await scrapeAll(live))?.reduce((sum, s) => sum + s.held, 0) === SHARDS, `the ${SHARDS} shards held between the instances`, SETTLE_MS);
  let start: { scrapes: Scrape[]; held: string[] } | undefined;
  return poll(
    async () => {
      const now = await scrapeAll(live);
      if (!now) return undefined;
      // Its log agreeing with its gauge (a log line may come after the gauge moved).
      if (live.some((i, k) => heldByLog(i).size !== now[k]?.held)) return undefined;
      const held = live.map((i) => [...heldByLog(i)].sort().join(','));
      if (!start || held.some((h, k) => h !== start?.held[k])) {
        start = { scrapes: now, held };
        return undefined;
      }
      const first = start.scrapes;
      const done = live.every((i, k) => nodesOf(i).length === 0 || (now[k] as Scrape).evaluations - (first[k] as Scrape).evaluations >= 3);
      const shown = live.every((i, k) => sameSet(now[k]?.nodes ?? new Set(), nodesOf(i)));
      return done && shown ? { last: now } : undefined;
    },
    'a window with no shard moving, each holder evaluating three times and showing its nodes',
    SETTLE_MS,
  );
}

const sameSet = (a: ReadonlySet<string>, b: readonly string[]): boolean => a.size === b.length && b.every((x) => a.has(x));

/** The NodeIDs a bulk list request asked for. */
const listed = (request: string): string[] => (new URL(request.replace(/^GET /, 'http://sim')).searchParams.get('nodeIds') ?? '').split(',').filter((n) => n !== '');

const counts = (): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const { alert } of got) out[alert] = (out[alert] ?? 0) + 1;
  return out;
};

/** The rule evaluated twice more by the instances and their outboxes empty: a duplicate would be on its way by then. */
async function quiet(live: readonly Instance[]): Promise<void> {
  const before = await scrapeAll(live);
  await poll(
    async () => {
      const now = await scrapeAll(live);
      return now !== undefined && before !== undefined && now.reduce((sum, s, k) => sum + s.evaluations - (before[k] as Scrape).evaluations, 0) >= 2 * live.length && now.every((s) => s.pending === 0);
    },
    'the rule evaluated twice more by each and every outbox empty',
    NOTIFY_MS + 2 * INTERVAL_MS,
  );
}

/** Three instances settled, and one of them holding `count` nodes at least (the first such), apart from the rest. */
async function settledWithOneHolding(database: string, count: number): Promise<{ live: Instance[]; one: Instance; rest: Instance[] }> {
  const { live } = await startThree(database);
  await settled(live);
  const one = live.find((i) => nodesOf(i).length >= count);
  if (!one) throw new Error(`no instance holds ${count} nodes`);
  return { live, one, rest: live.filter((i) => i !== one) };
}

/** Every node on these instances' /metrics between them: a departed one's taken over. */
async function takenOver(instances: readonly Instance[], what: string): Promise<void> {
  await poll(
    async () => {
      const s = await scrapeAll(instances);
      return s !== undefined && new Set(s.flatMap((x) => [...x.nodes])).size === NODES.length;
    },
    what,
    TAKEOVER_MS,
  );
}

describe('shared state: one rule spread by entity over three instances', () => {
  it("each instance evaluates and exports exactly the nodes of the shards it holds, keeps them in the rule's parts, and asks for them in one bulk list a poll", async () => {
    const { live, direct } = await startThree('spread_entities');
    const { last } = await settled(live);
    const mine = live.map(nodesOf);
    // Disjoint, and all 150 between them.
    expect(mine.flat().sort()).toEqual([...NODES].sort());
    for (const [k, i] of live.entries()) expect([...(last[k]?.nodes ?? [])].sort(), `${i.name}'s /metrics`).toEqual([...(mine[k] ?? [])].sort());

    const client = new pg.Client({ connectionString: direct });
    await client.connect();
    try {
      const { rows } = await client.query<{ rule: string; entity: string }>('SELECT rule, entity FROM entity_state ORDER BY entity');
      expect(rows.map((r) => r.entity).sort()).toEqual([...NODES].sort());
      for (const r of rows) expect(r.rule, r.entity).toBe(`${RULE}#${String(shardOf(r.entity)).padStart(3, '0')}`);
    } finally {
      await client.end();
    }

    // Settled: each bulk list names the nodes of one instance only, and an instance asks at most
    // ceil(held/100) of them a poll (one evaluation in flight at the window's start may add its own).
    const windowStart = sim.requests.length;
    await quiet(live);
    const after = await scrapeAll(live);
    const inWindow = sim.requests.slice(windowStart).filter((r) => /^GET \/v1\/networks\/mainnet\/validators\?/.test(r)).map(listed);
    expect(inWindow.length).toBeGreaterThan(0);
    for (const list of inWindow) expect(mine.filter((m) => list.some((n) => m.includes(n))), `one instance's nodes in the ${list.length} asked`).toHaveLength(1);
    for (const [k, i] of live.entries()) {
      const asked = inWindow.filter((list) => list.some((n) => mine[k]?.includes(n))).length;
      const polls = (after?.[k]?.evaluations ?? 0) - (last[k]?.evaluations ?? 0);
      expect(asked, `${i.name}: ${asked} lists in ${polls} polls of ${mine[k]?.length} nodes`).toBeLessThanOrEqual((polls + 1) * Math.ceil((mine[k]?.length ?? 0) / BATCH));
    }
    expect(counts()).toEqual({});
  }, 90_000);

  it("kill -9 of one instance: its nodes show on the others' /metrics within a takeover; a node firing before stays firing (no resolution, no second firing); a change after is told once", async () => {
    const { one: victim, rest: survivors } = await settledWithOneHolding('spread_kill', 2);
    const [before, after] = nodesOf(victim) as [string, string];

    sim.world.setValidators('mainnet', before, [period(before, 2)]);
    await poll(() => got.some((g) => g.alert === `${before} firing`), `${before} firing`, NOTIFY_MS);
    expect(got.find((g) => g.alert === `${before} firing`)?.from).toBe(victim.name);

    await victim.daemon.kill();
    await takenOver(survivors, "the dead instance's nodes on the survivors' /metrics");
    await quiet(survivors);
    expect(counts()).toEqual({ [`${before} firing`]: 1 });

    sim.world.setValidators('mainnet', after, [period(after, 2)]);
    await poll(() => got.some((g) => g.alert === `${after} firing`), `${after} firing`, NOTIFY_MS);
    await quiet(survivors);
    expect(counts()).toEqual({ [`${before} firing`]: 1, [`${after} firing`]: 1 });
  }, 90_000);

  it('SIGSTOP of an instance past its lease, then SIGCONT: the others take its nodes and tell a change once; the woken one adds nothing (its late commit of its parts refused whole) and takes a share again', async () => {
    const { live, one: paused, rest: others } = await settledWithOneHolding('spread_pause', 1);
    const [node] = nodesOf(paused) as [string];

    // Stopped wherever it is, maybe inside a commit of its parts (its row locks held until it wakes).
    paused.daemon.child.kill('SIGSTOP');
    const stoppedAt = Date.now();
    await takenOver(others, "the paused instance's nodes on the others' /metrics");
    // The change while it sleeps: its new holder fires it. The paused one's parts still say "not
    // firing": were its commit let through on waking, it would fire the same transition again.
    sim.world.setValidators('mainnet', node, [period(node, 2)]);
    await poll(() => got.some((g) => g.alert === `${node} firing`), `${node} firing`, NOTIFY_MS);
    // Paused two leases at least: its leases ended on the database's clock, whatever its own says.
    await poll(() => Date.now() - stoppedAt >= 2 * LEASE_MS, 'two leases since the pause', 2 * LEASE_MS + SLACK_MS);
    paused.daemon.child.kill('SIGCONT');

    await poll(async () => ((await scrape(paused))?.held ?? 0) > 0, 'the resumed instance to hold shards again', SETTLE_MS);
    await quiet(live);
    expect(counts()).toEqual({ [`${node} firing`]: 1 });
    expect(got.filter((g) => g.from === paused.name)).toEqual([]);
  }, 90_000);
});
