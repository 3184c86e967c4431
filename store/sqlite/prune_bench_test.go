package sqlite

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/storetest"
)

// monitorHistory writes to path the history an hourly monitor of checks
// checks leaves after days days, ending at end: per check and hour a run
// of 10 prompts × 5 probes × 5 samples, its drift report and its check
// run, a baseline per check taken on the first day, and an incident a
// week, resolved a day later.
func monitorHistory(tb testing.TB, path string, checks, days int, end time.Time) {
	tb.Helper()
	s, err := Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	must := func(err error) {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
	}
	// A few distinct runs, saved under every hour's id and time: the body
	// sizes are those of real runs, the generation is cheap.
	var shapes []*promptcanary.Run
	for i := range 6 {
		shapes = append(shapes, storetest.LargeRun("shape", 10, 5, 5, uint64(i)))
	}
	start := end.Add(-time.Duration(days) * 24 * time.Hour)
	for c := range checks {
		check := fmt.Sprintf("check-%02d", c)
		for h := range days * 24 {
			at := start.Add(time.Duration(h) * time.Hour)
			r := *shapes[(c+h)%len(shapes)]
			r.RunID = fmt.Sprintf("%s-run-%05d", check, h)
			r.SuiteName = check
			r.StartedAt, r.FinishedAt = at, at.Add(40*time.Second)
			must(s.SaveRun(ctx, &r))
			if h == 0 {
				_, err := s.SaveBaseline(ctx, storetest.NewBaseline(check+"-baseline", &r, at, "first day"))
				must(err)
			}
			rep := fmt.Sprintf("%s-report-%05d", check, h)
			must(s.SaveDrift(ctx, storetest.NewDrift(rep, &r, check+"-baseline", at.Add(time.Minute), promptcanary.SeverityNone, 0)))
			cr := storetest.NewCheckRun(fmt.Sprintf("%s-cr-%05d", check, h), check, "openai/gpt-4o-mini", at)
			cr.RunID, cr.ReportID, cr.ConfirmRunID, cr.ConfirmReportID = r.RunID, rep, "", ""
			must(s.SaveCheckRun(ctx, cr))
			if h%(7*24) == 0 {
				inc := storetest.NewIncident(fmt.Sprintf("%s-inc-%05d", check, h), fmt.Sprintf("%s-fp-%05d", check, h), at)
				inc.RunID, inc.ReportID, inc.ResolvedAt = r.RunID, rep, at.Add(24*time.Hour)
				must(s.SaveIncident(ctx, inc))
			}
		}
	}
	if _, err := s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		tb.Fatal(err)
	}
}

func copyFile(tb testing.TB, from, to string) {
	tb.Helper()
	in, err := os.Open(from)
	if err != nil {
		tb.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		tb.Fatal(err)
	}
	if err := out.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkPrune prunes, at 90 days, the history of an hourly monitor of
// two checks over 180 days (8,640 runs with their reports and check
// runs), and reports the database file's size before, the space the prune
// freed inside it and the file's size after Vacuum.
func BenchmarkPrune(b *testing.B) {
	dir := b.TempDir()
	pristine := filepath.Join(dir, "pristine.db")
	end := time.Now()
	monitorHistory(b, pristine, 2, 180, end)
	ctx := context.Background()
	var st store.PruneStats
	var before, after int64
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		path := filepath.Join(dir, fmt.Sprintf("copy-%d.db", i))
		copyFile(b, pristine, path)
		s, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		st, err = s.Prune(ctx, end.Add(-90*24*time.Hour), false)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if before, after, err = s.Vacuum(ctx); err != nil {
			b.Fatal(err)
		}
		s.Close()
		os.Remove(path)
		b.StartTimer()
	}
	b.ReportMetric(float64(st.Runs), "runs-deleted")
	b.ReportMetric(float64(st.Drifts+st.CheckRuns+st.Incidents), "others-deleted")
	b.ReportMetric(float64(before)/1e6, "MB-before")
	b.ReportMetric(float64(st.FreeBytes)/1e6, "MB-freed")
	b.ReportMetric(float64(after)/1e6, "MB-vacuumed")
}
