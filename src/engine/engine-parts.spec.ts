import { describe, expect, it } from 'vitest';
import { shardOf } from '../base/shard.js';
import { SqliteStore } from '../store/index.js';
import { engineWorld, NODE_A, NODE_B, NODE_C, START, validatorRule, type Answer } from '../../test/helpers/engine-world.js';
import { PRIMARY_NETWORK } from '../rules/fields.js';

const DAY_MS = 86_400_000;
import { nodesApart } from '../../test/helpers/node-ids.js';
import { sharedSqlite } from '../../test/helpers/shared-sqlite.js';
import { StateDiff } from '../store/index.js';
import { partName } from './parts.js';

// A rule spread by entity (docs/design/entity-spread.md): on a store shared by instances, each
// evaluates the entities of the shards it holds and commits them to their parts `name#SSS`.
// The shared store here is SQLite with `shards` set (test/helpers/shared-sqlite.ts): the
// layout follows `store.shards`; the fences are PostgreSQL's (store/contract-parts.ts).

/** Past one page of the bulk list, so spread by entity; the named three each on a shard none of the others is on. */
const MORE = nodesApart(98, [NODE_A, NODE_B, NODE_C]);
const rule = validatorRule({}, [NODE_A, NODE_B, NODE_C, ...MORE]);
const more = Object.fromEntries(MORE.map((n) => [n, 'active']));
/** The named nodes among a view's keys. */
const named = (keys: Iterable<string>): string[] => [...keys].filter((k) => [NODE_A, NODE_B, NODE_C].includes(k));
const part = (node: string) => partName('r', shardOf(node));

/** Two instances on one shared store: `one` holds NODE_A's shard (while `mine` has it), `two` the rest; each has evaluated once. */
async function twoInstances() {
  const store = sharedSqlite();
  const world: Record<string, string> = { ...more, [NODE_A]: 'active', [NODE_B]: 'active', [NODE_C]: 'active' };
  const mine = new Set([shardOf(NODE_A)]);
  const one = engineWorld({ store, world, holdsShard: (s) => mine.has(s) });
  const two = engineWorld({ store, world, holdsShard: (s) => !mine.has(s) });
  await one.run(rule);
  await two.run(rule);
  return { store, world, mine, one, two };
}

