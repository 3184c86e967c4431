package file_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/file"
	"github.com/promptcanary/promptcanary/store/storetest"
)

var t1 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// names lists the entries of dir, sorted.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	slices.Sort(out)
	return out
}

func TestSaveBaselineWritesOneFile(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	ctx := context.Background()
	r := storetest.NewRun("a1b2c3d4-run", "suite", "m", t1)
	info, err := s.SaveBaseline(ctx, storetest.NewBaseline("snap-1", r, t1, ""))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(t, dir), []string{filepath.Base(info.Path)}; !slices.Equal(got, want) {
		t.Errorf("got files %v, want only the baseline %v", got, want)
	}
	for _, id := range []string{"a1b2c3d4-run", "a1b2"} {
		got, err := s.Run(ctx, id)
		if err != nil || got.RunID != r.RunID || len(got.ProbeResults) != len(r.ProbeResults) {
			t.Errorf("run %q from the baseline file: got %v, %v", id, got, err)
		}
	}
	if b, err := s.Promote(ctx, "a1b2", "again"); err != nil || b.RunResult.RunID != r.RunID {
		t.Errorf("promote the run of a baseline file: got %v, %v", b, err)
	}
}

func TestBaselineNameBytes(t *testing.T) {
	suite := strings.Repeat("🐤🚀", 30) + " suite"
	model := "custom/" + strings.Repeat("🤖", 45)
	r := storetest.NewRun("run-emoji", suite, model, t1)
	b := storetest.NewBaseline("5eed0001-emoji", r, t1, "")
	name := file.BaselineName(b)
	if len(name) > 233 || !utf8.ValidString(name) || !strings.HasSuffix(name, "__20250301T120000_5eed0001.json") {
		t.Errorf("got name %q (%d bytes), want at most 233 bytes of valid UTF-8 with the time and id", name, len(name))
	}
	if !strings.HasPrefix(name, strings.Repeat("🐤🚀", 12)+"🐤__custom-"+strings.Repeat("🤖", 23)+"__") {
		t.Errorf("got name %q, want each part cut to 100 bytes on a character boundary", name)
	}
	// ASCII names stay as the original tool spells them: 40 characters.
	ascii := storetest.NewBaseline("0a1b2c3d-x", storetest.NewRun("r", strings.Repeat("s", 50), "openai/gpt-4o", t1), t1, "")
	if got, want := file.BaselineName(ascii), strings.Repeat("s", 40)+"__openai-gpt-4o__20250301T120000_0a1b2c3d.json"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// Spaces, in a suite name or an exec/ model id, become "_" (issue 19):
	// a name no shell command has to quote.
	for _, tc := range []struct{ suite, model, want string }{
		{"my suite", "exec/sh app.sh", "my_suite__exec-sh_app.sh__20250301T120000_0a1b2c3d.json"},
		{"s", "replay/prod\u00a0logs.jsonl", "s__replay-prod_logs.jsonl__20250301T120000_0a1b2c3d.json"},
	} {
		spaced := storetest.NewBaseline("0a1b2c3d-x", storetest.NewRun("r", tc.suite, tc.model, t1), t1, "")
		if got := file.BaselineName(spaced); got != tc.want {
			t.Errorf("%q on %q: got %q, want %q", tc.suite, tc.model, got, tc.want)
		}
	}
	s := mustOpen(t, t.TempDir())
	if _, err := s.SaveBaseline(context.Background(), b); err != nil {
		t.Fatalf("save a baseline of an emoji suite: %v", err)
	}
	if got, err := s.LatestBaseline(context.Background(), suite, model); err != nil || got.SnapshotID != b.SnapshotID {
		t.Errorf("latest: got %v, %v", got, err)
	}
}

