{{- /*
The schema of several monitors on one store, shared by the SQL backends:
store/sqlite's 0004_fleet.sql and store/postgres's 0003_fleet.sql run it,
each in the words of its dialect (sqlstore.Schema), as they ran their own
copies before. Types are written as SQLite's (TEXT, INTEGER); PostgreSQL
reads them as its own (text, integer).
*/ -}}
-- Several monitors on one store (promptcanary serve): a lease per
-- scheduled slot, so that each slot of each check runs once across the
-- monitors, and an outbox of notifications, so that each one is sent by
-- one monitor and survives a crash.

-- One scheduled slot of a check and provider: claimed (running) by one
-- monitor until expires_at, extended by its heartbeats, taken over by
-- another monitor once expired; done once its check run is recorded.
CREATE TABLE slot_leases (
    check_name     TEXT NOT NULL,
    provider       TEXT NOT NULL,
    slot           {{.Time}} NOT NULL,
    state          TEXT NOT NULL,           -- running | done
    owner          TEXT NOT NULL,           -- the holder, or who finished it
    claimed_at     {{.Time}} NOT NULL,
    expires_at     {{.Time}} NOT NULL,
    takeovers      INTEGER NOT NULL DEFAULT 0,
    previous_owner TEXT NOT NULL DEFAULT '',
    check_run_id   {{.ID}} NOT NULL DEFAULT '',
    finished_at    {{.Time}},                    -- NULL while running
    PRIMARY KEY (check_name, provider, slot)
);
-- Leases to take over.
CREATE INDEX slot_leases_running ON slot_leases (expires_at) WHERE state = 'running';
CREATE INDEX slot_leases_finished ON slot_leases (finished_at) WHERE state = 'done';

-- One notification of an incident to one notifier. incident is the JSON
-- of the incident as the step left it (text: JSON escapes every byte text
-- cannot hold). seq orders the deliveries of a lane (an incident and a
-- notifier).
CREATE TABLE outbox (
    seq              {{.Seq}},
    id               {{.ID}} NOT NULL UNIQUE,
    incident_id      {{.ID}} NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    notifier         TEXT NOT NULL,
    status           TEXT NOT NULL,
    event            TEXT NOT NULL,
    incident         TEXT NOT NULL,
    state            TEXT NOT NULL,         -- pending | sent | failed
    attempts         INTEGER NOT NULL DEFAULT 0,
    rounds           INTEGER NOT NULL DEFAULT 0,
    created_at       {{.AnyTime}},
    next_attempt_at  {{.AnyTime}},
    claimed_by       TEXT NOT NULL DEFAULT '',
    claim_expires_at {{.Time}},
    done_by          TEXT NOT NULL DEFAULT '',
    done_at          {{.Time}},
    last_error       {{.Bytes}} NOT NULL DEFAULT ''
);
CREATE INDEX outbox_pending ON outbox (next_attempt_at, seq) WHERE state = 'pending';
CREATE INDEX outbox_lane ON outbox (incident_id, notifier, seq);
CREATE INDEX outbox_done ON outbox (done_at) WHERE state <> 'pending';
