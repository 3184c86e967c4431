package sqlite

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/storetest"
)

func openTemp(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), ".promptcanary", "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return openTemp(t) })
}

func TestDriftBodies(t *testing.T) {
	storetest.RunDriftBodies(t, storetest.DriftBodies{
		Open: func(t *testing.T) store.Store { return openTemp(t) },
		Body: func(t *testing.T, s store.Store, id string) []byte {
			var body []byte
			if err := s.(*Store).db.QueryRow(`SELECT body FROM drift_reports WHERE report_id = ?`, id).Scan(&body); err != nil {
				t.Fatal(err)
			}
			return body
		},
		SetBody: func(t *testing.T, s store.Store, id string, body []byte) {
			if _, err := s.(*Store).db.Exec(`UPDATE drift_reports SET body = ? WHERE report_id = ?`, body, id); err != nil {
				t.Fatal(err)
			}
		},
	})
}

func TestPragmas(t *testing.T) {
	s := openTemp(t)
	defer s.Close()
	want := map[string]string{"journal_mode": "wal", "foreign_keys": "1", "busy_timeout": "10000", "synchronous": "1"}
	for pragma, value := range want {
		var got string
		if err := s.db.QueryRow("PRAGMA " + pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != value {
			t.Errorf("%s: got %s, want %s", pragma, got, value)
		}
	}
}

// TestUnmeasuredRowsOfOlderVersions: a run without results that an older
// version stored with score 1 and pass rate 1 (and a compare of it that
// said none) reads as unmeasured: NaN, NaN, verdict unmeasured.
func TestUnmeasuredRowsOfOlderVersions(t *testing.T) {
	s := openTemp(t)
	defer s.Close()
	ctx := context.Background()
	r := storetest.NewRun("old-down", "s", "m", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	r.ProbeResults, r.LLMResponses = nil, nil
	if err := s.SaveRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	d := storetest.NewDrift("old-report", r, "base", r.StartedAt.Add(time.Minute), promptcanary.SeverityNone, 0)
	if err := s.SaveDrift(ctx, d); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`UPDATE runs SET score = 1, pass_rate = 1 WHERE run_id = 'old-down'`); err != nil {
		t.Fatal(err)
	}
	got, err := s.Runs(ctx, store.RunFilter{})
	if err != nil || len(got) != 1 {
		t.Fatalf("runs: %v, %v", got, err)
	}
	if g := got[0]; !math.IsNaN(g.Score) || !math.IsNaN(g.PassRate) || g.Verdict != store.VerdictUnmeasured {
		t.Errorf("got score %v, pass rate %v, verdict %q; want NaN, NaN, %q", g.Score, g.PassRate, g.Verdict, store.VerdictUnmeasured)
	}
}

func TestEmbeddedMigrations(t *testing.T) {
	ms, err := store.LoadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, fmt.Sprintf("%04d_%s", m.Version, m.Name))
	}
	// Applied databases have these: never renumber them.
	want := []string{"0001_init", "0002_pending_baselines", "0003_monitor", "0004_fleet", "0005_answers", "0006_attribution", "0007_gates", "0008_run_level", "0009_control_diff"}
	if !slices.Equal(names, want) || !strings.Contains(ms[0].SQL, "CREATE TABLE runs") {
		t.Errorf("got migrations %v, want %v, the first creating runs", names, want)
	}
}
