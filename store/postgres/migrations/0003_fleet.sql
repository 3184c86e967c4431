-- Several monitors on one store (promptcanary serve): a lease per
-- scheduled slot, so that each slot of each check runs once across the
-- monitors, and an outbox of notifications, so that each one is sent by
-- one monitor and survives a crash. Times, text and ids as in
-- 0001_history.sql: bigint nanoseconds (NULL for none), free text as bytea.

-- One scheduled slot of a check and provider: claimed (running) by one
-- monitor until expires_at, extended by its heartbeats, taken over by
-- another monitor once expired; done once its check run is recorded.
CREATE TABLE slot_leases (
    check_name     text NOT NULL,
    provider       text NOT NULL,
    slot           bigint NOT NULL,
    state          text NOT NULL,           -- running | done
    owner          text NOT NULL,           -- the holder, or who finished it
    claimed_at     bigint NOT NULL,
    expires_at     bigint NOT NULL,
    takeovers      integer NOT NULL DEFAULT 0,
    previous_owner text NOT NULL DEFAULT '',
    check_run_id   text COLLATE "C" NOT NULL DEFAULT '',
    finished_at    bigint,                  -- NULL while running
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
    seq              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id               text COLLATE "C" NOT NULL UNIQUE,
    incident_id      text COLLATE "C" NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
    notifier         text NOT NULL,
    status           text NOT NULL,
    event            text NOT NULL,
    incident         text NOT NULL,
    state            text NOT NULL,         -- pending | sent | failed
    attempts         integer NOT NULL DEFAULT 0,
    rounds           integer NOT NULL DEFAULT 0,
    created_at       bigint,
    next_attempt_at  bigint,
    claimed_by       text NOT NULL DEFAULT '',
    claim_expires_at bigint,
    done_by          text NOT NULL DEFAULT '',
    done_at          bigint,
    last_error       bytea NOT NULL DEFAULT ''::bytea
);
CREATE INDEX outbox_pending ON outbox (next_attempt_at, seq) WHERE state = 'pending';
CREATE INDEX outbox_lane ON outbox (incident_id, notifier, seq);
CREATE INDEX outbox_done ON outbox (done_at) WHERE state <> 'pending';
