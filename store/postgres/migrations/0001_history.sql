-- The history: runs, their per-probe aggregates, baselines, drift reports
-- and pending baselines, as in the SQLite store.
--
-- Times are bigint nanoseconds since the Unix epoch (UTC), NULL for no
-- time: timestamptz keeps only microseconds, and both backends must hold
-- the same history (store copy checks it). To read one by hand:
-- to_timestamp(started_at / 1e9). Listings put a NULL time last, as the
-- oldest.
--
-- Documents (run, baseline and report bodies) and free text (notes,
-- summaries) are bytea: text cannot hold a NUL byte, and a model's answer
-- may contain one. Ids are COLLATE "C" so that they sort by byte and
-- an id prefix is a contiguous range.

CREATE TABLE runs (
    run_id      text COLLATE "C" PRIMARY KEY,
    suite       text NOT NULL,
    model       text NOT NULL,
    started_at  bigint,
    finished_at bigint,
    samples     integer NOT NULL,
    results     integer NOT NULL,
    passed      integer NOT NULL,
    errors      integer NOT NULL,
    score       double precision,           -- NULL when a score is not a number
    pass_rate   double precision NOT NULL,
    interrupted boolean NOT NULL DEFAULT false,
    body        bytea NOT NULL              -- the run as JSON (store.MarshalRun)
);
-- Listings filter by suite and/or model and order by (started_at, run_id).
CREATE INDEX runs_suite_model_started ON runs (suite, model, started_at DESC NULLS LAST, run_id DESC);
CREATE INDEX runs_suite_started ON runs (suite, started_at DESC NULLS LAST, run_id DESC);
CREATE INDEX runs_model_started ON runs (model, started_at DESC NULLS LAST, run_id DESC);
CREATE INDEX runs_started ON runs (started_at DESC NULLS LAST, run_id DESC);

-- Per run × probe instance aggregates, for trends and the heatmap.
CREATE TABLE run_probes (
    run_id    text COLLATE "C" NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    probe_id  text COLLATE "C" NOT NULL,
    mean      double precision,             -- NULL when a score is not a number
    pass_rate double precision NOT NULL,
    n         integer NOT NULL,
    PRIMARY KEY (run_id, probe_id)
);

-- Baselines: a run marked as the baseline of its suite and model. The body
-- is the whole baseline as JSON, so an exported baseline is exactly the
-- one imported.
CREATE TABLE baselines (
    snapshot_id text COLLATE "C" PRIMARY KEY,
    run_id      text COLLATE "C" NOT NULL REFERENCES runs (run_id),
    suite       text NOT NULL,
    model       text NOT NULL,
    created_at  bigint,
    note        bytea NOT NULL,
    body        bytea NOT NULL
);
CREATE INDEX baselines_suite_model_created ON baselines (suite, model, created_at DESC NULLS LAST, snapshot_id DESC);
CREATE INDEX baselines_created ON baselines (created_at DESC NULLS LAST, snapshot_id DESC);
CREATE INDEX baselines_run ON baselines (run_id);

-- Drift reports. The current run need not be stored.
CREATE TABLE drift_reports (
    report_id      text COLLATE "C" PRIMARY KEY,
    suite          text NOT NULL,
    model          text NOT NULL,
    baseline_id    text COLLATE "C" NOT NULL,
    current_run_id text COLLATE "C" NOT NULL,
    generated_at   bigint,
    severity       text NOT NULL,
    has_drift      boolean NOT NULL,
    regressions    integer NOT NULL,
    summary        bytea NOT NULL,
    body           bytea NOT NULL
);
CREATE INDEX drift_suite_model_generated ON drift_reports (suite, model, generated_at DESC NULLS LAST, report_id DESC);
CREATE INDEX drift_generated ON drift_reports (generated_at DESC NULLS LAST, report_id DESC);
CREATE INDEX drift_current_run ON drift_reports (current_run_id, generated_at DESC NULLS LAST, report_id DESC);

-- A baseline asked of a run and recorded with it, not saved yet: what a
-- crash between saving a run and saving its baseline leaves. Saving the
-- baseline deletes the row. dir is a file path, bytes like any path.
CREATE TABLE pending_baselines (
    run_id      text COLLATE "C" PRIMARY KEY REFERENCES runs (run_id) ON DELETE CASCADE,
    snapshot_id text COLLATE "C" NOT NULL,
    created_at  bigint,
    note        bytea NOT NULL,
    dir         bytea NOT NULL
);
