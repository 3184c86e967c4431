package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/storetest"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func countRows(t *testing.T, s *Store, table string) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	r := storetest.NewRun("kept-run", "s", "m", t0)
	if err := s.SaveRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	b, err := s.Promote(ctx, "kept-run", "note")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveDrift(ctx, storetest.NewDrift("kept-report", r, b.SnapshotID, t0, promptcanary.SeverityHigh, 2)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sums, err := s.Runs(ctx, store.RunFilter{})
	if err != nil || len(sums) != 1 || sums[0].RunID != "kept-run" || !sums[0].IsBaseline || sums[0].Verdict != "high" {
		t.Errorf("runs: got %+v, %v, want kept-run, a baseline, verdict high", sums, err)
	}
	latest, err := s.LatestBaseline(ctx, "s", "m")
	if err != nil || latest.SnapshotID != b.SnapshotID || latest.Note != "note" {
		t.Errorf("latest baseline: got %v, %v, want %s", latest, err, b.SnapshotID)
	}
	if ps, err := s.ProbeScores(ctx, "s", "m", 0); err != nil || len(ps) != 2 {
		t.Errorf("probe scores: got %d rows, %v, want 2", len(ps), err)
	}
}

func TestConcurrentWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	const writers, each = 2, 40
	stores := make([]*Store, writers)
	for i := range stores {
		s, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores[i] = s
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers*each*2)
	for w, s := range stores {
		wg.Go(func() {
			ctx := context.Background()
			for i := range each {
				r := storetest.NewRun(fmt.Sprintf("w%d-run-%02d", w, i), "s", fmt.Sprintf("m%d", w), t0.Add(time.Duration(i)*time.Second))
				if err := s.SaveRun(ctx, r); err != nil {
					errs <- fmt.Errorf("writer %d run %d: %w", w, i, err)
					continue
				}
				if i%10 == 0 {
					if _, err := s.Promote(ctx, r.RunID, ""); err != nil {
						errs <- fmt.Errorf("writer %d promote %d: %w", w, i, err)
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for w, s := range stores { // each sees every run, its own and the other's
		if got := countRows(t, s, "runs"); got != writers*each {
			t.Errorf("store %d: got %d runs, want %d", w, got, writers*each)
		}
		if got := countRows(t, s, "run_probes"); got != writers*each*2 {
			t.Errorf("store %d: got %d probe rows, want %d", w, got, writers*each*2)
		}
		if got := countRows(t, s, "baselines"); got != writers*each/10 {
			t.Errorf("store %d: got %d baselines, want %d", w, got, writers*each/10)
		}
	}
}

// assertNoRun fails when any row of run id is visible.
func assertNoRun(t *testing.T, s *Store, id string) {
	t.Helper()
	if _, err := s.Run(context.Background(), id); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("run: got %v, want ErrNotFound", err)
	}
	for _, table := range []string{"runs", "run_probes"} {
		var n int
		if err := s.db.QueryRow(`SELECT COUNT(*) FROM `+table+` WHERE run_id = ?`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s: got %d rows of the run, want 0", table, n)
		}
	}
}

func TestCancelMidSave(t *testing.T) {
	s := openTemp(t)
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	called := false
	s.beforeCommit = func(context.Context) { called = true; cancel() }
	err := s.SaveRun(ctx, storetest.NewRun("cancelled-run", "s", "m", t0))
	if !called {
		t.Fatal("the hook did not run: the test cancels nothing")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	s.beforeCommit = nil
	assertNoRun(t, s, "cancelled-run")
	// A run replaced by a cancelled save keeps its old version.
	old := storetest.NewRun("replaced-run", "s", "m", t0)
	if err := s.SaveRun(context.Background(), old); err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	s.beforeCommit = func(context.Context) { cancel2() }
	newer := storetest.NewRun("replaced-run", "other suite", "m", t0)
	newer.ProbeResults = newer.ProbeResults[:1]
	if err := s.SaveRun(ctx2, newer); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	s.beforeCommit = nil
	sums, err := s.Runs(context.Background(), store.RunFilter{})
	if err != nil || len(sums) != 1 || sums[0].Suite != "s" || sums[0].Results != 12 {
		t.Errorf("got %+v, %v, want the old run kept", sums, err)
	}
}

// crashEnv names the database the crash helper writes to.
const crashEnv = "PROMPTCANARY_SQLITE_CRASH_DB"

// TestCrashHelper runs only as the child process of TestCrashMidSave: it
// dies in the middle of saving a run.
func TestCrashHelper(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("helper process of TestCrashMidSave")
	}
	s, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	s.beforeCommit = func(context.Context) { os.Exit(3) }
	s.SaveRun(context.Background(), storetest.NewRun("crashed-run", "s", "m", t0))
	os.Exit(4)
}

func TestCrashMidSave(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SaveRun(context.Background(), storetest.NewRun("before-crash", "s", "m", t0)); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$")
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("helper: got %v, want exit status 3 from inside the transaction\n%s", err, out)
	}
	assertNoRun(t, s, "crashed-run")
	// The database is usable after the crash, by a new process too.
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if err := s2.SaveRun(context.Background(), storetest.NewRun("after-crash", "s", "m", t0.Add(time.Minute))); err != nil {
		t.Fatal(err)
	}
	sums, err := s.Runs(context.Background(), store.RunFilter{})
	if err != nil || len(sums) != 2 || sums[0].RunID != "after-crash" || sums[1].RunID != "before-crash" {
		t.Errorf("got %+v, %v, want after-crash and before-crash", sums, err)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want string
	}{
		{filepath.Join(dir, "what?.db"), "the path must not contain '?'"},
		{filepath.Join(blocker, "history.db"), "not a directory"},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			_, err := Open(tc.path)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), fmt.Sprintf("open store %q", tc.path)) {
				t.Errorf("got %v, want an error naming the path and %q", err, tc.want)
			}
		})
	}
}
