package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/store/postgres/pgtest"
)

// TestCommandsOnPostgres: run, compare, history and serve --once work on a
// PostgreSQL store given as --store postgres://… or store: in monitor.yaml,
// and no command prints the DSN's password.
func TestCommandsOnPostgres(t *testing.T) {
	dsn := pgtest.FreshDSN(t)
	dir := t.TempDir()
	main := func(want int, args ...string) string {
		t.Helper()
		var out strings.Builder
		if code := Main(context.Background(), args, Stdio{Out: &out, Err: &out}); code != want {
			t.Fatalf("promptcanary %s: exit %d, want %d\n%s", strings.Join(args, " "), code, want, out.String())
		}
		return out.String()
	}
	main(0, "init", filepath.Join(dir, "s"))
	suite := filepath.Join(dir, "s", "canary.yaml")
	main(0, "run", "-c", suite, "--store", dsn, "--save-baseline", "--no-progress")
	out := main(1, "compare", "-c", suite, "--store", dsn, "-p", "sim/drifted", "--baseline-provider", "sim/stable", "--fail-on-drift", "--no-progress")
	if !strings.Contains(out, "Drift detected") {
		t.Errorf("compare on PostgreSQL: no drift reported:\n%s", out)
	}
	out = main(0, "history", "-c", suite, "--store", dsn)
	if !strings.Contains(out, "sim/stable") || !strings.Contains(out, "sim/drifted") {
		t.Errorf("history on PostgreSQL lacks the two runs:\n%s", out)
	}

	// The monitor on the same store, named in monitor.yaml.
	mon := filepath.Join(dir, "s", "monitor.yaml")
	if err := os.WriteFile(mon, []byte("store: \"${PC_DSN}\"\nchecks:\n  - {name: canary, suite: canary.yaml, provider: sim/stable}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PC_DSN", dsn)
	out = main(0, "serve", "-c", mon, "--once")
	if !strings.Contains(out, "clean") {
		t.Errorf("serve --once on PostgreSQL:\n%s", out)
	}

	// A server that does not answer: exit 2, and the password is not printed.
	out = main(2, "history", "--store", "postgres://u:hunter2secret@127.0.0.1:1/db?connect_timeout=2")
	if strings.Contains(out, "hunter2secret") {
		t.Errorf("the DSN's password is printed:\n%s", out)
	}
}
