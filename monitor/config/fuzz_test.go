package config

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/fuzzseed"
	"github.com/promptcanary/promptcanary/suite"
)

// FuzzLoad feeds arbitrary bytes to the loader as testdata/fuzz.yaml: it
// must never panic, must return either a *suite.ValidationError of
// located problems that quote no secret, or a configuration that meets
// every rule the loader enforces. Suites are read from testdata only.
func FuzzLoad(f *testing.F) {
	fuzzseed.Files(f, "*.yaml")
	f.Add(Scaffold("suites/ok/canary.yaml"))
	f.Add([]byte("checks: [{name: a, suite: suites/ok/canary.yaml, cron: 'TZ=UTC'}]\n"))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("\x00\xff"))
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		f.Fatal(err)
	}
	load := func(abs, shown string) (*suite.Suite, error) {
		if !strings.HasPrefix(abs, testdata+string(filepath.Separator)) {
			return nil, fs.ErrNotExist
		}
		return loadSuite(abs, shown)
	}
	path := filepath.Join("testdata", "fuzz.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := parseWith(path, data, fixtureEnv, load)
		if err != nil {
			var ve *suite.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got %T %v, want a *suite.ValidationError", err, err)
			}
			if cfg != nil || len(ve.Problems) == 0 {
				t.Fatalf("got config %v and %d problems, want nil and some", cfg, len(ve.Problems))
			}
			text := err.Error()
			for _, p := range ve.Problems {
				if p.Msg == "" || p.File == "" {
					t.Fatalf("got problem %+v, want a message and a file", p)
				}
				text += "\n" + p.Hint
			}
			for _, s := range fixtureSecrets {
				if strings.Contains(text, s) && !strings.Contains(string(data), s) {
					t.Fatalf("a secret appears in the problems:\n%s", text)
				}
			}
			return
		}
		if len(cfg.Checks) == 0 {
			t.Fatal("valid config without checks")
		}
		notifiers := map[string]bool{}
		for _, n := range cfg.Notifiers {
			if !nameRE.MatchString(n.Name) || notifierTypes[n.Type] == nil || notifiers[n.Name] || n.MinSeverity.Rank() < 0 {
				t.Fatalf("invalid notifier %+v", n)
			}
			notifiers[n.Name] = true
		}
		for _, c := range cfg.Checks {
			if !nameRE.MatchString(c.Name) || c.Suite == nil || c.Provider == "" || c.Schedule == nil ||
				c.Samples < 1 || c.Samples > promptcanary.MaxSamples || c.Jitter < 0 || c.Jitter > MaxJitter ||
				c.MaxErrors < 0 || c.Baseline == "" || !filepath.IsAbs(c.SuitePath) {
				t.Fatalf("invalid check %+v", c)
			}
			if c.Schedule.Interval() < MinEvery {
				t.Fatalf("check %s: interval %s", c.Name, c.Schedule.Interval())
			}
			for _, n := range c.Notify {
				if !notifiers[n] {
					t.Fatalf("check %s notifies unknown %q", c.Name, n)
				}
			}
		}
	})
}
