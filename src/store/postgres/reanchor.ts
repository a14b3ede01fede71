import type pg from 'pg';
import { transaction } from './connect.js';

// Times the daemon keeps on its steady clock, shifted back together (as ../reanchor.ts for SQLite).

const LATEST = `SELECT MAX(t) AS latest FROM (
  SELECT MAX(created_at) AS t FROM alerts UNION ALL
  SELECT MAX(updated_at) FROM outbox UNION ALL
  SELECT MAX(started_at) FROM active_alerts UNION ALL
  SELECT MAX(updated_at) FROM entity_state UNION ALL
  SELECT MAX(at) FROM samples) AS times`;

const SHIFT = [
  // A transition's key names its episode's start on the old timeline: this run's could repeat it (alerts/lifecycle.ts transitionKey).
  'UPDATE alerts SET created_at = created_at - $1, transition = NULL',
  `UPDATE outbox SET next_attempt_at = next_attempt_at - $1, created_at = created_at - $1, updated_at = updated_at - $1,
     lease_until = CASE WHEN lease_until > 0 THEN lease_until - $1 ELSE 0 END, digest_at = digest_at - $1`,
  `UPDATE active_alerts SET started_at = started_at - $1, notified_at = notified_at - $1, cleared_at = cleared_at - $1, muted_at = muted_at - $1,
     notified_receivers = COALESCE((SELECT jsonb_object_agg(key, (value::text)::numeric - $1) FROM jsonb_each(notified_receivers)), '{}'::jsonb),
     condition = CASE WHEN jsonb_typeof(condition->'firedAt') = 'number'
       THEN jsonb_set(condition, '{firedAt}', to_jsonb((condition->>'firedAt')::numeric - $1)) ELSE condition END`,
  'UPDATE entity_state SET updated_at = updated_at - $1',
  'UPDATE samples SET at = at - $1',
];

/** Steady times of a previous run more than `toleranceMs` ahead of `now`: shifted back together; returns the shift (0: none). */
export async function reanchor(pool: pg.Pool, now: number, toleranceMs: number): Promise<number> {
  const { rows } = await pool.query<{ latest: number | null }>(LATEST);
  const latest = rows[0]?.latest ?? null;
  const ms = latest === null ? 0 : latest - now;
  if (ms <= toleranceMs) return 0;
  const whole = Math.round(ms);
  await transaction(pool, async (db) => {
    for (const sql of SHIFT) await db.query(sql, [whole]);
  });
  return ms;
}
