package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// TestOnePairOneSeverity compares the drifted simulated model against a
// statistical baseline and checks that every pair reads the same wherever
// it is shown: each tested unit of a pair in the JSON carries its pair's
// severity and evidence, and every line of the terminal report that names
// a regressed pair names its severity and no other.
func TestOnePairOneSeverity(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	main := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		code := Main(context.Background(), append(args, "--no-progress"), Stdio{In: strings.NewReader(""), Out: &out, Err: &errOut})
		if code != int(ExitOK) && code != int(ExitGate) {
			t.Fatalf("%v: exit %d\n%s", args, code, errOut.String())
		}
		return out.String()
	}
	var initOut bytes.Buffer
	if code := Main(context.Background(), []string{"init", "s"}, Stdio{Out: &initOut, Err: &initOut}); code != 0 {
		t.Fatal(initOut.String())
	}
	t.Chdir(filepath.Join(dir, "s"))
	main("run", "--save-baseline")
	terminal := main("compare", "-p", "sim/drifted", "--baseline-provider", "sim/stable", "--samples", "20", "-o", "drift.json", "-v")
	data, err := os.ReadFile("drift.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := store.DecodeDocument(data)
	if err != nil || doc.Drift == nil || doc.Drift.Statistics == nil {
		t.Fatalf("got %v, %v; want a statistical drift report", doc, err)
	}
	d := doc.Drift
	severity := map[string]promptcanary.Severity{}
	for _, c := range d.Comparisons {
		severity[c.ProbeID+"/"+c.PromptID] = c.Severity
	}
	regressed := 0
	for _, c := range d.Comparisons {
		if c.Regression {
			regressed++
		}
	}
	if regressed == 0 {
		t.Fatal("the drifted model regressed nowhere: the test would prove nothing")
	}
	for _, u := range d.Statistics.Units {
		if u.Kind != promptcanary.UnitPair {
			continue
		}
		if want := severity[u.Key]; u.Severity != want {
			t.Errorf("unit %s (%s): severity %s in the statistics, %s in the comparison", u.Key, u.Test, u.Severity, want)
		}
	}
	levels := regexp.MustCompile(`\b(LOW|MEDIUM|HIGH|CRITICAL)\b`)
	for _, c := range d.Comparisons {
		if !c.Regression {
			continue
		}
		key := c.ProbeID + "/" + c.PromptID
		want := strings.ToUpper(string(c.Severity))
		for _, line := range strings.Split(terminal, "\n") {
			if !strings.Contains(line, key) && !(strings.Contains(line, c.ProbeID) && strings.Contains(line, c.PromptID)) {
				continue
			}
			for _, got := range levels.FindAllString(line, -1) {
				if got != want {
					t.Errorf("pair %s is %s, but a report line says %s:\n%s", key, want, got, line)
				}
			}
		}
	}
}
