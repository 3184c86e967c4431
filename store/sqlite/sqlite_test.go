package sqlite

import (
	"path/filepath"
	"testing"

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

func TestPragmas(t *testing.T) {
	s := openTemp(t)
	defer s.Close()
	tests := []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"foreign_keys", "1"},
		{"busy_timeout", "10000"},
		{"synchronous", "1"},
	}
	for _, tc := range tests {
		t.Run(tc.pragma, func(t *testing.T) {
			var got string
			if err := s.db.QueryRow("PRAGMA " + tc.pragma).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
