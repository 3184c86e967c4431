package cli

import (
	"context"
	"errors"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/postgres"
	"github.com/promptcanary/promptcanary/store/postgres/pgtest"
	"github.com/promptcanary/promptcanary/store/sqlite"
	"github.com/promptcanary/promptcanary/store/storetest"
)

// mainOut runs the command line and fails unless it exits with want; it
// returns stdout and stderr.
func mainOut(t *testing.T, want int, args ...string) (string, string) {
	t.Helper()
	var out, errOut strings.Builder
	if code := Main(context.Background(), args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errOut}); code != want {
		t.Fatalf("promptcanary %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out.String(), errOut.String())
	}
	return out.String(), errOut.String()
}

// historyFile writes storetest.SaveHistory into a new SQLite file and
// returns its path.
func historyFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "history.db")
	s, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	storetest.SaveHistory(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func openLite(t *testing.T, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// verifiedRow matches a row of store copy's table whose kind is the same
// on both sides.
var verifiedRow = regexp.MustCompile(`(?m)^([a-z ]+?)  +(\d+) +(\d+) +(\d+) +0 +([0-9a-f]{12}) +([0-9a-f]{12}) +ok$`)

// TestStoreCopyToPostgres copies a SQLite history into PostgreSQL and
// back with the command line: both copies verify, the history read back
// from the second is the original, and the DSN's password is never
// printed.
func TestStoreCopyToPostgres(t *testing.T) {
	u, err := url.Parse(pgtest.FreshDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	const password = "s3cret-pass-word" // the test server trusts loopback: any password is accepted
	u.User = url.UserPassword(u.User.Username(), password)
	dsn := u.String()
	from := historyFile(t)
	back := filepath.Join(t.TempDir(), "back.db")

	for _, step := range [][2]string{{from, dsn}, {dsn, back}} {
		out, errOut := mainOut(t, 0, "store", "copy", step[0], step[1])
		if strings.Contains(out+errOut, password) {
			t.Fatalf("store copy printed the password:\n%s\n%s", out, errOut)
		}
		rows := verifiedRow.FindAllStringSubmatch(out, -1)
		if len(rows) != 8 {
			t.Errorf("store copy %s: got %d verified rows, want 8:\n%s", step, len(rows), out)
		}
		for _, r := range rows {
			if r[2] != r[3] || r[3] != r[4] || r[5] != r[6] {
				t.Errorf("row %q: copied, source and target counts and checksums differ", r[0])
			}
		}
		if !strings.Contains(out, "verified: ") || !strings.Contains(out+errOut, postgres.Redact(dsn)) {
			t.Errorf("store copy %s: output lacks the verdict or the redacted DSN:\n%s\n%s", step, out, errOut)
		}
	}
	storetest.AssertSameHistory(t, openLite(t, from), openLite(t, back))

	// Prune on PostgreSQL: a dry run reports what the store would delete,
	// and --vacuum is refused there.
	pg, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	want, err := pg.Prune(context.Background(), time.Now().Add(-90*24*time.Hour), true)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := mainOut(t, 0, "--store", dsn, "store", "prune", "--older-than", "90d", "--dry-run")
	runs := regexp.MustCompile(`(?m)^runs +(\d+) +(\d+)$`).FindStringSubmatch(out)
	if runs == nil || runs[1] != strconv.Itoa(want.Runs) || runs[2] != strconv.Itoa(want.KeptRuns) || want.Runs == 0 {
		t.Errorf("prune --dry-run on PostgreSQL: got %q, want runs %d deleted and %d kept:\n%s", runs, want.Runs, want.KeptRuns, out)
	}
	_, errOut := mainOut(t, 2, "--store", dsn, "store", "prune", "--older-than", "90d", "--vacuum")
	if !strings.Contains(errOut, "--vacuum works on SQLite stores only") {
		t.Errorf("prune --vacuum on PostgreSQL: %s", errOut)
	}
}

// TestStorePruneSQLite prunes a SQLite history whose runs are large and
// old: the dry run announces what the prune deletes, the baseline and its
// run stay, the freed space is reported, and --vacuum shrinks the file.
func TestStorePruneSQLite(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	s := openLite(t, path)
	now := time.Now()
	for i, id := range []string{"old-0", "old-1", "old-2", "old-base", "new"} {
		r := storetest.LargeRun(id, 20, 5, 10, uint64(i))
		r.StartedAt = now.Add(-200 * 24 * time.Hour)
		if id == "new" {
			r.StartedAt = now.Add(-time.Hour)
		}
		r.FinishedAt = r.StartedAt.Add(time.Minute)
		if err := s.SaveRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Promote(ctx, "old-base", "kept"); err != nil {
		t.Fatal(err)
	}

	dry, _ := mainOut(t, 0, "--store", path, "store", "prune", "--older-than", "90d", "--dry-run")
	real, _ := mainOut(t, 0, "--store", path, "store", "prune", "--older-than", "90d")
	for _, out := range []string{dry, real} {
		if !regexp.MustCompile(`(?m)^runs +3 +1$`).MatchString(out) {
			t.Errorf("got no row 'runs 3 1' (3 deleted, the baseline's kept):\n%s", out)
		}
	}
	if !strings.Contains(dry, "WOULD DELETE") || !strings.Contains(dry, "run again without --dry-run to delete 3 records") {
		t.Errorf("dry run:\n%s", dry)
	}
	if !regexp.MustCompile(`\d+\.\d (kB|MB) inside the database file is free for new runs`).MatchString(real) {
		t.Errorf("prune: no free space reported:\n%s", real)
	}
	runs, err := s.Runs(ctx, store.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].RunID != "new" || runs[1].RunID != "old-base" {
		t.Errorf("runs left: got %v, want new and old-base", runs)
	}

	out, _ := mainOut(t, 0, "--store", path, "store", "prune", "--older-than", "90d", "--vacuum")
	m := regexp.MustCompile(`vacuumed: the database file went from ([\d.]+) (kB|MB) to ([\d.]+) (kB|MB)`).FindStringSubmatch(out)
	if m == nil || size(m[1], m[2]) <= size(m[3], m[4]) {
		t.Errorf("--vacuum did not shrink the file:\n%s", out)
	}
}

// size reads a size printed by formatBytes, in kB.
func size(n, unit string) float64 {
	f, _ := strconv.ParseFloat(n, 64)
	if unit == "MB" {
		return f * 1000
	}
	return f
}

// TestStoreCopyMismatch: a verification that finds differences exits 5
// and names them.
func TestStoreCopyMismatch(t *testing.T) {
	checks := []store.KindCheck{
		{Kind: store.KindRuns, Source: 9, Target: 8, Missing: 2, Differ: 1, Examples: []string{"missing r1", "missing r2", "differs r3"},
			SourceSum: strings.Repeat("a", 64), TargetSum: strings.Repeat("b", 64)},
		{Kind: store.KindBaselines, Source: 1, Target: 1, SourceSum: strings.Repeat("c", 64), TargetSum: strings.Repeat("c", 64)},
	}
	err := verdict(checks, "a.db", "b.db")
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != ExitOutput {
		t.Fatalf("got %v, want an exit %d", err, ExitOutput)
	}
	want := "the copy in b.db does not match a.db:\nruns: 2 missing, 1 different (missing r1, missing r2, differs r3)"
	if err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
	if err := verdict(checks[1:], "a.db", "b.db"); err != nil {
		t.Errorf("matching checks: got %v", err)
	}
}
