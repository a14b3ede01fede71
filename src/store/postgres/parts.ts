import type pg from 'pg';
import { FencedError, StateConflictError } from '../errors.js';
import { StateDiff, type CommitPart, type ShardFence, type StateRows } from '../types.js';
import type { Queryable } from './connect.js';

// The parts of a rule spread by entity (docs/design/entity-spread.md): store rules `name#SSS`
// in entity_state, rule_revision and active_alerts, read and committed together. Each step
// is one statement for every part: a rule has up to 256 parts, and a round trip per part
// would cost more than the writes.

/**
 * The store rules of the parts of rule `p` (`p#SSS`), `p` an SQL expression: a range of the
 * rule index, then the exact shape, whatever the database's collation. No LIKE (`_` is legal in
 * names), and no scan of the table.
 */
export function partsOf(p: string): string {
  return `(rule BETWEEN ${p} || '#000' AND ${p} || '#999' AND rule = ${p} || '#' || right(rule, 3) AND right(rule, 3) ~ '^[0-9]{3}$')`;
}

/** Each store rule's states and revision, in one statement (one snapshot): every rule asked is in the map. */
export async function stateRowsOf(db: Queryable, rules: readonly string[]): Promise<Map<string, StateRows>> {
  const { rows } = await db.query<{ rule: string; revision: number; entity: string | null; state: string | null }>(
    `SELECT w.rule, coalesce(v.revision, 0) AS revision, e.entity, e.state FROM unnest($1::text[]) AS w (rule)
       LEFT JOIN rule_revision AS v ON v.rule = w.rule LEFT JOIN entity_state AS e ON e.rule = w.rule`,
    [[...new Set(rules)]],
  );
  const out = new Map<string, StateRows>();
  for (const r of rows) {
    let part = out.get(r.rule);
    if (!part) out.set(r.rule, (part = { rows: [], revision: r.revision }));
    if (r.entity !== null && r.state !== null) part.rows.push({ entity: r.entity, state: r.state });
  }
  return out;
}

export async function revisionsOf(db: Queryable, rules: readonly string[]): Promise<Map<string, number>> {
  const { rows } = await db.query<{ rule: string; revision: number }>(
    'SELECT w.rule, coalesce(v.revision, 0) AS revision FROM unnest($1::text[]) AS w (rule) LEFT JOIN rule_revision AS v ON v.rule = w.rule',
    [[...new Set(rules)]],
  );
  return new Map(rows.map((r) => [r.rule, r.revision]));
}

/**
 * Within a commit's transaction, first: every fence is still this instance's lease at its
 * epoch, by the database's clock. The lease rows are locked FOR SHARE in shard order (as
 * takeovers lock them: no deadlock), so a takeover waits until the commit ends.
 */
export async function fenced(db: pg.ClientBase, rules: readonly string[], fenceOf: (storeRule: string) => ShardFence | undefined): Promise<void> {
  const unheld = rules.filter((r) => !fenceOf(r));
  if (unheld.length > 0) throw new FencedError(`${names(unheld)}: not held here; nothing written`);
  const fences = new Map(rules.map((r) => fenceOf(r)!).map((f) => [`${f.shard}/${f.holder}/${f.epoch}`, f]));
  const all = [...fences.values()];
  const { rows } = await db.query<{ shard: number; holder: string; epoch: number }>(
    `SELECT shard, holder, epoch FROM leases
      WHERE (shard, holder, epoch) IN (SELECT * FROM unnest($1::integer[], $2::text[], $3::bigint[]))
        AND expires_at > clock_timestamp()
      ORDER BY shard FOR SHARE`,
    [all.map((f) => f.shard), all.map((f) => f.holder), all.map((f) => f.epoch)],
  );
  for (const r of rows) fences.delete(`${r.shard}/${r.holder}/${r.epoch}`);
  if (fences.size > 0) {
    const stale = [...fences.values()].map((f) => `${f.shard} (epoch ${f.epoch})`).join(', ');
    throw new FencedError(`${names(rules)}: shard ${stale} moved on (or its lease ended); nothing written`);
  }
}

