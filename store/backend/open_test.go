package backend

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/promptcanary/promptcanary/store/postgres"
	"github.com/promptcanary/promptcanary/store/sqlite"
)

func TestOpenSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".promptcanary", "history.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, ok := s.(*sqlite.Store); !ok {
		t.Errorf("got %T, want *sqlite.Store", s)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database file: %v", err)
	}
}

// TestOpenPostgres opens the test database when there is one
// (scripts/postgres.sh), in a schema of its own dropped at the end.
func TestOpenPostgres(t *testing.T) {
	dsn := os.Getenv("PROMPTCANARY_TEST_POSTGRES")
	if dsn == "" {
		t.Skip(`PostgreSQL not available: run eval "$(scripts/postgres.sh start)" to set PROMPTCANARY_TEST_POSTGRES`)
	}
	ctx := context.Background()
	schema := fmt.Sprintf("pcbackend_%d", os.Getpid())
	exec := func(sql string) {
		t.Helper()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	exec("CREATE SCHEMA " + schema)
	t.Cleanup(func() { exec("DROP SCHEMA " + schema + " CASCADE") })
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	s, err := Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, ok := s.(*postgres.Store); !ok {
		t.Errorf("got %T, want *postgres.Store", s)
	}
	if got, err := s.CheckRuns(ctx, "", "", 1); err != nil || len(got) != 0 {
		t.Errorf("check runs: got %d, %v, want an empty store", len(got), err)
	}
}

func TestOpenErrors(t *testing.T) {
	tests := []struct{ target, want, not string }{
		{"mysql://u:s3cret@db/h", `open store "mysql://…": unknown scheme "mysql": want postgres://… or the path of a SQLite database`, "s3cret"},
		{"postgre://u:s3cret@db/h", `open store "postgre://…": unknown scheme "postgre" (did you mean postgres?): want postgres://… or the path of a SQLite database`, "s3cret"},
		{"postgres://u:s3cret@127.0.0.1:1/h?connect_timeout=2", `open store "postgres://u:xxxxx@127.0.0.1:1/h?connect_timeout=2": failed to connect`, "s3cret"},
	}
	for _, tc := range tests {
		t.Run(tc.target, func(t *testing.T) {
			_, err := Open(context.Background(), tc.target)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), tc.not) {
				t.Errorf("the error shows %q: %v", tc.not, err)
			}
		})
	}
}

func TestIsURLAndDisplay(t *testing.T) {
	tests := []struct {
		target  string
		url     bool
		display string
	}{
		{".promptcanary/history.db", false, ".promptcanary/history.db"},
		{"/srv/canary/history.db", false, "/srv/canary/history.db"},
		{"./odd://name.db", false, "./odd://name.db"},
		{"postgres://canary:s3cret@db/history", true, "postgres://canary:xxxxx@db/history"},
		{"postgresql://db/history?search_path=canary", true, "postgresql://db/history?search_path=canary"},
		{"mysql://u:s3cret@db/h", true, "mysql://…"},
	}
	for _, tc := range tests {
		t.Run(tc.target, func(t *testing.T) {
			if got := IsURL(tc.target); got != tc.url {
				t.Errorf("IsURL: got %v, want %v", got, tc.url)
			}
			if got := Display(tc.target); got != tc.display {
				t.Errorf("Display: got %q, want %q", got, tc.display)
			}
		})
	}
}
