import type Database from 'better-sqlite3';
import { StateConflictError } from './errors.js';
import { statement } from './statement.js';
import { StateDiff, type StateRows } from './types.js';

// Tables: entity_state (each rule's state per entity, JSON) and rule_revision (a counter per
// rule, bumped by every commit of it).

/** A rule's states as stored (JSON text) and their revision, read together. */
export function stateRows(db: Database.Database, rule: string): StateRows {
  return db.transaction(() => ({
    rows: statement(db, 'SELECT entity, state FROM entity_state WHERE rule = ?').all(rule) as Array<{ entity: string; state: string }>,
    revision: revision(db, rule),
  }))();
}

/** Each store rule's states and revision, in one query: every rule asked is in the map. */
export function stateRowsOf(db: Database.Database, rules: readonly string[]): Map<string, StateRows> {
  const out = new Map<string, StateRows>();
  const rows = statement(
    db,
    `SELECT w.value AS rule, coalesce(v.revision, 0) AS revision, e.entity, e.state FROM json_each(?) AS w
       LEFT JOIN rule_revision AS v ON v.rule = w.value LEFT JOIN entity_state AS e ON e.rule = w.value`,
  ).all(JSON.stringify([...new Set(rules)])) as Array<{ rule: string; revision: number; entity: string | null; state: string | null }>;
  for (const r of rows) {
    let part = out.get(r.rule);
    if (!part) out.set(r.rule, (part = { rows: [], revision: r.revision }));
    if (r.entity !== null && r.state !== null) part.rows.push({ entity: r.entity, state: r.state });
  }
  return out;
}

export function revisionsOf(db: Database.Database, rules: readonly string[]): Map<string, number> {
  const rows = statement(db, 'SELECT w.value AS rule, coalesce(v.revision, 0) AS revision FROM json_each(?) AS w LEFT JOIN rule_revision AS v ON v.rule = w.value').all(
    JSON.stringify([...new Set(rules)]),
  ) as Array<{ rule: string; revision: number }>;
  return new Map(rows.map((r) => [r.rule, r.revision]));
}

/** A write to the rule's alerts outside its commit: an evaluation that read them before commits again from what is stored. */
export function bumpRevision(db: Database.Database, rule: string, current = revision(db, rule)): void {
  statement(db, 'INSERT INTO rule_revision (rule, revision) VALUES (?, ?) ON CONFLICT (rule) DO UPDATE SET revision = excluded.revision').run(rule, current + 1);
}

function revision(db: Database.Database, rule: string): number {
  const row = statement(db, 'SELECT revision FROM rule_revision WHERE rule = ?').get(rule) as { revision: number } | undefined;
  return row?.revision ?? 0;
}

/**
 * Within a commit's transaction: refuses it when another commit of the rule came since
 * `expectRevision`, bumps the revision, and writes the states (the whole set, or a diff).
 */
export function writeStates(db: Database.Database, rule: string, states: Record<string, unknown> | StateDiff, now: number, dataVersion: number, expectRevision?: number): void {
  const current = revision(db, rule);
  if (expectRevision !== undefined && current !== expectRevision) {
    throw new StateConflictError(`the state of rule "${rule}" changed since it was read (revision ${expectRevision} → ${current})`);
  }
  bumpRevision(db, rule, current);
  const upsert = statement(db, `INSERT INTO entity_state (rule, entity, state, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (rule, entity) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at
     WHERE state <> excluded.state`);
  if (states instanceof StateDiff && states.against && dataVersion !== states.against.version) {
    // Another process wrote since the diff was made: write the whole set, as it stands.
    statement(db, 'DELETE FROM entity_state WHERE rule = ?').run(rule);
    for (const [entity, json] of states.against.all) upsert.run(rule, entity, json, now);
  } else if (states instanceof StateDiff) {
    // Only what changed: at 100k entities, rewriting every row is most of a cycle.
    const remove = statement(db, 'DELETE FROM entity_state WHERE rule = ? AND entity = ?');
    for (const entity of states.remove) remove.run(rule, entity);
    for (const [entity, json] of states.upsert) upsert.run(rule, entity, json, now);
  } else {
    const keep = Object.keys(states);
    statement(db, `DELETE FROM entity_state WHERE rule = ? AND entity NOT IN (SELECT value FROM json_each(?))`).run(rule, JSON.stringify(keep));
    for (const [entity, state] of Object.entries(states)) upsert.run(rule, entity, JSON.stringify(state), now);
  }
}
