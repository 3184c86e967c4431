package config

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCandidate reads the upgrade gate of checks: the candidate, the
// margin in points (5 unless set), and the samples (the check's own or
// the defaults', else 30), once per provider of the check.
func TestCandidate(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"canary.yaml": "provider: sim/stable\n" + minimalSuite,
		"monitor.yaml": `defaults: {samples: 12}
checks:
  - {name: plain, suite: canary.yaml}
  - {name: gate, suite: canary.yaml, candidate: sim/terse}
  - name: own
    suite: canary.yaml
    providers: [sim/stable, sim/paraphrase]
    candidate: sim/drifted
    margin: 2.5
    samples: 40
`,
		"bare.yaml": "checks:\n  - {name: bare, suite: canary.yaml, candidate: sim/terse, margin: 10}\n",
	})
	cfg, err := Load(filepath.Join(dir, "monitor.yaml"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*Candidate{}
	for _, c := range cfg.Checks {
		got[c.Name+" "+c.Provider] = c.Candidate
	}
	want := map[string]*Candidate{
		"plain sim/stable":   nil,
		"gate sim/stable":    {Provider: "sim/terse", Margin: 0.05, Samples: 12, Line: 4},
		"own sim/stable":     {Provider: "sim/drifted", Margin: 0.025, Samples: 40, Line: 8},
		"own sim/paraphrase": {Provider: "sim/drifted", Margin: 0.025, Samples: 40, Line: 8},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("candidates (-want +got):\n%s", d)
	}
	if s := cfg.Checks[1].Samples; s != 12 {
		t.Errorf("the gate check's own samples: got %d, want 12 (the defaults')", s)
	}

	cfg, err = Load(filepath.Join(dir, "bare.yaml"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Checks[0]
	if d := cmp.Diff(&Candidate{Provider: "sim/terse", Margin: 0.1, Samples: DefaultCandidateSamples, Line: 2}, c.Candidate); d != "" {
		t.Errorf("candidate without samples: (-want +got):\n%s", d)
	}
	if c.Samples != DefaultSamples {
		t.Errorf("the check's own runs: got %d samples, want %d: the gate's default does not change them", c.Samples, DefaultSamples)
	}
}
