-- The state of the monitor (promptcanary serve): scheduled check runs,
-- incidents with their events, and notification attempts. Times are UTC
-- text in the fixed-width form of 0001_init.sql; an optional time that is
-- not set is NULL.

-- One scheduled run of a check against one provider. Floats are NULL when
-- they are not numbers.
CREATE TABLE check_runs (
    id                 TEXT PRIMARY KEY,
    check_name         TEXT NOT NULL,
    provider           TEXT NOT NULL,
    suite              TEXT NOT NULL,
    slot               TEXT NOT NULL,
    started_at         TEXT NOT NULL,
    finished_at        TEXT NOT NULL,
    outcome            TEXT NOT NULL,
    run_id             TEXT NOT NULL DEFAULT '',
    report_id          TEXT NOT NULL DEFAULT '',
    confirm_run_id     TEXT NOT NULL DEFAULT '',
    confirm_report_id  TEXT NOT NULL DEFAULT '',
    baseline_id        TEXT NOT NULL DEFAULT '',
    confirmed          INTEGER NOT NULL DEFAULT 0,
    pass_rate          REAL,
    score              REAL,
    baseline_pass_rate REAL,
    severity           TEXT NOT NULL DEFAULT '',
    cost_usd           REAL,
    reason             TEXT NOT NULL DEFAULT ''
);
-- A check's history for its charts, newest slot first; and every check's.
CREATE INDEX check_runs_check_provider_slot ON check_runs (check_name, provider, slot DESC, id DESC);
CREATE INDEX check_runs_slot ON check_runs (slot DESC, id DESC);

-- Incidents. units and notified_to are JSON arrays (or null).
CREATE TABLE incidents (
    id              TEXT PRIMARY KEY,
    fingerprint     TEXT NOT NULL,
    check_name      TEXT NOT NULL,
    suite           TEXT NOT NULL,
    provider        TEXT NOT NULL,
    kind            TEXT NOT NULL,
    severity        TEXT NOT NULL,
    summary         TEXT NOT NULL,
    units           TEXT NOT NULL DEFAULT 'null',
    run_id          TEXT NOT NULL DEFAULT '',
    report_id       TEXT NOT NULL DEFAULT '',
    opened_at       TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    resolved_at     TEXT,             -- NULL while open
    acknowledged_at TEXT,
    acknowledged_by TEXT NOT NULL DEFAULT '',
    clean_runs      INTEGER NOT NULL DEFAULT 0,
    notified_at     TEXT,
    notified_to     TEXT NOT NULL DEFAULT 'null'
);
-- At most one open incident per fingerprint: two monitors sharing a store
-- cannot both open one.
CREATE UNIQUE INDEX incidents_open_fingerprint ON incidents (fingerprint) WHERE resolved_at IS NULL;
CREATE INDEX incidents_resolved ON incidents (resolved_at);
CREATE INDEX incidents_check_opened ON incidents (check_name, opened_at DESC, id DESC);
CREATE INDEX incidents_opened ON incidents (opened_at DESC, id DESC);

-- An incident's timeline; seq keeps the order of events at the same time.
CREATE TABLE incident_events (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    incident_id TEXT NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    at          TEXT NOT NULL,
    type        TEXT NOT NULL,
    run_id      TEXT NOT NULL DEFAULT '',
    severity    TEXT NOT NULL DEFAULT '',
    summary     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX incident_events_incident ON incident_events (incident_id, at, seq);

-- Every attempt to deliver a notification; the attempts of one delivery
-- share id.
CREATE TABLE notifications (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL,
    incident_id TEXT NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    notifier    TEXT NOT NULL,
    status      TEXT NOT NULL,
    event       TEXT NOT NULL,
    attempt     INTEGER NOT NULL,
    at          TEXT NOT NULL,
    ok          INTEGER NOT NULL,
    code        INTEGER NOT NULL DEFAULT 0,
    error       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX notifications_incident ON notifications (incident_id, at, seq);
CREATE INDEX notifications_at ON notifications (at, seq);
CREATE INDEX notifications_id ON notifications (id);
