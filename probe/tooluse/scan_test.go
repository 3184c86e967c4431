package tooluse

import (
	"strings"
	"testing"
)

var scanSeeds = []string{"", "{}", `{"name": 1}`, `{"n\u0061me": 1}`, `[{"function": {}}]`, `[[{"name": 1}]]`, `{"a": {"name": 1}}`,
	`[{"a": {"function": 1}}]`, `{"tool_calls": []`, `{"tool_calls": [], "tool_calls": 1}`, `[1, {"x": 2, "name": "f"}]`, ` "name" `}

// FuzzScanHasCall checks that the tree-free detection agrees with
// jsonHasCall on the parsed tree.
func FuzzScanHasCall(f *testing.F) { fuzzStrings(f, scanSeeds, checkScanHasCall) }

func checkScanHasCall(t *testing.T, s string) {
	t.Helper()
	s = strings.TrimSpace(s)
	root, ok := parseJSON(s)
	want := ok && jsonHasCall(&root)
	if got := scanHasCall(s); got != want {
		t.Errorf("scanHasCall(%q): got %v, want %v", s, got, want)
	}
}
