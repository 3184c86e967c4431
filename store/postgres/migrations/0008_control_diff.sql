-- The control arm's difference in a check run's run-level record: the
-- schema shared by the SQL stores, store/sqlstore/schema/control_diff.sql,
-- in PostgreSQL's words (dialect.go).
{{template "control_diff.sql" .}}
