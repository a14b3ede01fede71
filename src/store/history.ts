import type Database from 'better-sqlite3';
import { textAlertRow } from './rows.js';
import { statement } from './statement.js';
import type { HistoryEntry, Sample, TimelineQuery } from './types.js';

// Tables: samples (figures over time), and alerts read as a timeline. Pruned after history.keep.

/** Newest first. */
export function timeline(db: Database.Database, q: TimelineQuery): HistoryEntry[] {
  const where = ['created_at >= ?', 'reminder = 0'];
  const args: Array<string | number> = [q.since];
  if (q.validator !== undefined) {
    where.push(`(json_extract(labels, '$.validator') = ? OR json_extract(labels, '$.node') = ? OR subject = ?)`);
    args.push(q.validator, q.validator, q.validator);
  }
  const rows = statement(db, `SELECT id AS alert_id, created_at, rule, kind, status, severity, subject, summary, labels, details, condition_key FROM alerts WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ?`)
    .all(...args, q.limit ?? 1000);
  return rows.map((raw) => {
    const r = textAlertRow.parse(raw);
    return { id: r.alert_id, at: r.created_at, rule: r.rule, kind: r.kind, status: r.status, severity: r.severity, subject: r.subject, summary: r.summary, labels: r.labels, details: r.details };
  });
}

/**
 * The newest one-shot event about each node since `since` (unix ms), newest first, at most
 * `limit`: what a validator's tile says last happened to it. The node is the `node` label, else
 * `node_id`, else the subject; an L1 validation's events (label `validation_id`) are its own.
 */
export function lastEvents(db: Database.Database, since: number, limit = 1000): HistoryEntry[] {
  const node = "COALESCE(json_extract(labels, '$.node'), json_extract(labels, '$.node_id'), subject)";
  const rows = statement(
    db,
    `SELECT alert_id, created_at, rule, kind, status, severity, subject, summary, labels, details, condition_key FROM (
       SELECT id AS alert_id, created_at, rule, kind, status, severity, subject, summary, labels, details, condition_key,
         ROW_NUMBER() OVER (PARTITION BY ${node}, json_extract(labels, '$.network') ORDER BY created_at DESC, id DESC) AS n
       FROM alerts WHERE created_at >= ? AND status = 'event' AND reminder = 0 AND json_extract(labels, '$.validation_id') IS NULL
     ) WHERE n = 1 ORDER BY created_at DESC, alert_id DESC LIMIT ?`,
  ).all(since, limit);
  return rows.map((raw) => {
    const r = textAlertRow.parse(raw);
    return { id: r.alert_id, at: r.created_at, rule: r.rule, kind: r.kind, status: r.status, severity: r.severity, subject: r.subject, summary: r.summary, labels: r.labels, details: r.details };
  });
}

/** Within the caller's transaction or on its own: one figure per series, entity and moment. */
export function addSamples(db: Database.Database, samples: readonly Sample[]): void {
  const insert = statement(db, 'INSERT OR REPLACE INTO samples (series, entity, at, value) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (const s of samples) if (Number.isFinite(s.value)) insert.run(s.series, s.entity, s.at, s.value);
  })();
}

/** The newest sample of each entity in a series (the sampler's "is it time again?"). */
export function lastSampleAt(db: Database.Database, series: string): Map<string, number> {
  const rows = statement(db, 'SELECT entity, MAX(at) AS at FROM samples WHERE series = ? GROUP BY entity').all(series) as Array<{ entity: string; at: number }>;
  return new Map(rows.map((r) => [r.entity, r.at]));
}

/** Oldest first. */
export function samples(db: Database.Database, series: string, entity: string, since: number, o: { until?: number; points?: number } = {}): Sample[] {
  const where = 'FROM samples WHERE series = ? AND entity = ? AND at >= ?';
  const { n } = statement(db, `SELECT COUNT(*) AS n ${where}`).get(series, entity, since) as { n: number };
  if (o.points === undefined || o.until === undefined || n <= o.points) return statement(db, `SELECT series, entity, at, value ${where} ORDER BY at`).all(series, entity, since) as Sample[];
  // A chart's worth: the lowest figure of each slice of the window (a dip stays visible), then the latest as it is.
  const width = Math.max(1, Math.ceil((o.until - since) / o.points));
  const buckets = statement(db, `SELECT series, entity, MIN(at) AS at, MIN(value) AS value ${where} GROUP BY CAST((at - ?) / ? AS INTEGER) ORDER BY at`).all(series, entity, since, since, width) as Sample[];
  const latest = statement(db, `SELECT series, entity, at, value ${where} ORDER BY at DESC LIMIT 1`).get(series, entity, since) as Sample;
  return [...buckets.filter((b) => b.at < latest.at), latest];
}

/**
 * Forgets what is older than `before`: samples, and alerts no outbox row still waits for
 * (a pending notification is never lost to pruning). At most `limit` rows of each table a
 * call, so a caller can prune a large file in steps. Returns how many rows went.
 */
export function pruneHistory(db: Database.Database, before: number, limit = -1): { samples: number; alerts: number } {
  return db.transaction(() => {
    const s = statement(db, 'DELETE FROM samples WHERE at < ? AND (series, entity, at) IN (SELECT series, entity, at FROM samples WHERE at < ? LIMIT ?)')
      .run(before, before, limit).changes;
    const a = statement(db, `DELETE FROM alerts WHERE id IN (SELECT id FROM alerts WHERE created_at < ? AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.alert_id = alerts.id AND o.state = 'pending') LIMIT ?)`)
      .run(before, limit).changes;
    return { samples: s, alerts: a };
  })();
}

/** Pages of the file that deletes freed and nothing reuses yet: what an incremental vacuum gives back. */
export function freePages(db: Database.Database): number {
  return db.pragma('freelist_count', { simple: true }) as number;
}

/** Gives up to `pages` free pages back to the file system (the file must be in auto_vacuum=INCREMENTAL). */
export function vacuumStep(db: Database.Database, pages: number): void {
  // A pragma that returns rows per page freed: run to its end, or nothing is freed.
  db.pragma(`incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
}
