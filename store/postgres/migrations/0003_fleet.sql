-- Leases of scheduled slots and an outbox of notifications: the schema
-- shared by the SQL stores, store/sqlstore/schema/fleet.sql, in
-- PostgreSQL's words (dialect.go).
{{template "fleet.sql" .}}
