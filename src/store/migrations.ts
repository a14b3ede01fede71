// Versioned schema: migration N brings the file to PRAGMA user_version N. Append only;
// never edit a migration that has shipped.
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE entity_state (
    rule       TEXT NOT NULL,
    entity     TEXT NOT NULL,
    state      TEXT NOT NULL,          -- JSON, parsed by the rule kind's zod schema on read
    updated_at INTEGER NOT NULL,       -- unix ms
    PRIMARY KEY (rule, entity)
  ) WITHOUT ROWID;

  CREATE TABLE alerts (
    id         INTEGER PRIMARY KEY,
    rule       TEXT NOT NULL,
    kind       TEXT NOT NULL,
    status     TEXT NOT NULL,          -- firing | resolved | event
    severity   TEXT NOT NULL,
    subject    TEXT NOT NULL,
    summary    TEXT NOT NULL,
    labels     TEXT NOT NULL,          -- JSON object
    details    TEXT NOT NULL,          -- JSON object
    created_at INTEGER NOT NULL        -- unix ms
  );
  CREATE INDEX alerts_by_rule ON alerts (rule, created_at);

  CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY,
    alert_id        INTEGER NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
    receiver        TEXT NOT NULL,
    state           TEXT NOT NULL DEFAULT 'pending',   -- pending | sent | dead
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,                  -- unix ms
    lease_until     INTEGER NOT NULL DEFAULT 0,        -- unix ms: a sender holds the row until then
    last_error      TEXT,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
  );
  CREATE INDEX outbox_due ON outbox (state, receiver, next_attempt_at);
  `,
  `
  -- State alerts firing now, per rule: what the next evaluation diffs against.
  CREATE TABLE active_alerts (
    rule       TEXT NOT NULL,
    key        TEXT NOT NULL,
    tier       TEXT NOT NULL,
    started_at INTEGER NOT NULL,       -- unix ms
    condition  TEXT NOT NULL,          -- JSON: the condition as last evaluated
    PRIMARY KEY (rule, key)
  ) WITHOUT ROWID;
  `,
  `
  -- for, repeatInterval and keepFiringFor.
  ALTER TABLE active_alerts ADD COLUMN state TEXT NOT NULL DEFAULT 'firing';
  ALTER TABLE active_alerts ADD COLUMN notified_at INTEGER;
  ALTER TABLE active_alerts ADD COLUMN cleared_at INTEGER;
  `,
  `
  -- Grouping: rows of one receiver with the same group key go out as one message.
  ALTER TABLE outbox ADD COLUMN group_key TEXT NOT NULL DEFAULT '';
  ALTER TABLE outbox ADD COLUMN group_wait INTEGER NOT NULL DEFAULT 0;       -- ms
  ALTER TABLE outbox ADD COLUMN group_interval INTEGER NOT NULL DEFAULT 0;   -- ms
  `,
  `
  -- Silences: notifications matching every matcher between starts_at and ends_at are muted.
  CREATE TABLE silences (
    id         INTEGER PRIMARY KEY,
    matchers   TEXT NOT NULL,          -- JSON [{name, value, regex}]
    starts_at  INTEGER NOT NULL,       -- unix ms
    ends_at    INTEGER NOT NULL,       -- unix ms; expiring sets it to now
    comment    TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  -- A state alert whose last notification was muted: notified when the mute ends.
  ALTER TABLE active_alerts ADD COLUMN muted_at INTEGER;
  `,
  `
  -- The receivers a state alert's last notification was muted for (JSON array).
  ALTER TABLE active_alerts ADD COLUMN muted_receivers TEXT NOT NULL DEFAULT '[]';
  `,
  `
  -- When each receiver last got a notification of a state alert (JSON object): per-route repeatInterval.
  ALTER TABLE active_alerts ADD COLUMN notified_receivers TEXT NOT NULL DEFAULT '{}';
  `,
  `
  -- Each commit of a rule's evaluation bumps its revision: a commit made from states another
  -- process has replaced since (a daemon beside \`once --send\`) is refused and evaluated again.
  CREATE TABLE rule_revision (
    rule     TEXT PRIMARY KEY,
    revision INTEGER NOT NULL
  );
  `,
  `
  -- A state alert's condition key: what a channel that keeps incidents (PagerDuty's dedup_key) keys them by.
  ALTER TABLE alerts ADD COLUMN condition_key TEXT;
  `,
  `
  -- A receiver's digest: the slot (unix ms) a row waits for; its age counts from then.
  ALTER TABLE outbox ADD COLUMN digest_at INTEGER;
  `,
  `
  -- Attempts that ended without an answer after the request was sent (the receiver may have
  -- it): a row is re-sent after one, never after a second. Kept here to survive a restart.
  ALTER TABLE outbox ADD COLUMN unknown_outcomes INTEGER NOT NULL DEFAULT 0;
  `,
  `
  -- History: figures the charts need, sampled (uptime, an L1 validator's balance), and the
  -- alerts table read by time. Both pruned after history.keep.
  CREATE TABLE samples (
    series TEXT NOT NULL,             -- e.g. uptime_percent, l1_balance_avax
    entity TEXT NOT NULL,             -- a NodeID, a validation ID
    at     INTEGER NOT NULL,          -- unix ms
    value  REAL NOT NULL,
    PRIMARY KEY (series, entity, at)
  ) WITHOUT ROWID;
  CREATE INDEX alerts_by_time ON alerts (created_at);
  -- A reminder of a state alert still firing: not a happening of its own in the history.
  ALTER TABLE alerts ADD COLUMN reminder INTEGER NOT NULL DEFAULT 0;
  `,
  `
  -- Pruning by time reads samples by time (the primary key starts with the series).
  CREATE INDEX samples_by_time ON samples (at);
  `,
  `
  -- Pruning deletes alerts, and their outbox rows go with them (ON DELETE CASCADE): each delete
  -- finds them by this index instead of scanning the outbox.
  CREATE INDEX outbox_by_alert ON outbox (alert_id);
  `,
  `
  -- Latency by severity: a critical row, or the first news of its group, is urgent. Its
  -- group_wait is stored capped (1 s) and it flushes its whole group, groupInterval or not.
  -- Kept here so a restart still sends it at once.
  ALTER TABLE outbox ADD COLUMN urgent INTEGER NOT NULL DEFAULT 0;
  -- "First news" is judged at insert from the group's pending and recently sent rows.
  CREATE INDEX outbox_by_group ON outbox (receiver, group_key, state, updated_at);
  `,
  `
  -- Which transition of its condition a state alert's firing, escalation or resolution is
  -- (alerts/lifecycle.ts transitionKey; none for reminders and events): one alert per
  -- transition, so the same news committed twice (a second process during a hand-over) is
  -- stored, and sent, once. kind keeps a rule's own alerts apart from its rule-failing ones.
  ALTER TABLE alerts ADD COLUMN transition TEXT;
  CREATE UNIQUE INDEX alerts_by_transition ON alerts (rule, kind, condition_key, transition) WHERE transition IS NOT NULL;
  `,
];