func TestStatisticalBaselineFile(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	r := storetest.LargeRun("large-run", 200, 10, 30, 3)
	info, err := s.SaveBaseline(context.Background(), storetest.NewBaseline("large-snap", r, t1, ""))
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(info.Path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("baseline file of 200 prompts × 10 probes × 30 samples: %d bytes", st.Size())
	if st.Size() > 3<<20 {
		t.Errorf("got %d bytes, want at most 3 MiB", st.Size())
	}
	if got := names(t, dir); len(got) != 1 {
		t.Errorf("got files %v, want the baseline only", got)
	}
}

func TestOpenRemovesStaleTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * time.Hour)
	var stale []string
	for _, p := range []string{
		filepath.Join(dir, ".suite__m__20250301T120000_0a1b2c3d.json.tmp-3141592653"),
		filepath.Join(dir, "runs", ".run-1.json.tmp-27"),
		filepath.Join(dir, "drift", ".rep.json.tmp-1"),
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(`{"snapshot_id": "half`), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
		stale = append(stale, p)
	}
	fresh := filepath.Join(dir, ".other.json.tmp-5")
	if err := os.WriteFile(fresh, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	notOurs := filepath.Join(dir, "notes.tmp-1")
	if err := os.WriteFile(notOurs, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(notOurs, old, old)
	s := mustOpen(t, dir)
	got := slices.Clone(s.Removed())
	slices.Sort(got)
	slices.Sort(stale)
	if !slices.Equal(got, stale) {
		t.Errorf("removed %v, want %v", got, stale)
	}
	for _, p := range stale {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: still there (%v)", p, err)
		}
	}
	for _, p := range []string{fresh, notOurs} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: removed, want kept: %v", p, err)
		}
	}
}

// writeBaseline saves a baseline of suite and model created at created
// and returns its path.
func writeBaseline(t *testing.T, s *file.Store, id, suite, model string, created time.Time) string {
	t.Helper()
	r := storetest.NewRun("run-"+id, suite, model, created)
	info, err := s.SaveBaseline(context.Background(), storetest.NewBaseline(id, r, created, ""))
	if err != nil {
		t.Fatal(err)
	}
	return info.Path
}

