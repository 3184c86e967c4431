package notify_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestDependenciesStaySmall: the notifiers depend on the shared
// vocabulary, the HTTP stack and two small helpers, not on the monitor's
// configuration, the run engine or a provider client (issue 21, item 8:
// its config type once pulled in 20 project packages).
func TestDependenciesStaySmall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const mod = "github.com/promptcanary/promptcanary"
	var got []string
	for _, p := range strings.Fields(string(out)) {
		if (p == mod || strings.HasPrefix(p, mod+"/")) && p != mod+"/monitor/notify" {
			got = append(got, strings.TrimPrefix(strings.TrimPrefix(p, mod), "/"))
		}
	}
	slices.Sort(got)
	want := []string{"", "internal/httpc", "internal/redact", "internal/suggest"}
	if !slices.Equal(got, want) {
		t.Errorf("monitor/notify depends on %q, want only %q (the module root is \"\")", got, want)
	}
}
