{{- /*
The run-level rule's record of a check run, shared by the SQL backends:
store/sqlite's 0008_run_level.sql and store/postgres's 0007_run_level.sql
run it, each in the words of its dialect (sqlstore.Schema).
*/ -}}
-- A check run's suite rate (the mean of its pairs' pass rates) and the
-- binomial variance of that rate, as the run-level rule measures them
-- (monitor.yaml run_level: true; promptcanary.CheckRun.RunLevel): NULL for
-- a check without the rule and for every run stored before. A monitor
-- reads the last clean ones back on start as the rule's reference runs.
ALTER TABLE check_runs ADD COLUMN run_level_rate DOUBLE PRECISION;
ALTER TABLE check_runs ADD COLUMN run_level_var DOUBLE PRECISION;
