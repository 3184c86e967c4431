package storetest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/sqlstore"
)

// RenderedPins is the file, relative to a backend's package directory,
// that pins the SHA-256 of each migration the backend renders from a
// template, one line per migration in sha256sum's format
// ("<hex sha256>  NNNN_name.sql"); lines starting with # are comments.
const RenderedPins = "testdata/rendered-migrations.sha256"

// PinRendered checks that the migrations of fsys (store.LoadMigrations)
// that are templates, and only those, render in the words sch to the text
// whose SHA-256 the file RenderedPins holds under the migration's file name
// (NNNN_name.sql). Applied databases ran that text: an edit to a shared
// part of the schema or to a dialect's words that changes it must fail
// here, not give new databases a different migration (a change of schema
// needs a new migration).
//
// With update set (the test's -update flag), PinRendered adds the pins of
// template migrations the file does not hold yet and drops those of
// migrations that are no longer templates; it never rewrites a pin that
// differs.
func PinRendered(t *testing.T, sch sqlstore.Schema, fsys fs.FS, update bool) {
	t.Helper()
	want, err := readPins(RenderedPins)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !update:
		t.Fatalf("%v\nhint: run `go test -run %s -update` in this package to write it", err, t.Name())
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		t.Fatal(err)
	}
	got := renderedSums(t, sch, fsys)
	for _, name := range slices.Sorted(maps.Keys(got)) {
		if w, ok := want[name]; ok && w.sum != got[name].sum {
			update = false // a differing pin is never rewritten
			t.Errorf("migration %s renders to a text applied databases did not run (sha256 %s, pinned %s in %s:%d):\n%s\n"+
				"hint: keep the text; a change of schema needs a new migration",
				name, got[name].sum, w.sum, RenderedPins, w.line, got[name].sql)
		}
	}
	if g, w := slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)); !slices.Equal(g, w) {
		if update {
			writePins(t, got)
			return
		}
		t.Errorf("the migrations made from templates are %q, the ones pinned in %s %q\n"+
			"hint: run `go test -run %s -update` in this package to pin new ones and unpin the rest", g, RenderedPins, w, t.Name())
	}
}

// pin is one migration's rendered text and its SHA-256, or a pinned
// SHA-256 and the line of RenderedPins that holds it.
type pin struct {
	sum, sql string
	line     int
}

// renderedSums renders each template migration of fsys in the words sch.
func renderedSums(t *testing.T, sch sqlstore.Schema, fsys fs.FS) map[string]pin {
	t.Helper()
	ms, err := store.LoadMigrations(fsys)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]pin{}
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
		got[name] = pin{sum: hex.EncodeToString(sum[:]), sql: sql}
	}
	return got
}

// readPins reads a file in sha256sum's format.
func readPins(path string) (map[string]pin, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the pins of the rendered migrations: %w", err)
	}
	pins := map[string]pin{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sum, name, ok := strings.Cut(line, "  ")
		if _, err := hex.DecodeString(sum); !ok || err != nil || len(sum) != 2*sha256.Size || name == "" {
			return nil, fmt.Errorf("%s:%d: want \"<hex sha256>  NNNN_name.sql\", got %q", path, n, line)
		}
		if _, dup := pins[name]; dup {
			return nil, fmt.Errorf("%s:%d: %s pinned twice", path, n, name)
		}
		pins[name] = pin{sum: sum, line: n}
	}
	return pins, sc.Err()
}

// writePins writes the SHA-256 of each of got to RenderedPins.
func writePins(t *testing.T, got map[string]pin) {
	t.Helper()
	var b strings.Builder
	b.WriteString("# SHA-256 of each migration rendered from a template (storetest.PinRendered).\n")
	b.WriteString("# Applied databases ran these texts: change the schema with a new migration, never a pin.\n")
	for _, name := range slices.Sorted(maps.Keys(got)) {
		fmt.Fprintf(&b, "%s  %s\n", got[name].sum, name)
	}
	if err := os.MkdirAll(filepath.Dir(RenderedPins), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(RenderedPins, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", RenderedPins)
}
