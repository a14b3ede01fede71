import type Database from 'better-sqlite3';

// Times the daemon keeps on its steady clock (base/clock.ts): alerts, outbox rows, active
// alerts, samples and state stamps. Silences are a person's wall times and are not here.

const LATEST = `SELECT MAX(t) AS latest FROM (
  SELECT MAX(created_at) AS t FROM alerts UNION ALL
  SELECT MAX(updated_at) FROM outbox UNION ALL
  SELECT MAX(started_at) FROM active_alerts UNION ALL
  SELECT MAX(updated_at) FROM entity_state UNION ALL
  SELECT MAX(at) FROM samples)`;

const SHIFT = [
  // A transition's key names its episode's start on the old timeline: this run's could repeat it (alerts/lifecycle.ts transitionKey).
  'UPDATE alerts SET created_at = created_at - @ms, transition = NULL',
  `UPDATE outbox SET next_attempt_at = next_attempt_at - @ms, created_at = created_at - @ms, updated_at = updated_at - @ms,
     lease_until = CASE WHEN lease_until > 0 THEN lease_until - @ms ELSE 0 END, digest_at = digest_at - @ms`,
  `UPDATE active_alerts SET started_at = started_at - @ms, notified_at = notified_at - @ms, cleared_at = cleared_at - @ms, muted_at = muted_at - @ms,
     notified_receivers = (SELECT json_group_object(key, value - @ms) FROM json_each(active_alerts.notified_receivers)),
     condition = CASE WHEN json_type(condition, '$.firedAt') IN ('integer', 'real') THEN json_set(condition, '$.firedAt', json_extract(condition, '$.firedAt') - @ms) ELSE condition END`,
  'UPDATE entity_state SET updated_at = updated_at - @ms',
  'UPDATE samples SET at = at - @ms',
];

/**
 * The steady clock starts at the wall at each start. A previous run whose wall stepped back
 * kept times ahead of this run's clock: a retry, a `for:`, a reminder would wait that much
 * longer. Shifted back together (what is between them stays) when they lie more than
 * `toleranceMs` ahead of `now`; returns the shift (0: none).
 */
export function reanchor(db: Database.Database, now: number, toleranceMs: number): number {
  const { latest } = db.prepare(LATEST).get() as { latest: number | null };
  const ms = latest === null ? 0 : latest - now;
  if (ms <= toleranceMs) return 0;
  db.transaction(() => {
    // Bound as an integer: the JSON of notified_receivers keeps whole milliseconds.
    for (const sql of SHIFT) db.prepare(sql).run({ ms: BigInt(Math.round(ms)) });
  })();
  return ms;
}
