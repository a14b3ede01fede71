import type { HistoryEntry, Sample, TimelineQuery } from '../types.js';
import { transaction, type Queryable } from './connect.js';
import { jsonAlertRow } from '../rows.js';
import type pg from 'pg';

// Tables: samples, and alerts read as a timeline (as ../history.ts for SQLite).

const ENTRY = 'id AS alert_id, created_at, rule, kind, status, severity, subject, summary, labels, details, condition_key';

function entry(raw: unknown): HistoryEntry {
  const r = jsonAlertRow.parse(raw);
  return { id: r.alert_id, at: r.created_at, rule: r.rule, kind: r.kind, status: r.status, severity: r.severity, subject: r.subject, summary: r.summary, labels: r.labels, details: r.details };
}

/** Newest first. */
export async function timeline(db: Queryable, q: TimelineQuery): Promise<HistoryEntry[]> {
  const { rows } = await db.query(
    `SELECT ${ENTRY} FROM alerts
      WHERE created_at >= $1 AND NOT reminder
        AND ($2::text IS NULL OR labels->>'validator' = $2 OR labels->>'node' = $2 OR subject = $2)
      ORDER BY created_at DESC, id DESC LIMIT $3`,
    [q.since, q.validator ?? null, q.limit ?? 1000],
  );
  return rows.map(entry);
}

/** The newest one-shot event about each node since `since`, newest first, at most `limit` (as SQLite's lastEvents). */
export async function lastEvents(db: Queryable, since: number, limit = 1000): Promise<HistoryEntry[]> {
  const { rows } = await db.query(
    `SELECT * FROM (
       SELECT ${ENTRY}, ROW_NUMBER() OVER (PARTITION BY COALESCE(labels->>'node', labels->>'node_id', subject), labels->>'network' ORDER BY created_at DESC, id DESC) AS n
         FROM alerts WHERE created_at >= $1 AND status = 'event' AND NOT reminder AND labels->>'validation_id' IS NULL
     ) AS newest WHERE n = 1 ORDER BY created_at DESC, alert_id DESC LIMIT $2`,
    [since, limit],
  );
  return rows.map(entry);
}

/** One figure per series, entity and moment: a later one (in the list too) replaces it; NaN and infinities are dropped. */
export async function addSamples(db: Queryable, samples: readonly Sample[]): Promise<void> {
  const last = new Map<string, Sample>();
  for (const s of samples) if (Number.isFinite(s.value)) last.set(JSON.stringify([s.series, s.entity, s.at]), s);
  if (last.size === 0) return;
  const rows = [...last.values()];
  await db.query(
    `INSERT INTO samples (series, entity, at, value)
     SELECT * FROM unnest($1::text[], $2::text[], $3::double precision[], $4::double precision[])
     ON CONFLICT (series, entity, at) DO UPDATE SET value = excluded.value`,
    [rows.map((s) => s.series), rows.map((s) => s.entity), rows.map((s) => s.at), rows.map((s) => s.value)],
  );
}

/** The newest sample of each entity in a series. */
export async function lastSampleAt(db: Queryable, series: string): Promise<Map<string, number>> {
  const { rows } = await db.query<{ entity: string; at: number }>('SELECT entity, MAX(at) AS at FROM samples WHERE series = $1 GROUP BY entity', [series]);
  return new Map(rows.map((r) => [r.entity, r.at]));
}

/** Oldest first; with until and points, each slice's lowest figure, then the latest as it is. */
export async function samples(db: Queryable, series: string, entity: string, since: number, o: { until?: number; points?: number } = {}): Promise<Sample[]> {
  const where = 'FROM samples WHERE series = $1 AND entity = $2 AND at >= $3';
  const all = async () => (await db.query<Sample>(`SELECT series, entity, at, value ${where} ORDER BY at`, [series, entity, since])).rows;
  if (o.points === undefined || o.until === undefined) return all();
  const { rows: counted } = await db.query<{ n: number }>(`SELECT COUNT(*) AS n ${where}`, [series, entity, since]);
  if ((counted[0]?.n ?? 0) <= o.points) return all();
  const width = Math.max(1, Math.ceil((o.until - since) / o.points));
  const { rows: buckets } = await db.query<Sample>(
    `SELECT series, entity, MIN(at) AS at, MIN(value) AS value ${where} GROUP BY series, entity, floor((at - $3) / $4) ORDER BY at`,
    [series, entity, since, width],
  );
  const { rows: latest } = await db.query<Sample>(`SELECT series, entity, at, value ${where} ORDER BY at DESC LIMIT 1`, [series, entity, since]);
  return [...buckets.filter((b) => b.at < latest[0]!.at), latest[0]!];
}

/** Forgets samples and alerts older than `before` (never one a pending notification waits for), at most `limit` of each. */
export async function pruneHistory(pool: pg.Pool, before: number, limit = -1): Promise<{ samples: number; alerts: number }> {
  const most = limit < 0 ? null : limit;
  return transaction(pool, async (db) => {
    const s = await db.query('DELETE FROM samples WHERE ctid IN (SELECT ctid FROM samples WHERE at < $1 LIMIT $2)', [before, most]);
    const a = await db.query(
      `DELETE FROM alerts WHERE id IN (SELECT id FROM alerts WHERE created_at < $1
          AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.alert_id = alerts.id AND o.state = 'pending') LIMIT $2)`,
      [before, most],
    );
    return { samples: s.rowCount ?? 0, alerts: a.rowCount ?? 0 };
  });
}
