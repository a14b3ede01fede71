// Versioned schema of the PostgreSQL store: migration N brings a database to version N
// (recorded in schema_migrations, applied by migrate.ts under its lock). Append only; never
// edit a migration that has shipped.
//
// The tables are SQLite's (../migrations.ts) as they stand after its last migration, in
// PostgreSQL's types: times the daemon keeps on its steady clock stay unix ms (double precision: the steady
// clock has fractions of a millisecond, which SQLite keeps as they are and bigint refuses), JSON
// that SQL reads or edits is jsonb, flags are boolean. What SQLite lacks: the shards' leases
// and the compute-unit ledger shared by every instance.
export const MIGRATIONS: readonly string[] = [
  `
  -- Each rule's entity states. state stays text: the JSON the rule kind wrote, compared as
  -- text so that an unchanged state is not written again.
  CREATE TABLE entity_state (
    rule       text NOT NULL,
    entity     text NOT NULL,
    state      text NOT NULL,
    updated_at double precision NOT NULL,             -- unix ms
    PRIMARY KEY (rule, entity)
  );

  -- Each commit of a rule's evaluation bumps its revision: a commit made from states another
  -- instance has replaced since is refused and evaluated again.
  CREATE TABLE rule_revision (
    rule     text PRIMARY KEY,
    revision bigint NOT NULL
  );

  -- Bumped by every write of states or state alerts: a store tells from it (less its own
  -- bumps) that another process wrote what it keeps in memory (SQLite's data_version).
  CREATE TABLE data_version (
    id      integer PRIMARY KEY CHECK (id = 1),
    version bigint NOT NULL
  );
  INSERT INTO data_version VALUES (1, 0);

  -- State alerts, pending and firing, per rule: what the next evaluation diffs against.
  CREATE TABLE active_alerts (
    rule               text NOT NULL,
    key                text NOT NULL,
    tier               text NOT NULL,
    state              text NOT NULL DEFAULT 'firing' CHECK (state IN ('pending', 'firing')),
    started_at         double precision NOT NULL,     -- unix ms
    notified_at        double precision,
    cleared_at         double precision,
    muted_at           double precision,
    muted_receivers    jsonb NOT NULL DEFAULT '[]',   -- receivers its last notification was muted for
    notified_receivers jsonb NOT NULL DEFAULT '{}',   -- receiver → unix ms of its last notification
    condition          jsonb NOT NULL,                -- the condition as last evaluated
    PRIMARY KEY (rule, key)
  );

  -- Every notification an evaluation produced; the history reads it by time.
  CREATE TABLE alerts (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    rule          text NOT NULL,
    kind          text NOT NULL,
    status        text NOT NULL CHECK (status IN ('firing', 'resolved', 'event')),
    severity      text NOT NULL,
    subject       text NOT NULL,
    summary       text NOT NULL,
    labels        jsonb NOT NULL,
    details       jsonb NOT NULL,
    condition_key text,                     -- a state alert's key (PagerDuty's dedup_key)
    reminder      boolean NOT NULL DEFAULT false,
    created_at    double precision NOT NULL           -- unix ms
  );
  CREATE INDEX alerts_by_rule ON alerts (rule, created_at);
  CREATE INDEX alerts_by_time ON alerts (created_at);

  -- One row per alert and receiver: pending, sent, dead or muted; leased while a sender has it.
  CREATE TABLE outbox (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    alert_id         bigint NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
    receiver         text NOT NULL,
    state            text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'dead', 'muted')),
    attempts         integer NOT NULL DEFAULT 0,
    unknown_outcomes integer NOT NULL DEFAULT 0,   -- sent without an answer: re-sent once, never twice
    next_attempt_at  double precision NOT NULL,              -- unix ms
    lease_until      double precision NOT NULL DEFAULT 0,    -- unix ms: a sender holds the row until then
    last_error       text,
    group_key        text NOT NULL DEFAULT '',
    group_wait       double precision NOT NULL DEFAULT 0,    -- ms
    group_interval   double precision NOT NULL DEFAULT 0,    -- ms
    digest_at        double precision,                       -- unix ms: the digest slot it waits for
    urgent           boolean NOT NULL DEFAULT false,
    created_at       double precision NOT NULL,
    updated_at       double precision NOT NULL
  );
  CREATE INDEX outbox_due ON outbox (state, receiver, next_attempt_at);
  CREATE INDEX outbox_by_alert ON outbox (alert_id);
  CREATE INDEX outbox_by_group ON outbox (receiver, group_key, state, updated_at);

  -- Notifications matching every matcher between starts_at and ends_at are muted (a person's wall times).
  CREATE TABLE silences (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    matchers   jsonb NOT NULL,              -- [{name, value, regex}]
    starts_at  double precision NOT NULL,             -- unix ms
    ends_at    double precision NOT NULL,             -- unix ms; expiring sets it to now
    comment    text NOT NULL,
    created_by text NOT NULL,
    created_at double precision NOT NULL
  );

  -- History: figures the charts need (uptime, an L1 validator's balance), pruned after history.keep.
  CREATE TABLE samples (
    series text NOT NULL,
    entity text NOT NULL,
    at     double precision NOT NULL,                 -- unix ms
    value  double precision NOT NULL,
    PRIMARY KEY (series, entity, at)
  );
  CREATE INDEX samples_by_time ON samples (at);
  `,
  `
  -- Work is spread over 256 virtual shards, each held by one instance on a lease. Times are
  -- the database's (now()), never a host's. epoch moves whenever the holder changes: a write
  -- carries its shard's epoch and is refused once it moved on (leases.ts: fencing).
  CREATE TABLE leases (
    shard      integer PRIMARY KEY CHECK (shard >= 0 AND shard < 256),
    holder     text,                        -- NULL: free
    epoch      bigint NOT NULL DEFAULT 0,
    expires_at timestamptz                  -- NULL: free
  );
  INSERT INTO leases (shard) SELECT generate_series(0, 255);
  `,
  `
  -- One compute-unit budget per API key, shared by every instance: units are reserved here
  -- before a request and given back when it got no answer. budget names the key by a digest
  -- (never the key itself); second is the database's time, to the second.
  CREATE TABLE compute_units (
    budget text NOT NULL,
    second timestamptz NOT NULL,
    units  bigint NOT NULL,
    PRIMARY KEY (budget, second)
  );
  CREATE INDEX compute_units_by_time ON compute_units (second);
  `,
  `
  -- Which transition of its condition a state alert's firing, escalation or resolution is
  -- (alerts/lifecycle.ts transitionKey; none for reminders and events): one alert per
  -- transition, so the same news committed by two instances during a hand-over is stored, and
  -- sent, once. kind keeps a rule's own alerts apart from its rule-failing ones.
  ALTER TABLE alerts ADD COLUMN transition text;
  CREATE UNIQUE INDEX alerts_by_transition ON alerts (rule, kind, condition_key, transition) WHERE transition IS NOT NULL;
  `,
  `
  -- The instances sharing the state, each on a lease of its own renewed with its shards'
  -- (leases.ts: balance): how many are alive sets each one's fair share of the shards.
  CREATE TABLE members (
    holder     text PRIMARY KEY,
    expires_at timestamptz NOT NULL
  );
  `,
];
