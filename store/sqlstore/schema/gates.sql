{{- /*
The upgrade gates of the monitor's checks that name a candidate, shared by
the SQL backends: store/sqlite's 0007_gates.sql and store/postgres's
0006_gates.sql run it, each in the words of its dialect (sqlstore.Schema).
*/ -}}
-- One upgrade gate of a check (candidate:): the check's provider and its
-- candidate run in the same slot, compared pair by pair. report is the
-- JSON of the comparison (promptcanary.CandidateReport; text: JSON escapes
-- every byte text cannot hold), '' when a model could not be measured
-- (reason says why). cost_usd is NULL when unpriced or not a number.
CREATE TABLE candidate_gates (
    id           {{.ID}} PRIMARY KEY,
    check_name   TEXT NOT NULL,
    provider     TEXT NOT NULL,
    candidate    TEXT NOT NULL,
    slot         {{.Time}} NOT NULL,
    finished_at  {{.Time}} NOT NULL,
    check_run_id {{.ID}} NOT NULL DEFAULT '',
    cost_usd     DOUBLE PRECISION,
    reason       {{.Bytes}} NOT NULL DEFAULT '',
    report       TEXT NOT NULL DEFAULT ''
);
-- A check's gates, newest slot first.
CREATE INDEX candidate_gates_check_provider_slot ON candidate_gates (check_name, provider, slot DESC, id DESC);
