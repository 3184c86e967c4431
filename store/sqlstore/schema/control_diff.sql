{{- /*
The control arm's difference in a check run's run-level record, shared by
the SQL backends: store/sqlite's 0009_control_diff.sql and
store/postgres's 0008_control_diff.sql run it, each in the words of its
dialect (sqlstore.Schema).
*/ -}}
-- A check run's difference from its control arm in the same slot (the
-- weighted mean of its pairs' pass rates less the control's,
-- drift.ArmDifference; promptcanary.SuiteRunRate.ControlDiff) and the
-- control's NAME/MODEL, as the run-level rule of a check with a control
-- measures them: NULL for a check without one and for every run stored
-- before. A monitor reads the last clean ones of its control back on
-- start as the control window's learned runs.
ALTER TABLE check_runs ADD COLUMN run_level_control_diff DOUBLE PRECISION;
ALTER TABLE check_runs ADD COLUMN run_level_control TEXT;
