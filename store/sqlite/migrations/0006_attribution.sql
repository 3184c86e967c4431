-- The likely cause of an incident's change: the schema shared by the SQL
-- stores, store/sqlstore/schema/attribution.sql, in SQLite's words
-- (dialect.go).
{{template "attribution.sql" .}}
