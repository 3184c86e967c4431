package config

import (
	"os"
	"path/filepath"
	"testing"

	_ "github.com/promptcanary/promptcanary/probe/builtin"
)

// minimalSuite is a valid canary.yaml without a provider.
const minimalSuite = "name: mini\nprobes: [json_validity]\nprompts:\n  - id: one\n    text: Reply with {}\n"

// writeFiles writes files (path → content) under a fresh directory and
// returns it.
func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func noEnv(string) string { return "" }

func TestScaffoldLoads(t *testing.T) {
	for _, rel := range []string{"canary.yaml", "suites/checkout/canary.yaml", "my suite/canary.yaml"} {
		t.Run(rel, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{rel: minimalSuite, "monitor.yaml": string(Scaffold(rel))})
			cfg, err := Load(filepath.Join(dir, "monitor.yaml"), noEnv)
			if err != nil {
				t.Fatalf("scaffold does not load:\n%v\n%s", err, Scaffold(rel))
			}
			if len(cfg.Checks) != 1 {
				t.Fatalf("got %d checks, want 1", len(cfg.Checks))
			}
			c := cfg.Checks[0]
			if c.Provider != "sim/stable" || c.SuitePath != filepath.Join(dir, rel) || c.Schedule.String() != "every 1h" || c.Samples != 10 || !c.Confirm {
				t.Errorf("got check %+v", c)
			}
		})
	}
}
