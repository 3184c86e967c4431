package sqlstore_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/sqlite"
	"github.com/promptcanary/promptcanary/store/sqlstore"
)

// openSQLite returns the DB of a new SQLite store, whose query plans the
// tests read.
func openSQLite(t *testing.T) *sqlstore.DB {
	t.Helper()
	s, err := sqlite.Open(filepath.Join(t.TempDir(), ".promptcanary", "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.DB
}

func TestQueriesUseIndexes(t *testing.T) {
	s := openSQLite(t)
	q1, a1 := sqlstore.RunsQuery(s, store.RunFilter{Suite: "s", Model: "m", Limit: 20})
	q2, a2 := sqlstore.RunsQuery(s, store.RunFilter{Suite: "s", Limit: 20})
	q3, a3 := sqlstore.RunsQuery(s, store.RunFilter{})
	q4, a4 := sqlstore.ProbeScoresQuery(s, "s", "m", 20)
	tests := []struct {
		name  string
		query string
		args  []any
		want  []string
	}{
		{"runs by suite and model", q1, a1, []string{"INDEX runs_suite_model_started", "INDEX baselines_run", "INDEX drift_current_run"}},
		{"runs by suite", q2, a2, []string{"INDEX runs_suite_started"}},
		{"all runs", q3, a3, []string{"INDEX runs_started"}},
		{"probe scores", q4, a4, []string{"INDEX runs_suite_model_started", "SEARCH p USING PRIMARY KEY (run_id=?)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan := queryPlan(t, s, tc.query, tc.args)
			text := strings.Join(plan, "\n")
			t.Logf("plan:\n%s", text)
			for _, want := range tc.want {
				if !strings.Contains(text, want) {
					t.Errorf("plan does not use %s:\n%s", want, text)
				}
			}
			for _, line := range plan {
				if line == "SCAN r" || line == "SCAN runs" || strings.Contains(line, "TEMP B-TREE FOR ORDER BY") {
					t.Errorf("plan scans or sorts all runs:\n%s", text)
				}
			}
		})
	}
}

func TestMonitorQueriesUseIndexes(t *testing.T) {
	s := openSQLite(t)
	q1, a1 := sqlstore.CheckRunsQuery(s, "c", "p", 200)
	q2, a2 := sqlstore.CheckRunsQuery(s, "", "", 200)
	q3, a3 := sqlstore.IncidentsQuery(s, store.IncidentFilter{Check: "c", Limit: 50})
	q4, a4 := sqlstore.IncidentsQuery(s, store.IncidentFilter{OpenOnly: true})
	q5, a5 := sqlstore.IncidentsQuery(s, store.IncidentFilter{Limit: 50})
	q6, a6 := sqlstore.NotificationsQuery(s, "inc-1", 20)
	q7, a7 := sqlstore.NotificationsQuery(s, "", 20)
	tests := []struct {
		name  string
		query string
		args  []any
		want  string
		sorts bool
	}{
		{"check runs of a check", q1, a1, "INDEX check_runs_check_provider_slot", false},
		{"all check runs", q2, a2, "INDEX check_runs_slot", false},
		{"incidents of a check", q3, a3, "INDEX incidents_check_opened", false},
		// Open incidents are few: finding them by resolved_at and
		// sorting them is the better plan.
		{"open incidents", q4, a4, "INDEX incidents_resolved (resolved_at=?)", true},
		{"all incidents", q5, a5, "INDEX incidents_opened", false},
		{"notifications of an incident", q6, a6, "INDEX notifications_incident", false},
		{"all notifications", q7, a7, "INDEX notifications_at", false},
		{"events", sqlstore.EventsQuery, []any{"inc-1"}, "INDEX incident_events_incident", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Join(queryPlan(t, s, tc.query, tc.args), "\n")
			if !strings.Contains(text, tc.want) {
				t.Errorf("plan does not use %s:\n%s", tc.want, text)
			}
			if !tc.sorts && strings.Contains(text, "TEMP B-TREE") {
				t.Errorf("plan sorts:\n%s", text)
			}
		})
	}
}

// queryPlan returns the lines of SQLite's plan of query.
func queryPlan(t *testing.T, s *sqlstore.DB, query string, args []any) []string {
	t.Helper()
	rows, err := sqlstore.SQL(s).Query("EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan
}
