package web

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/store/sqlite"
)

// BenchmarkPages renders every page from a real SQLite store holding the
// history of a monitor that has run for over a year: 10,000 scheduled runs
// (each with its stored run) of the check viewed, as many of a second
// provider, 300 past incidents. Pages read summary rows, so their cost
// does not grow with the history. The time is server time: the handler
// called directly, no network.
//
//	go test -run '^$' -bench BenchmarkPages -benchtime 50x ./monitor/web/
func BenchmarkPages(b *testing.B) {
	if testing.Short() {
		b.Skip("fills a store with 20,000 runs")
	}
	start := time.Now()
	s, err := sqlite.Open(filepath.Join(b.TempDir(), "history.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	f := populate(b, s, s, fixtureOptions{hourly: 10000, reports: 7, samples: 3, pastIncidents: 300})
	b.Logf("filled the store with %d check runs and %d runs in %v", f.checkRuns, f.runs, time.Since(start).Round(time.Second))
	src := &fakeSource{statuses: f.statuses, hist: s, state: s, now: func() time.Time { return fixtureNow }}
	h := New(Options{Source: src, AdminToken: testToken, ActionsAllowed: true, Now: func() time.Time { return fixtureNow }})
	pages := []struct{ name, path string }{
		{"overview", "/"},
		{"check", CheckPath(f.check, f.provider)},
		{"run-drift", RunPath(f.driftRun)},
		{"run-results", RunPath(f.cleanRun)},
		{"incidents", "/incidents"},
		{"incident", IncidentPath(f.driftIncident)},
		{"api-checks", "/api/v1/checks"},
		{"api-runs", "/api/v1/runs?check=checkout-prod&provider=openai%2Fgpt-4o-mini"},
		{"api-incidents", "/api/v1/incidents?open=1"},
		{"api-incident", "/api/v1/incidents/" + f.driftIncident},
	}
	for _, p := range pages {
		b.Run(p.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, p.path, nil)
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("GET %s: %d\n%.300s", p.path, rec.Code, rec.Body)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/page")
		})
	}
}