func TestFindLatestBaselineNamesSkippedFiles(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	ctx := context.Background()
	good := writeBaseline(t, s, "0000aaaa-good", "suite", "m", t1)
	// Newer, truncated in its run: its first fields still say what it is.
	truncated := writeBaseline(t, s, "1111bbbb-trunc", "suite", "m", t1.Add(time.Hour))
	data, _ := os.ReadFile(truncated)
	if err := os.WriteFile(truncated, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	// Newest, garbage: only its name says what it is.
	garbage := filepath.Join(dir, "suite__m__20250301T150000_2222cccc.json")
	if err := os.WriteFile(garbage, []byte("\x00\x01 not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Corrupt files of another model or suite are not candidates.
	for _, name := range []string{"suite__m2__20250301T160000_3333dddd.json", "other__m__20250301T160000_4444eeee.json", "notes.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := s.FindLatestBaseline(ctx, "suite", "m")
	if err != nil {
		t.Fatal(err)
	}
	if l.Baseline == nil || l.Baseline.SnapshotID != "0000aaaa-good" || l.Path != good {
		t.Fatalf("got %+v, want the good baseline", l)
	}
	var paths []string
	for _, sk := range l.Skipped {
		paths = append(paths, sk.Path)
	}
	if want := []string{garbage, truncated}; !slices.Equal(paths, want) {
		t.Fatalf("skipped %v, want %v (newest first)", paths, want)
	}
	if l.Skipped[1].SnapshotID != "1111bbbb-trunc" || !strings.Contains(l.Skipped[1].Err.Error(), "truncated file") {
		t.Errorf("truncated: got %+v, want its id and a truncated-file error", l.Skipped[1])
	}
	w := l.Warnings()
	if want := `baseline file "` + truncated + `" is unreadable (truncated file: unexpected end of JSON input); using the older "` + good + `" (created 2025-03-01 12:00:00 UTC) instead`; len(w) != 2 || w[1] != want {
		t.Errorf("warnings: got %q, want the second %q", w, want)
	}
	if !strings.HasPrefix(w[0], `baseline file "`+garbage+`" is unreadable (line 1: invalid character`) {
		t.Errorf("warnings: got %q", w[0])
	}
	// LatestBaseline still returns the good one.
	if b, err := s.LatestBaseline(ctx, "suite", "m"); err != nil || b.SnapshotID != "0000aaaa-good" {
		t.Errorf("latest: got %v, %v", b, err)
	}
	// With the good one gone, the lookup fails and still names the files.
	os.Remove(good)
	l, err = s.FindLatestBaseline(ctx, "suite", "m")
	if !errors.Is(err, store.ErrNotFound) || l == nil || len(l.Skipped) != 2 || l.Baseline != nil {
		t.Fatalf("all unreadable: got %+v, %v, want ErrNotFound and two skipped", l, err)
	}
	if want := "no other baseline instead"; !strings.HasSuffix(l.Warnings()[0], want) {
		t.Errorf("got %q, want it to end with %q", l.Warnings()[0], want)
	}
}

// TestFinishPendingAfterCrash plays the crashes between the steps of a
// run saved with --save-baseline: the history records the run with a
// pending mark, the baseline file is written, the history records the
// baseline. Whatever step a crash stopped at, FinishPending leaves one
// baseline file and one recorded baseline, the ones asked for.
func TestFinishPendingAfterCrash(t *testing.T) {
	for _, stop := range []string{"after the run", "after the file"} {
		t.Run(stop, func(t *testing.T) {
			ctx := context.Background()
			root := t.TempDir()
			hist := mustOpen(t, filepath.Join(root, "history"))
			baseDir := filepath.Join(root, "baselines")
			r := storetest.NewRun("crash-run", "suite", "m", t1)
			b := store.NewBaseline(r, "", t1.Add(time.Minute))
			if err := hist.SaveRunPending(ctx, r, store.Pending(b, baseDir)); err != nil {
				t.Fatal(err)
			}
			if stop == "after the file" {
				fs := mustOpen(t, baseDir)
				if _, err := fs.SaveBaseline(ctx, b); err != nil {
					t.Fatal(err)
				}
			}
			if sums, _ := hist.Runs(ctx, store.RunFilter{}); len(sums) != 1 || !sums[0].BaselinePending {
				t.Fatalf("before repair: got %+v, want the run marked pending", sums)
			}
			done, err := file.FinishPending(ctx, hist)
			if err != nil {
				t.Fatal(err)
			}
			wantPath := filepath.Join(baseDir, file.BaselineName(b))
			if len(done) != 1 || done[0].Err != nil || done[0].Path != wantPath || done[0].Pending.SnapshotID != b.SnapshotID {
				t.Fatalf("got %+v, want the baseline finished at %s", done, wantPath)
			}
			if got := names(t, baseDir); !slices.Equal(got, []string{filepath.Base(wantPath)}) {
				t.Errorf("baseline files: got %v, want one", got)
			}
			infos, err := hist.Baselines(ctx, "")
			if err != nil || len(infos) != 1 || infos[0].SnapshotID != b.SnapshotID {
				t.Errorf("recorded baselines: got %+v, %v, want %s", infos, err, b.SnapshotID)
			}
			if sums, _ := hist.Runs(ctx, store.RunFilter{}); len(sums) != 1 || sums[0].BaselinePending || !sums[0].IsBaseline {
				t.Errorf("after repair: got %+v, want a baseline run, not pending", sums)
			}
			if done, err := file.FinishPending(ctx, hist); err != nil || len(done) != 0 {
				t.Errorf("second repair: got %+v, %v, want nothing to do", done, err)
			}
		})
	}
}

func TestFinishPendingKeepsMarkOnFailure(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	hist := mustOpen(t, filepath.Join(root, "history"))
	blocker := filepath.Join(root, "not-a-dir")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := storetest.NewRun("stuck-run", "suite", "m", t1)
	if err := hist.SaveRunPending(ctx, r, store.Pending(store.NewBaseline(r, "", t1), blocker)); err != nil {
		t.Fatal(err)
	}
	done, err := file.FinishPending(ctx, hist)
	if err != nil || len(done) != 1 || done[0].Err == nil {
		t.Fatalf("got %+v, %v, want the failure reported", done, err)
	}
	if p, _ := hist.PendingBaselines(ctx); len(p) != 1 {
		t.Errorf("got %d pending, want the mark kept for the next try", len(p))
	}
}
