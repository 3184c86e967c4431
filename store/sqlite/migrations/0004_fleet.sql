-- Several monitors on one store (promptcanary serve): a lease per
-- scheduled slot, so that each slot of each check runs once across the
-- monitors, and an outbox of notifications, so that each one is sent by
-- one monitor and survives a crash. Times as in 0003_monitor.sql.

-- One scheduled slot of a check and provider: claimed (running) by one
-- monitor until expires_at, extended by its heartbeats, taken over by
-- another monitor once expired; done once its check run is recorded.
CREATE TABLE slot_leases (
    check_name     TEXT NOT NULL,
    provider       TEXT NOT NULL,
    slot           TEXT NOT NULL,
    state          TEXT NOT NULL,           -- running | done
    owner          TEXT NOT NULL,           -- the holder, or who finished it
    claimed_at     TEXT NOT NULL,
    expires_at     TEXT NOT NULL,
    takeovers      INTEGER NOT NULL DEFAULT 0,
    previous_owner TEXT NOT NULL DEFAULT '',
    check_run_id   TEXT NOT NULL DEFAULT '',
    finished_at    TEXT,                    -- NULL while running
    PRIMARY KEY (check_name, provider, slot)
);
-- Leases to take over.
CREATE INDEX slot_leases_running ON slot_leases (expires_at) WHERE state = 'running';
CREATE INDEX slot_leases_finished ON slot_leases (finished_at) WHERE state = 'done';

-- One notification of an incident to one notifier. incident is the JSON
-- of the incident as the step left it. seq orders the deliveries of a lane
-- (an incident and a notifier).
CREATE TABLE outbox (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    id               TEXT NOT NULL UNIQUE,
    incident_id      TEXT NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    notifier         TEXT NOT NULL,
    status           TEXT NOT NULL,
    event            TEXT NOT NULL,
    incident         TEXT NOT NULL,
    state            TEXT NOT NULL,         -- pending | sent | failed
    attempts         INTEGER NOT NULL DEFAULT 0,
    rounds           INTEGER NOT NULL DEFAULT 0,
    created_at       TEXT NOT NULL,
    next_attempt_at  TEXT NOT NULL,
    claimed_by       TEXT NOT NULL DEFAULT '',
    claim_expires_at TEXT,
    done_by          TEXT NOT NULL DEFAULT '',
    done_at          TEXT,
    last_error       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX outbox_pending ON outbox (next_attempt_at, seq) WHERE state = 'pending';
CREATE INDEX outbox_lane ON outbox (incident_id, notifier, seq);
CREATE INDEX outbox_done ON outbox (done_at) WHERE state <> 'pending';
