-- The run-level rule's record of a check run: the schema shared by the SQL
-- stores, store/sqlstore/schema/run_level.sql, in PostgreSQL's words
-- (dialect.go).
{{template "run_level.sql" .}}
