import type pg from 'pg';
import type { Queryable } from './connect.js';
import type { ActiveRow } from '../types.js';
import { partsOf } from './parts.js';

// Table: active_alerts (as ../active.ts for SQLite; the JSON columns are jsonb, read back parsed).

interface RawActive {
  key: string;
  tier: string;
  state: string;
  started_at: number;
  notified_at: number | null;
  cleared_at: number | null;
  muted_at: number | null;
  muted_receivers: string[];
  notified_receivers: Record<string, number>;
  condition: unknown;
}

function activeRow(r: RawActive): ActiveRow {
  return {
    key: r.key,
    tier: r.tier,
    state: r.state === 'pending' ? 'pending' : 'firing',
    startedAt: r.started_at,
    notifiedAt: r.notified_at,
    clearedAt: r.cleared_at,
    mutedAt: r.muted_at,
    mutedReceivers: r.muted_receivers,
    notifiedReceivers: r.notified_receivers,
    condition: r.condition,
  };
}

const COLUMNS = 'key, tier, state, started_at, notified_at, cleared_at, muted_at, muted_receivers, notified_receivers, condition';

/** The rule's state alerts (pending and firing) as of its last evaluation. */
export async function loadActive(db: Queryable, rule: string): Promise<ActiveRow[]> {
  return (await db.query<RawActive>(`SELECT ${COLUMNS} FROM active_alerts WHERE rule = $1`, [rule])).rows.map(activeRow);
}

/** Each store rule's state alerts, in one statement: every rule asked is in the map. */
export async function loadActiveOf(db: Queryable, rules: readonly string[]): Promise<Map<string, ActiveRow[]>> {
  const out = new Map(rules.map((r) => [r, [] as ActiveRow[]]));
  const { rows } = await db.query<RawActive & { rule: string }>(`SELECT rule, ${COLUMNS} FROM active_alerts WHERE rule = ANY($1::text[])`, [rules]);
  for (const r of rows) out.get(r.rule)?.push(activeRow(r));
  return out;
}

/** Every state alert firing now (not pending), oldest first. */
export async function firingRows(db: Queryable): Promise<Array<ActiveRow & { rule: string }>> {
  const { rows } = await db.query<RawActive & { rule: string }>(`SELECT rule, ${COLUMNS} FROM active_alerts WHERE state = 'firing' ORDER BY started_at, rule, key`);
  return rows.map((r) => ({ rule: r.rule, ...activeRow(r) }));
}

/** Within a commit's transaction: the rule's state alerts, replacing the old set (one statement for all of them). */
export async function writeActive(db: pg.ClientBase, rule: string, active: readonly ActiveRow[]): Promise<void> {
  await writeActiveOf(db, [{ rule, active }]);
}

/** Within a commit's transaction: each store rule's state alerts, replacing its old set (two statements for all of them). */
export async function writeActiveOf(db: pg.ClientBase, sets: ReadonlyArray<{ rule: string; active: readonly ActiveRow[] }>): Promise<void> {
  await db.query('DELETE FROM active_alerts WHERE rule = ANY($1::text[])', [sets.map((s) => s.rule)]);
  const rows = sets.flatMap(({ rule, active }) =>
    active.map((a) => ({
      rule,
      key: a.key,
      tier: a.tier,
      state: a.state,
      started_at: a.startedAt,
      notified_at: a.notifiedAt,
      cleared_at: a.clearedAt,
      muted_at: a.mutedAt,
      muted_receivers: a.mutedReceivers,
      notified_receivers: a.notifiedReceivers,
      // jsonb keeps JSON: what JSON.stringify drops (undefined) is dropped here too.
      condition: a.condition === undefined ? null : a.condition,
    })),
  );
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO active_alerts (rule, ${COLUMNS})
     SELECT rule, ${COLUMNS} FROM jsonb_to_recordset($1::jsonb) AS x (rule text, key text, tier text, state text, started_at double precision, notified_at double precision,
       cleared_at double precision, muted_at double precision, muted_receivers jsonb, notified_receivers jsonb, condition jsonb)`,
    [JSON.stringify(rows)],
  );
}

/**
 * A firing notification muted while it waited in the outbox: the state alert (still firing)
 * owes it to the receiver once the mute ends. `rule` is the alert's rule name: its row is
 * under that store rule or one of its parts (`rule#SSS`). Returns the store rules whose alert took it.
 */
export async function owedAfterMute(db: Queryable, rule: string, key: string, receiver: string, now: number): Promise<string[]> {
  const { rows } = await db.query<{ rule: string }>(
    `UPDATE active_alerts SET muted_at = COALESCE(muted_at, $1),
       muted_receivers = CASE WHEN muted_receivers ? $2 THEN muted_receivers ELSE muted_receivers || jsonb_build_array($2::text) END
     WHERE (rule = $3 OR ${partsOf('$3')}) AND key = $4 AND state = 'firing'
     RETURNING rule`,
    [now, receiver, rule, key],
  );
  return [...new Set(rows.map((r) => r.rule))];
}
