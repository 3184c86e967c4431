-- The state of the monitor (promptcanary serve): scheduled check runs,
-- incidents with their events, and notification attempts. Times, text and
-- ids as in 0001_history.sql: bigint nanoseconds (NULL for none), free
-- text as bytea.

-- One scheduled run of a check against one provider. Floats are NULL when
-- they are not numbers.
CREATE TABLE check_runs (
    id                 text COLLATE "C" PRIMARY KEY,
    check_name         text NOT NULL,
    provider           text NOT NULL,
    suite              text NOT NULL,
    slot               bigint,
    started_at         bigint,
    finished_at        bigint,
    outcome            text NOT NULL,
    run_id             text NOT NULL,
    report_id          text NOT NULL,
    confirm_run_id     text NOT NULL,
    confirm_report_id  text NOT NULL,
    baseline_id        text NOT NULL,
    confirmed          boolean NOT NULL,
    pass_rate          double precision,
    score              double precision,
    baseline_pass_rate double precision,
    severity           text NOT NULL,
    cost_usd           double precision,
    reason             bytea NOT NULL
);
-- A check's history for its charts, newest slot first; and every check's.
CREATE INDEX check_runs_check_provider_slot ON check_runs (check_name, provider, slot DESC NULLS LAST, id DESC);
CREATE INDEX check_runs_slot ON check_runs (slot DESC NULLS LAST, id DESC);

-- Incidents. units and notified_to are JSON arrays (or null), as text:
-- JSON escapes every byte text cannot hold.
CREATE TABLE incidents (
    id              text COLLATE "C" PRIMARY KEY,
    fingerprint     text NOT NULL,
    check_name      text NOT NULL,
    suite           text NOT NULL,
    provider        text NOT NULL,
    kind            text NOT NULL,
    severity        text NOT NULL,
    summary         bytea NOT NULL,
    units           text NOT NULL,
    run_id          text NOT NULL,
    report_id       text NOT NULL,
    opened_at       bigint,
    updated_at      bigint,
    resolved_at     bigint,             -- NULL while open
    acknowledged_at bigint,
    acknowledged_by bytea NOT NULL,
    clean_runs      integer NOT NULL,
    notified_at     bigint,
    notified_to     text NOT NULL
);
-- At most one open incident per fingerprint: however many monitors share
-- the store, one of them opens it and the others get a unique violation
-- (store.ErrConflict).
CREATE UNIQUE INDEX incidents_open_fingerprint ON incidents (fingerprint) WHERE resolved_at IS NULL;
CREATE INDEX incidents_check_opened ON incidents (check_name, opened_at DESC NULLS LAST, id DESC);
CREATE INDEX incidents_opened ON incidents (opened_at DESC NULLS LAST, id DESC);
CREATE INDEX incidents_open ON incidents (opened_at DESC NULLS LAST, id DESC) WHERE resolved_at IS NULL;

-- An incident's timeline; seq keeps the order of events at the same time.
CREATE TABLE incident_events (
    seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    incident_id text COLLATE "C" NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    at          bigint,
    type        text NOT NULL,
    run_id      text NOT NULL,
    severity    text NOT NULL,
    summary     bytea NOT NULL
);
CREATE INDEX incident_events_incident ON incident_events (incident_id, at NULLS FIRST, seq);

-- Every attempt to deliver a notification; the attempts of one delivery
-- share id.
CREATE TABLE notifications (
    seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          text COLLATE "C" NOT NULL,
    incident_id text COLLATE "C" NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    notifier    text NOT NULL,
    status      text NOT NULL,
    event       text NOT NULL,
    attempt     integer NOT NULL,
    at          bigint,
    ok          boolean NOT NULL,
    code        integer NOT NULL,
    error       bytea NOT NULL
);
CREATE INDEX notifications_incident ON notifications (incident_id, at DESC NULLS LAST, seq DESC);
CREATE INDEX notifications_at ON notifications (at DESC NULLS LAST, seq DESC);
CREATE INDEX notifications_id ON notifications (id);
