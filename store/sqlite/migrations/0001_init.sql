-- Runs: the summary columns that listings read, and the run as JSON.
-- Times are UTC text in a fixed-width RFC 3339 form, so they sort as text.
CREATE TABLE runs (
    run_id      TEXT PRIMARY KEY,
    suite       TEXT NOT NULL,
    model       TEXT NOT NULL,
    started_at  TEXT NOT NULL,
    finished_at TEXT NOT NULL DEFAULT '',
    samples     INTEGER NOT NULL,
    results     INTEGER NOT NULL,
    passed      INTEGER NOT NULL,
    errors      INTEGER NOT NULL,
    score       REAL,             -- NULL when a score is not a number
    pass_rate   REAL NOT NULL,
    interrupted INTEGER NOT NULL DEFAULT 0,
    body        BLOB NOT NULL
);
-- Listings filter by suite and/or model and order by (started_at, run_id).
CREATE INDEX runs_suite_model_started ON runs (suite, model, started_at, run_id);
CREATE INDEX runs_suite_started ON runs (suite, started_at, run_id);
CREATE INDEX runs_model_started ON runs (model, started_at, run_id);
CREATE INDEX runs_started ON runs (started_at, run_id);

-- Per run × probe instance aggregates, for trends and the heatmap.
CREATE TABLE run_probes (
    run_id    TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    probe_id  TEXT NOT NULL,
    mean      REAL,                -- NULL when a score is not a number
    pass_rate REAL NOT NULL,
    n         INTEGER NOT NULL,
    PRIMARY KEY (run_id, probe_id)
) WITHOUT ROWID;

-- Baselines: a run marked as the baseline of its suite and model. The body
-- is the whole baseline as JSON, so an exported baseline is exactly the
-- one imported.
CREATE TABLE baselines (
    snapshot_id TEXT PRIMARY KEY,
    run_id      TEXT NOT NULL REFERENCES runs (run_id),
    suite       TEXT NOT NULL,
    model       TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    note        TEXT NOT NULL DEFAULT '',
    body        BLOB NOT NULL
);
CREATE INDEX baselines_suite_model_created ON baselines (suite, model, created_at, snapshot_id);
CREATE INDEX baselines_created ON baselines (created_at, snapshot_id);
CREATE INDEX baselines_run ON baselines (run_id);

-- Drift reports. The current run need not be stored.
CREATE TABLE drift_reports (
    report_id      TEXT PRIMARY KEY,
    suite          TEXT NOT NULL,
    model          TEXT NOT NULL,
    baseline_id    TEXT NOT NULL,
    current_run_id TEXT NOT NULL,
    generated_at   TEXT NOT NULL,
    severity       TEXT NOT NULL,
    has_drift      INTEGER NOT NULL,
    regressions    INTEGER NOT NULL,
    summary        TEXT NOT NULL,
    body           BLOB NOT NULL
);
CREATE INDEX drift_suite_model_generated ON drift_reports (suite, model, generated_at, report_id);
CREATE INDEX drift_generated ON drift_reports (generated_at, report_id);
CREATE INDEX drift_current_run ON drift_reports (current_run_id, generated_at, report_id);