/**
 * Within a commit's transaction: every part's revision row locked (in rule order) and checked
 * against what it was read at; any moved refuses the whole commit. Then all bumped.
 */
export async function bumpRevisions(db: pg.ClientBase, parts: readonly CommitPart[]): Promise<void> {
  const rules = parts.map((p) => p.rule).sort();
  await db.query('INSERT INTO rule_revision (rule, revision) SELECT r, 0 FROM unnest($1::text[]) AS r ORDER BY r ON CONFLICT (rule) DO NOTHING', [rules]);
  const { rows } = await db.query<{ rule: string; revision: number }>('SELECT rule, revision FROM rule_revision WHERE rule = ANY($1::text[]) ORDER BY rule FOR UPDATE', [rules]);
  const current = new Map(rows.map((r) => [r.rule, r.revision]));
  const moved = parts.filter((p) => p.expectRevision !== undefined && (current.get(p.rule) ?? 0) !== p.expectRevision);
  if (moved.length > 0) {
    const how = moved.map((p) => `"${p.rule}" (revision ${p.expectRevision} → ${current.get(p.rule) ?? 0})`).join(', ');
    throw new StateConflictError(`the state of ${moved.length === 1 ? 'rule' : 'rules'} ${how} changed since it was read; nothing written`);
  }
  await db.query('UPDATE rule_revision SET revision = revision + 1 WHERE rule = ANY($1::text[])', [rules]);
}

/**
 * Within a commit's transaction: every part's states (the whole set, or a diff; the whole
 * set when another process wrote since the diff was made), in three statements at most.
 */
export async function writePartStates(db: pg.ClientBase, parts: readonly CommitPart[], now: number, othersWrote: (version: number) => boolean): Promise<void> {
  const removed = { rule: [] as string[], entity: [] as string[] };
  const kept = { rule: [] as string[], entity: [] as string[], whole: [] as string[] };
  const up = { rule: [] as string[], entity: [] as string[], state: [] as string[] };
  for (const { rule, states } of parts) {
    let rows: ReadonlyMap<string, string>;
    if (states instanceof StateDiff && !(states.against && othersWrote(states.against.version))) {
      for (const entity of states.remove) {
        removed.rule.push(rule);
        removed.entity.push(entity);
      }
      rows = new Map(states.upsert);
    } else {
      rows = states instanceof StateDiff ? states.against!.all : new Map(Object.entries(states).map(([e, s]) => [e, JSON.stringify(s)]));
      kept.whole.push(rule);
      for (const entity of rows.keys()) {
        kept.rule.push(rule);
        kept.entity.push(entity);
      }
    }
    for (const [entity, state] of rows) {
      up.rule.push(rule);
      up.entity.push(entity);
      up.state.push(state);
    }
  }
  if (removed.rule.length > 0) {
    await db.query('DELETE FROM entity_state AS e USING unnest($1::text[], $2::text[]) AS d (rule, entity) WHERE e.rule = d.rule AND e.entity = d.entity', [removed.rule, removed.entity]);
  }
  if (kept.whole.length > 0) {
    await db.query(
      `DELETE FROM entity_state AS e WHERE e.rule = ANY($1::text[])
         AND NOT EXISTS (SELECT 1 FROM unnest($2::text[], $3::text[]) AS k (rule, entity) WHERE k.rule = e.rule AND k.entity = e.entity)`,
      [kept.whole, kept.rule, kept.entity],
    );
  }
  if (up.rule.length === 0) return;
  await db.query(
    `INSERT INTO entity_state (rule, entity, state, updated_at)
     SELECT u.rule, u.entity, u.state, $4 FROM unnest($1::text[], $2::text[], $3::text[]) AS u (rule, entity, state)
     ON CONFLICT (rule, entity) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at
      WHERE entity_state.state <> excluded.state`,
    [up.rule, up.entity, up.state, now],
  );
}

function names(rules: readonly string[]): string {
  return rules.length === 1 ? `rule "${rules[0]}"` : `rules ${rules.map((r) => `"${r}"`).join(', ')}`;
}
