-- Answers longer than 64 KiB (promptcanary.AnswerHeadBytes), kept apart
-- from the run or baseline they belong to, one row each: the body holds a
-- marker in each one's place (store.MarshalRunApart), so that neither the
-- body nor a process reading it ever holds all the answers at once, as in
-- the SQLite store (its migration 0005_answers.sql).
-- owner is 'run:' || run_id or 'baseline:' || snapshot_id. marker is
-- bytea: a marker starts and ends with a NUL byte, which text cannot hold.
CREATE TABLE answers (
    owner   text COLLATE "C" NOT NULL,
    marker  bytea NOT NULL,
    content bytea NOT NULL,
    PRIMARY KEY (owner, marker)
);
