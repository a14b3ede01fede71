import { describe, expect, it } from 'vitest';
import { FencedError, StateConflictError } from './errors.js';
import { active, alert, to, type Opened } from './contract-fixtures.js';
import { StateDiff, type NewAlert, type ShardFence, type StateStore } from './types.js';

// The parts of a rule spread by entity (docs/design/entity-spread.md): store rules `name#SSS`,
// read and committed together. `shared`: the store shares its
// work over shard leases (PostgreSQL), so every part's commit is fenced.

const MINUTE = 60_000;

/** Each part's states, parsed and sorted by entity, with its revision. */
async function parts(s: StateStore, rules: readonly string[]): Promise<Record<string, { states: Record<string, unknown>; revision: number }>> {
  const read = await s.stateRowsOf(rules);
  return Object.fromEntries(
    [...read].map(([rule, r]) => [rule, { states: Object.fromEntries(r.rows.map((x) => [x.entity, JSON.parse(x.state) as unknown])), revision: r.revision }]),
  );
}

async function activeKeys(s: StateStore, rules: readonly string[]): Promise<Record<string, string[]>> {
  return Object.fromEntries([...(await s.loadActiveOf(rules))].map(([rule, rows]) => [rule, rows.map((a) => a.key).sort()]));
}

export function partsContract(store: Opened, o: { shared?: boolean } = {}): void {
  describe('parts of a rule spread by entity', () => {
    it('commits every part and the alerts once, in one transaction, and moves every part\'s revision', async () => {
      const s = await store('parts-commit');
      const ids = await s.commitParts(
        [
          { rule: 'r#001', states: { a: 1 }, active: [active('a')] },
          { rule: 'r#002', states: new StateDiff([['b', '2']], []) },
          { rule: '!rule-failing:r#001', states: {}, active: [active('failing')] },
        ],
        [alert],
        1_000,
      );
      expect(ids).toHaveLength(1);
      expect(await s.pendingCount()).toBe(2); // one alert, its two targets
      const first = await parts(s, ['r#001', 'r#002', '!rule-failing:r#001']);
      expect(first).toEqual({ 'r#001': { states: { a: 1 }, revision: 1 }, 'r#002': { states: { b: 2 }, revision: 1 }, '!rule-failing:r#001': { states: {}, revision: 1 } });
      await s.commitParts(
        [
          { rule: 'r#001', states: new StateDiff([['c', '3']], ['a']), active: [], expectRevision: 1 },
          { rule: 'r#002', states: { b: 4 }, expectRevision: 1 },
        ],
        [],
        2_000,
      );
      expect(await parts(s, ['r#001', 'r#002'])).toEqual({ 'r#001': { states: { c: 3 }, revision: 2 }, 'r#002': { states: { b: 4 }, revision: 2 } });
      // Forgotten exactly: the bare name alone, not its parts; its revision moves.
      await s.commitParts([{ rule: 'r', states: { z: 1 }, active: [active('z')] }], [], 2_500);
      await s.forgetExactly(['r']);
      expect(await parts(s, ['r'])).toEqual({ r: { states: {}, revision: 2 } });
      expect(await activeKeys(s, ['r', 'r#001'])).toEqual({ r: [], 'r#001': [] });
      expect((await s.ruleNames()).sort()).toEqual(['!rule-failing:r#001', 'r#001', 'r#002']);
      // The revisions alone, as a caller keeping the parts checks them: 0 for a part never committed.
      expect(Object.fromEntries(await s.revisionsOf(['r#001', 'r#002', 'r#003', '!rule-failing:r#001']))).toEqual({ 'r#001': 2, 'r#002': 2, 'r#003': 0, '!rule-failing:r#001': 1 });
      // A part without `active` keeps its state alerts; `active: []` clears them.
      expect(await activeKeys(s, ['r#001', '!rule-failing:r#001'])).toEqual({ 'r#001': [], '!rule-failing:r#001': ['failing'] });
      expect(await s.pendingCount()).toBe(2);
    });

    it("refuses the whole commit when one part's revision moved since it was read: nothing of any part, no alert", async () => {
      const daemon = await store('parts-conflict');
      const once = await store('parts-conflict');
      await daemon.commitParts([{ rule: 'r#001', states: { a: 1 } }, { rule: 'r#002', states: { b: 1 } }], [], 1_000);
      const read = await daemon.stateRowsOf(['r#001', 'r#002']);
      await once.commitEvaluation('r#002', { b: 2 }, [], 2_000); // another process got there first
      const late = daemon.commitParts(
        [
          { rule: 'r#001', states: { a: 9 }, active: [active('k')], expectRevision: read.get('r#001')!.revision },
          { rule: 'r#002', states: { b: 9 }, expectRevision: read.get('r#002')!.revision },
        ],
        [alert],
        3_000,
      );
      await expect(late).rejects.toThrow(StateConflictError);
      expect(await parts(daemon, ['r#001', 'r#002'])).toEqual({ 'r#001': { states: { a: 1 }, revision: 1 }, 'r#002': { states: { b: 2 }, revision: 2 } });
      expect(await daemon.loadActive('r#001')).toEqual([]);
      expect(await daemon.pendingCount()).toBe(0);
    });

    it("reads each part's rows and revision and each part's state alerts, every part asked for in the answer", async () => {
      const s = await store('parts-read');
      await s.commitParts([{ rule: 'r#001', states: { a: 1, b: 2 }, active: [active('a'), active('b')] }, { rule: 'r#255', states: { z: 1 } }], [], 1_000);
      await s.commitEvaluation('r', { other: 1 }, [], 1_000, [active('other')]);
      expect(await parts(s, ['r#001', 'r#255', 'r#100'])).toEqual({
        'r#001': { states: { a: 1, b: 2 }, revision: 1 },
        'r#255': { states: { z: 1 }, revision: 1 },
        'r#100': { states: {}, revision: 0 },
      });
      expect(await activeKeys(s, ['r#001', 'r#255', 'r#100'])).toEqual({ 'r#001': ['a', 'b'], 'r#255': [], 'r#100': [] });
    });

    it('prunes a rule with its parts and its rule-failing parts, never a look-alike (`_` is legal in a name)', async () => {
      const s = await store('parts-prune');
      const all = ['r', 'r#001', '!rule-failing:r#002', '!rule-failing:r', 'r2#001', 'r_x', 'r#01', 'r#0001', 'a_b#003', 'aXb#003', 'a_b2'];
      await s.commitParts(all.map((rule) => ({ rule, states: { e: 1 }, active: [active('k')] })), [alert], 1_000);
      await s.pruneRule('r', 'a_b');
      const left = ['!rule-failing:r', 'r2#001', 'r_x', 'r#01', 'r#0001', 'aXb#003', 'a_b2'];
      expect((await s.ruleNames()).sort()).toEqual(left.sort());
      const stillActive = Object.entries(await activeKeys(s, all)).filter(([, keys]) => keys.length > 0).map(([rule]) => rule);
      expect(stillActive.sort()).toEqual(left.sort());
      expect(await s.pendingCount()).toBe(2);
    });

    it("a silence's end finds the muted alert's row in a part of its rule (not a look-alike's), and moves that part's revision", async () => {
      const s = await store('parts-mute');
      const firing: NewAlert = { ...alert, rule: 'ending', status: 'firing', conditionKey: 'N', targets: [to('ops')] };
      const row = active('N', { notifiedReceivers: { ops: 1_000 } });
      await s.commitParts([{ rule: 'ending#007', states: {}, active: [row] }, { rule: 'ending2#007', states: {}, active: [row] }, { rule: 'ending_x', states: {}, active: [row] }], [firing], 1_000);
      const [claimed] = await s.claimDue('ops', 1_000, 10, 60_000);
      await s.muteWaiting(claimed!, 'silenced by #2', 2_000);
      const after = await s.loadActiveOf(['ending#007', 'ending2#007', 'ending_x']);
      expect(after.get('ending#007')).toEqual([expect.objectContaining({ key: 'N', mutedAt: 2_000, mutedReceivers: ['ops'] })]);
      expect(after.get('ending2#007')).toEqual([expect.objectContaining({ mutedAt: null, mutedReceivers: [] })]);
      expect(after.get('ending_x')).toEqual([expect.objectContaining({ mutedAt: null, mutedReceivers: [] })]);
      const revisions = await s.stateRowsOf(['ending#007', 'ending2#007']);
      expect([revisions.get('ending#007')?.revision, revisions.get('ending2#007')?.revision]).toEqual([2, 1]);
    });

    // Fences are the shared store's alone: a store one machine holds has no such case.
    if (o.shared)
      it("shared: refused whole (FencedError) when one of three parts' shards moved on; nothing of the other two written", async () => {
      const b = await store('parts-fenced');
      const c = await store('parts-fenced');
      const fences = new Map<number, ShardFence>();
      b.shards!.fenceBy((rule) => fences.get(Number(rule.slice(-3))));
      const part = (shard: number, v: number) => ({ rule: `r#${String(shard).padStart(3, '0')}`, states: { [`e${shard}`]: v } });
      // Unheld: refused before anything is written.
      await expect(b.commitParts([part(1, 0)], [alert], 500)).rejects.toThrow(FencedError);
      for (const l of (await b.shards!.balance('b', MINUTE)).leases) fences.set(l.shard, { shard: l.shard, holder: 'b', epoch: l.epoch });
      await b.commitParts([part(1, 1), part(2, 1), part(200, 1)], [], 1_000);
      // c joins: b gives half back (its upper shards), c takes them at a new epoch; b still has the old fences.
      await c.shards!.balance('c', MINUTE);
      await b.shards!.balance('b', MINUTE);
      expect((await c.shards!.balance('c', MINUTE)).leases.map((l) => l.shard)).toContain(200);
      await expect(b.commitParts([part(1, 2), part(2, 2), part(200, 2)], [alert], 2_000)).rejects.toMatchObject({ name: 'FencedError', message: expect.stringMatching(/shard 200 \(epoch \d+\) moved on/) });
      expect(await parts(b, ['r#001', 'r#002', 'r#200'])).toEqual({
        'r#001': { states: { e1: 1 }, revision: 1 },
        'r#002': { states: { e2: 1 }, revision: 1 },
        'r#200': { states: { e200: 1 }, revision: 1 },
      });
      expect(await b.pendingCount()).toBe(0);
      // Without the part that moved on, the same commit lands.
      await b.commitParts([part(1, 2), part(2, 2)], [alert], 3_000);
      expect(await parts(b, ['r#001', 'r#002'])).toEqual({ 'r#001': { states: { e1: 2 }, revision: 2 }, 'r#002': { states: { e2: 2 }, revision: 2 } });
    });
  });
}