describe('engine: a rule spread by entity', () => {
  it("each entity's state is kept in its own shard's part; the rule's own name holds nothing", async () => {
    const store = sharedSqlite();
    const w = engineWorld({ store, world: { ...more, [NODE_A]: 'active', [NODE_B]: 'active', [NODE_C]: 'active' } });
    expect(await w.run(rule)).toEqual([]);
    const read = await store.stateRowsOf(['r', part(NODE_A), part(NODE_B), part(NODE_C)]);
    expect(read.get('r')?.rows).toEqual([]);
    for (const node of [NODE_A, NODE_B, NODE_C]) expect(read.get(part(node))?.rows.map((r) => r.entity)).toContain(node);
    expect(new Set([NODE_A, NODE_B, NODE_C].map(shardOf)).size).toBe(3);
  });

  it('two instances split the entities by the shards they hold: each evaluates and shows only its own, a change is said once, by its holder', async () => {
    const { store, world, one, two } = await twoInstances();
    expect(named(one.engine.view('r')?.states.keys() ?? [])).toEqual([NODE_A]);
    expect(named(two.engine.view('r')?.states.keys() ?? []).sort()).toEqual([NODE_B, NODE_C].sort());
    world[NODE_A] = 'completed';
    world[NODE_B] = 'completed';
    expect((await one.run(rule)).map((a) => a.summary)).toEqual([`${NODE_A} validation active → completed`]);
    expect((await two.run(rule)).map((a) => a.summary)).toEqual([`${NODE_B} validation active → completed`]);
    // Each kept its own part: neither removed the other's rows.
    const read = await store.stateRowsOf([part(NODE_A), part(NODE_B), part(NODE_C)]);
    expect(named([...read.values()].flatMap((p) => p.rows.map((r) => r.entity))).sort()).toEqual([NODE_A, NODE_B, NODE_C].sort());
  });

  it("a shard handed over: the new holder goes on from its last holder's committed state (no baseline, nothing said again)", async () => {
    const { world, mine, one, two } = await twoInstances();
    world[NODE_A] = 'completed';
    expect(await one.run(rule)).toHaveLength(1);
    // Shard A moves from one to two: two forgets and reads the rule again (app/shards.ts).
    mine.clear();
    two.engine.forget('r');
    await two.engine.restore(rule);
    expect(named(two.engine.view('r')?.states.keys() ?? []).sort()).toEqual([NODE_A, NODE_B, NODE_C].sort());
    expect(await two.run(rule)).toEqual([]);
    world[NODE_A] = 'active';
    expect((await two.run(rule)).map((a) => a.summary)).toEqual([`${NODE_A} validation completed → active`]);
    expect(await one.run(rule)).toEqual([]);
  });

  it("rule-failing of an entity is kept in its entity's part, written by its holder; the alert is the rule's, and resolves there", async () => {
    const store = sharedSqlite();
    const world: Record<string, string | Error> = { ...more, [NODE_A]: 'active', [NODE_B]: 'active', [NODE_C]: 'active' };
    const mine = new Set([shardOf(NODE_A), shardOf(NODE_B)]);
    const one = engineWorld({ store, world, holdsShard: (s) => mine.has(s) });
    await one.run(rule);
    world[NODE_B] = new Error('data API GET …: HTTP 503');
    await one.run(rule);
    await one.run(rule);
    // An entity's row in its entity's part: it moves with the entity.
    expect((await store.activeAlerts()).map((a) => `${a.rule} ${a.key}`)).toEqual([`!rule-failing:${part(NODE_B)} entity:${NODE_B}`]);
    const [firing] = await store.claimDue('slack', Number.MAX_SAFE_INTEGER, 10, 1);
    expect(firing?.message).toMatchObject({ rule: 'r', kind: 'rule-failing', status: 'firing' });
    world[NODE_B] = 'active';
    await one.run(rule);
    expect(await store.activeAlerts()).toEqual([]);
  });

  it('on a store of one machine (no shards) the rule stays one store rule under its name', async () => {
    const store = SqliteStore.open(':memory:');
    const w = engineWorld({ store });
    await w.run(validatorRule());
    expect((await store.stateRowsOf(['r'])).get('r')?.rows.map((r) => r.entity).sort()).toEqual([NODE_A, NODE_B].sort());
    expect(await store.ruleNames()).toEqual(['r']);
  });

  it('keeps its held parts between evaluations while their revisions stand: no row read again; another process\'s commit to one makes it read them', async () => {
    const shared = sharedSqlite();
    let rowReads = 0;
    const store = new Proxy(shared, {
      get: (target, key) => (key === 'stateRowsOf' ? (rules: readonly string[]) => (rowReads++, target.stateRowsOf(rules)) : Reflect.get(target, key, target)),
    });
    const world: Record<string, string> = { ...more, [NODE_A]: 'active', [NODE_B]: 'active', [NODE_C]: 'active' };
    const w = engineWorld({ store, world });
    await w.run(rule);
    const afterFirst = rowReads;
    expect(await w.run(rule)).toEqual([]);
    expect(await w.run(rule)).toEqual([]);
    expect(rowReads).toBe(afterFirst);
    // Another process (once --send) wrote NODE_B's part: its commit moved that part's revision.
    const partB = part(NODE_B);
    const { revision } = (await shared.stateRowsOf([partB])).get(partB)!;
    const [stored] = (await shared.stateRowsOf([partB])).get(partB)!.rows.filter((r) => r.entity === NODE_B);
    const completed = stored!.state.replace('"active"', '"completed"');
    await shared.commitParts([{ rule: partB, states: new StateDiff([[NODE_B, completed]], []), expectRevision: revision }], [], 1);
    // Read again, so the change it made is no news here; the next one is.
    expect(await w.run(rule)).toEqual([expect.objectContaining({ summary: `${NODE_B} validation completed → active` })]);
    expect(rowReads).toBe(afterFirst + 1);
    // A poll the service fails (every lookup) keeps them: nothing was written.
    const answers = { ...world };
    for (const n of Object.keys(world)) world[n] = new Error('data API GET …: HTTP 503') as unknown as string;
    await w.run(rule).catch(() => undefined);
    Object.assign(world, answers);
    await w.run(rule);
    expect(rowReads).toBe(afterFirst + 1);
    // Found by the revisions before it evaluated, not by its commit refused (that evaluates twice).
    expect(w.logs).not.toContain('another process committed this rule meanwhile; its alerts are dropped and it is evaluated again');
  });

  it('a firing alert of a spread rule is told once over cycles: what its receivers were told is read from the store each time, not kept from before the plan', async () => {
    const store = sharedSqlite();
    const ends = validatorRule({ name: 'ends', kind: 'validation-end', spec: { network: 'mainnet', nodeIds: [NODE_A, NODE_B, NODE_C, ...MORE], subnetId: PRIMARY_NETWORK, warnBefore: [{ ms: 3 * DAY_MS }] } });
    const far = START / 1000 + 200 * 86_400;
    const world: Record<string, Answer> = Object.fromEntries([NODE_A, NODE_B, ...MORE].map((n) => [n, { status: 'active', tx: `tx-${n}`, end: far }]));
    // NODE_C's validation ends in a day: its warning fires and holds.
    world[NODE_C] = { status: 'active', tx: 'tx-c', end: START / 1000 + 86_400 };
    const w = engineWorld({ store, world });
    const ofC = async () => (await w.run(ends)).filter((a) => a.summary.includes(NODE_C));
    expect((await ofC()).map((a) => a.status)).toEqual(['firing']);
    for (let i = 0; i < 3; i++) expect(await ofC()).toEqual([]);
    const [row] = (await store.loadActiveOf([partName('ends', shardOf(NODE_C))])).get(partName('ends', shardOf(NODE_C))) ?? [];
    expect(Object.keys(row?.notifiedReceivers ?? {})).not.toEqual([]);
  });

  it("an entity's rule-failing alert handed over with its shard stays firing at the new holder while the entity still fails there, and resolves once it is seen to pass", async () => {
    const store = sharedSqlite();
    const world: Record<string, string | Error> = { ...more, [NODE_A]: 'active', [NODE_B]: 'active', [NODE_C]: 'active' };
    const mine = new Set([shardOf(NODE_A), shardOf(NODE_B)]);
    const one = engineWorld({ store, world, holdsShard: (s) => mine.has(s) });
    const two = engineWorld({ store, world, holdsShard: (s) => !mine.has(s) });
    await one.run(rule);
    await two.run(rule);
    world[NODE_B] = new Error('data API GET …: HTTP 503');
    await one.run(rule);
    await one.run(rule);
    const failingB = `!rule-failing:${part(NODE_B)} entity:${NODE_B}`;
    expect((await store.activeAlerts()).map((a) => `${a.rule} ${a.key} ${a.state}`)).toEqual([`${failingB} firing`]);
    // NODE_B's shard moves from one to two (app/shards.ts forgets and restores the rule on both).
    mine.delete(shardOf(NODE_B));
    for (const w of [one, two]) {
      w.engine.forget('r');
      await w.engine.restore(rule);
    }
    await one.run(rule);
    await two.run(rule);
    // Two has seen NODE_B fail once, not yet failingAfter times: the row it gained stays firing, and nothing was told.
    expect((await store.activeAlerts()).map((a) => `${a.rule} ${a.key} ${a.state}`)).toEqual([`${failingB} firing`]);
    const told = async () => (await store.outbox('pending')).map((r) => r.summary.replace(NODE_B, 'B'));
    expect(await told()).toEqual(['rule "r" cannot see B: its last 2 lookups failed (data API GET …: HTTP 503)']);
    world[NODE_B] = 'active';
    await two.run(rule);
    expect(await store.activeAlerts()).toEqual([]);
    expect((await told()).sort()).toEqual(['rule "r" cannot see B: its last 2 lookups failed (data API GET …: HTTP 503)', 'rule "r" sees B again'].sort());
  });
});
