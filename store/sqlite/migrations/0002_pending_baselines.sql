-- A baseline asked of a run and recorded with it, not saved yet: what a
-- crash between saving a run and saving its baseline leaves. Saving the
-- baseline deletes the row.
CREATE TABLE pending_baselines (
    run_id      TEXT PRIMARY KEY REFERENCES runs (run_id) ON DELETE CASCADE,
    snapshot_id TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    note        TEXT NOT NULL DEFAULT '',
    dir         TEXT NOT NULL DEFAULT ''
);
