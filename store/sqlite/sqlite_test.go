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
