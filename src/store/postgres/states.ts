import type pg from 'pg';
import { StateConflictError } from '../errors.js';
import { StateDiff, type StateRows } from '../types.js';

// Tables: entity_state, rule_revision and data_version (as ../states.ts for SQLite).

/** A rule's states as stored (JSON text) and their revision: the caller reads both in one snapshot. */
export async function stateRows(db: pg.ClientBase, rule: string): Promise<StateRows> {
  const rows = await db.query<{ entity: string; state: string }>('SELECT entity, state FROM entity_state WHERE rule = $1', [rule]);
  return { rows: rows.rows, revision: await revision(db, rule) };
}

async function revision(db: pg.ClientBase, rule: string, lock = false): Promise<number> {
  const { rows } = await db.query<{ revision: number }>(`SELECT revision FROM rule_revision WHERE rule = $1${lock ? ' FOR UPDATE' : ''}`, [rule]);
  return rows[0]?.revision ?? 0;
}

/**
 * Within a transaction: the rule's revision row, locked until it ends (a concurrent commit of
 * the rule waits for it, then sees the new revision), and bumped.
 */
export async function bumpRevision(db: pg.ClientBase, rule: string): Promise<number> {
  await db.query('INSERT INTO rule_revision (rule, revision) VALUES ($1, 0) ON CONFLICT (rule) DO NOTHING', [rule]);
  const current = await revision(db, rule, true);
  await db.query('UPDATE rule_revision SET revision = $2 WHERE rule = $1', [rule, current + 1]);
  return current;
}

/**
 * The data version moved on, after a write of states or state alerts committed (migration 6:
 * a sequence). Never inside the write's transaction: a row every commit updates would be
 * locked by each until it ends, and one process paused mid-commit would stop every other's.
 * A reader that sees the new rows before the new number reloads once more; one whose writer
 * died before bumping is caught by the rule's revision at its next commit.
 */
export async function bumpDataVersion(db: pg.ClientBase | pg.Pool): Promise<void> {
  await db.query("SELECT nextval('data_version_seq')");
}

/** The data version as it stands. */
export async function dataVersion(db: pg.ClientBase | pg.Pool): Promise<number> {
  const { rows } = await db.query<{ version: number }>('SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS version FROM data_version_seq');
  return rows[0]?.version ?? 0;
}

/**
 * Within a commit's transaction: refuses it when another commit of the rule came since
 * `expectRevision`, bumps the revision, and writes the states (the whole set, or a diff).
 * `othersWrote`: another process wrote since the diff was made (its data version moved).
 */
export async function writeStates(
  db: pg.ClientBase,
  rule: string,
  states: Record<string, unknown> | StateDiff,
  now: number,
  othersWrote: (version: number) => boolean,
  expectRevision?: number,
): Promise<void> {
  const current = await bumpRevision(db, rule);
  if (expectRevision !== undefined && current !== expectRevision) {
    throw new StateConflictError(`the state of rule "${rule}" changed since it was read (revision ${expectRevision} → ${current})`);
  }
  if (states instanceof StateDiff && states.against && othersWrote(states.against.version)) {
    // Another process wrote since the diff was made: write the whole set, as it stands.
    await db.query('DELETE FROM entity_state WHERE rule = $1', [rule]);
    await upsert(db, rule, states.against.all, now);
  } else if (states instanceof StateDiff) {
    // Only what changed: at 100k entities, rewriting every row is most of a cycle.
    if (states.remove.length > 0) await db.query('DELETE FROM entity_state WHERE rule = $1 AND entity = ANY($2::text[])', [rule, states.remove]);
    await upsert(db, rule, new Map(states.upsert), now);
  } else {
    const keep = Object.keys(states);
    await db.query('DELETE FROM entity_state WHERE rule = $1 AND NOT (entity = ANY($2::text[]))', [rule, keep]);
    await upsert(db, rule, new Map(Object.entries(states).map(([e, s]) => [e, JSON.stringify(s)])), now);
  }
}

/** One statement for every row (a round trip each would cost more than the writes); an unchanged state is left as it is. */
async function upsert(db: pg.ClientBase, rule: string, rows: ReadonlyMap<string, string>, now: number): Promise<void> {
  if (rows.size === 0) return;
  await db.query(
    `INSERT INTO entity_state (rule, entity, state, updated_at)
     SELECT $1, u.entity, u.state, $4 FROM unnest($2::text[], $3::text[]) AS u (entity, state)
     ON CONFLICT (rule, entity) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at
      WHERE entity_state.state <> excluded.state`,
    [rule, [...rows.keys()], [...rows.values()], now],
  );
}
