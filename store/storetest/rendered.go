package storetest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/sqlstore"
)

// PinRendered checks that the migrations of fsys (store.LoadMigrations)
// that are templates, and
// only those, render in the words sch to the text whose SHA-256 want
// holds under the migration's file name (NNNN_name.sql). Applied databases
// ran that text: an edit to a shared part of the schema or to a dialect's
// words that changes it must fail here, not give new databases a different
// migration (a change of schema needs a new migration).
func PinRendered(t *testing.T, sch sqlstore.Schema, fsys fs.FS, want map[string]string) {
	t.Helper()
	ms, err := store.LoadMigrations(fsys)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range ms {
		if !strings.Contains(m.SQL, "{{") {
			continue
		}
		name := fmt.Sprintf("%04d_%s.sql", m.Version, m.Name)
		sql, err := sqlstore.Render(sch, m)
		if err != nil {
			t.Fatalf("migration %s: %v", name, err)
		}
		sum := sha256.Sum256([]byte(sql))
		got[name] = hex.EncodeToString(sum[:])
		if w, ok := want[name]; ok && w != got[name] {
			t.Errorf("migration %s renders to a text applied databases did not run (sha256 %s, pinned %s):\n%s", name, got[name], w, sql)
		}
	}
	if g, w := slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)); !slices.Equal(g, w) {
		t.Errorf("the migrations made from templates are %q, the pinned ones %q: pin each (sha256 of its rendered text) %v", g, w, got)
	}
}
