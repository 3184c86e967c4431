package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUntrustedTextNeverReachesTheTerminalRaw feeds escape sequences
// through every name the CLI prints outside reports (suite names, model
// ids, notes, file names from baseline files) and checks that history,
// baselines, baseline list, baseline import and the run itself print none
// of them raw.
func TestUntrustedTextNeverReachesTheTerminalRaw(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	// A title-setting OSC, a screen clear and a bidi override.
	suite := "name: \"ev\\e]0;pwned\\a\\e[2J\\u202eil\"\nprovider: sim/stable\nprobes: [direct_answer]\nprompts:\n  - {id: p1, text: \"What is the capital of France?\"}\n"
	if err := os.WriteFile("canary.yaml", []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		code := Main(context.Background(), args, Stdio{In: strings.NewReader(""), Out: &out, Err: &out})
		if code != int(ExitOK) {
			t.Fatalf("%v: got exit %d\n%s", args, code, out.String())
		}
		return out.String()
	}
	outputs := map[string]string{
		"run":       run("run", "--save-baseline", "--no-progress"),
		"history":   run("history"),
		"baselines": run("baselines"),
		"list":      run("baseline", "list"),
	}
	// A baseline file whose model id and note carry escapes, imported.
	files, _ := filepath.Glob(filepath.Join("baselines", "*.json"))
	if len(files) != 1 {
		t.Fatalf("got baseline files %v, want one", files)
	}
	data, _ := os.ReadFile(files[0])
	data = bytes.ReplaceAll(data, []byte(`"model_id": "sim/stable"`), []byte(`"model_id": "sim/\u001b[31mred"`))
	hostile := filepath.Join(dir, "hostile.json")
	os.WriteFile(hostile, data, 0o644)
	outputs["import"] = run("baseline", "import", hostile)
	outputs["list after import"] = run("baseline", "list")
	for name, out := range outputs {
		for _, bad := range []string{"\x1b", "\x07", "\u202e"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s printed a raw %q:\n%q", name, bad, out)
			}
		}
	}
	if !strings.Contains(outputs["history"], "ev") {
		t.Errorf("history lost the suite: %q", outputs["history"])
	}
}
