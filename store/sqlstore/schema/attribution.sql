{{- /*
The likely cause of an incident's change, shared by the SQL backends:
store/sqlite's 0006_attribution.sql and store/postgres's 0005_attribution.sql
run it. TEXT is read by PostgreSQL as its text.
*/ -}}
-- The likely cause of an incident's change (promptcanary.Attribution:
-- cause and evidence) as JSON, from the drift report that opened or last
-- updated it; NULL for none, as every incident stored before it reads.
-- JSON escapes every byte text cannot hold.
ALTER TABLE incidents ADD COLUMN attribution TEXT;
