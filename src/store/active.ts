import type Database from 'better-sqlite3';
import { statement } from './statement.js';
import type { ActiveRow } from './types.js';

// Table: active_alerts (each rule's state alerts, pending and firing, with their notification
// and mute times).

interface RawActive {
  key: string;
  tier: string;
  state: string;
  started_at: number;
  notified_at: number | null;
  cleared_at: number | null;
  muted_at: number | null;
  muted_receivers: string;
  notified_receivers: string;
  condition: string;
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
    mutedReceivers: JSON.parse(r.muted_receivers) as string[],
    notifiedReceivers: JSON.parse(r.notified_receivers) as Record<string, number>,
    condition: JSON.parse(r.condition) as unknown,
  };
}

const COLUMNS = 'key, tier, state, started_at, notified_at, cleared_at, muted_at, muted_receivers, notified_receivers, condition';

/**
 * The store rules of the parts of rule `p` (`p#SSS`, docs/design/entity-spread.md), `p` an SQL
 * parameter: a range of the rule index (every string in it starts with `p#`), then the exact
 * shape. No LIKE (`_` is legal in names), and no scan of the table.
 */
export function partsOf(p: string): string {
  return `(rule BETWEEN ${p} || '#000' AND ${p} || '#999' AND length(rule) = length(${p}) + 4 AND substr(rule, -3) GLOB '[0-9][0-9][0-9]')`;
}

/** The rule's state alerts (pending and firing) as of its last evaluation. */
export function loadActive(db: Database.Database, rule: string): ActiveRow[] {
  return (statement(db, `SELECT ${COLUMNS} FROM active_alerts WHERE rule = ?`).all(rule) as RawActive[]).map(activeRow);
}

/** Each store rule's state alerts, in one query: every rule asked is in the map. */
export function loadActiveOf(db: Database.Database, rules: readonly string[]): Map<string, ActiveRow[]> {
  const out = new Map(rules.map((r) => [r, [] as ActiveRow[]]));
  const rows = statement(db, `SELECT rule, ${COLUMNS} FROM active_alerts WHERE rule IN (SELECT value FROM json_each(?))`).all(JSON.stringify(rules)) as Array<RawActive & { rule: string }>;
  for (const r of rows) out.get(r.rule)?.push(activeRow(r));
  return out;
}

/** Every state alert firing now (not pending), oldest first. */
export function firingRows(db: Database.Database): Array<ActiveRow & { rule: string }> {
  const rows = statement(db, `SELECT rule, ${COLUMNS} FROM active_alerts WHERE state = 'firing' ORDER BY started_at, rule, key`).all() as Array<RawActive & { rule: string }>;
  return rows.map((r) => ({ rule: r.rule, ...activeRow(r) }));
}

/** Within a commit's transaction: the rule's state alerts, replacing the old set. */
export function writeActive(db: Database.Database, rule: string, active: readonly ActiveRow[]): void {
  statement(db, 'DELETE FROM active_alerts WHERE rule = ?').run(rule);
  const insert = statement(db, `INSERT INTO active_alerts (rule, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  for (const a of active) {
    insert.run(rule, a.key, a.tier, a.state, a.startedAt, a.notifiedAt, a.clearedAt, a.mutedAt, JSON.stringify(a.mutedReceivers), JSON.stringify(a.notifiedReceivers), JSON.stringify(a.condition));
  }
}

/**
 * A firing notification muted while it waited in the outbox: the state alert (still firing)
 * owes it to the receiver once the mute ends, as if it had been muted when it was made.
 * `rule` is the alert's rule name: its row is under that store rule or one of its parts
 * (`rule#SSS`). Returns the store rules whose alert took it.
 */
export function owedAfterMute(db: Database.Database, rule: string, key: string, receiver: string, now: number): string[] {
  const rows = statement(
    db,
    `UPDATE active_alerts SET muted_at = COALESCE(muted_at, @now),
       muted_receivers = (SELECT json_group_array(value) FROM (SELECT value FROM json_each(muted_receivers) UNION SELECT @receiver))
     WHERE (rule = @rule OR ${partsOf('@rule')}) AND key = @key AND state = 'firing'
     RETURNING rule`,
  ).all({ now, receiver, rule, key }) as Array<{ rule: string }>;
  return [...new Set(rows.map((r) => r.rule))];
}
