package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestHugeValuesAreCut checks that a check name of ten megabytes comes
// back cut at 200 characters with its length, not as a line of ten
// megabytes, in the problem and in its hint.
func TestHugeValuesAreCut(t *testing.T) {
	big := strings.Repeat("A", 10<<20)
	src := "checks:\n  - name: " + big + "\n    suite: suites/ok/canary.yaml\n    provider: sim/stable\n"
	_, err := parse(filepath.Join("testdata", "huge.yaml"), []byte(src), fixtureEnv)
	got := problemLines(t, err)
	want := []string{
		`testdata/huge.yaml:2: checks[0].name: invalid name "` + strings.Repeat("A", 200) + `…" (10,485,760 characters)`,
		"use lowercase letters, digits and '-' (at most 63), for example checkout-prod",
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\ngot  %.1000q\nwant %.1000q", got, want)
	}
}
