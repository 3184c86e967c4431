-- The upgrade gates of the monitor's checks: the schema shared by the SQL
-- stores, store/sqlstore/schema/gates.sql, in PostgreSQL's words
-- (dialect.go).
{{template "gates.sql" .}}
