package sqlstore

import "database/sql"

// The query builders, for the query-plan tests of plan_test.go, which
// run them on a SQLite database opened by store/sqlite.
var (
	RunsQuery          = (*DB).runsQuery
	ProbeScoresQuery   = (*DB).probeScoresQuery
	CheckRunsQuery     = (*DB).checkRunsQuery
	IncidentsQuery     = (*DB).incidentsQuery
	NotificationsQuery = (*DB).notificationsQuery
	EventsQuery        = eventsQuery
)

// SQL returns the database under s.
func SQL(s *DB) *sql.DB { return s.db }
