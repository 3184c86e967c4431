-- Answers longer than 64 KiB (promptcanary.AnswerHeadBytes), kept apart
-- from the run or baseline they belong to, one row each: the body holds a
-- marker in each one's place (store.MarshalRunApart), so that neither the
-- body nor a process reading it ever holds all the answers at once.
-- owner is 'run:' || run_id or 'baseline:' || snapshot_id.
CREATE TABLE answers (
    owner   TEXT NOT NULL,
    marker  TEXT NOT NULL,
    content BLOB NOT NULL,
    PRIMARY KEY (owner, marker)
) WITHOUT ROWID;
