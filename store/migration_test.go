package store_test

import (
	"testing"
	"testing/fstest"

	"github.com/promptcanary/promptcanary/store"
)

// TestLoadMigrations: every backend's migrations are numbered 1, 2, 3 …
// without gaps.
func TestLoadMigrations(t *testing.T) {
	sql := &fstest.MapFile{Data: []byte("CREATE TABLE t (x INTEGER);")}
	tests := []struct {
		name    string
		files   fstest.MapFS
		want    []int
		wantErr string
	}{
		{"ordered", fstest.MapFS{"migrations/0002_more.sql": sql, "migrations/0001_init.sql": sql}, []int{1, 2}, ""},
		{"gap", fstest.MapFS{"migrations/0001_init.sql": sql, "migrations/0003_skip.sql": sql}, nil,
			`migration "0003_skip.sql": got version 3, want 2`},
		{"not starting at 1", fstest.MapFS{"migrations/0002_init.sql": sql}, nil, `migration "0002_init.sql": got version 2, want 1`},
		{"bad name", fstest.MapFS{"migrations/1_init.sql": sql}, nil, `migration "1_init.sql": name must be NNNN_name.sql`},
		{"none", fstest.MapFS{}, nil, "no migrations"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := store.LoadMigrations(tc.files)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Errorf("got %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, m := range ms {
				got = append(got, m.Version)
			}
			if len(got) != len(tc.want) || got[0] != tc.want[0] || got[len(got)-1] != tc.want[len(tc.want)-1] {
				t.Errorf("got versions %v, want %v", got, tc.want)
			}
		})
	}
}
