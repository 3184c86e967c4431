package suite

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/promptcanary/promptcanary"
)

// FuzzParse feeds arbitrary bytes to Parse: it must never panic, and must
// return either a *ValidationError with located problems or a suite that
// meets every rule the loader enforces.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("prompts: [a]\nprobes: [test_plain]\n"))
	f.Add([]byte("- a\n- b\n"))
	f.Add([]byte("\x00\xff"))
	cfg := promptcanary.ProviderConfig{ModelID: "sim/stable"}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got %T %v, want a *ValidationError", err, err)
			}
			if s != nil {
				t.Fatal("got a suite and an error")
			}
			if len(ve.Problems) == 0 {
				t.Fatal("got a ValidationError without problems")
			}
			for _, p := range ve.Problems {
				if p.Msg == "" || p.File != "fuzz.yaml" {
					t.Fatalf("got problem %+v, want a message and the file name", p)
				}
			}
			return
		}
		if len(s.Prompts) == 0 {
			t.Fatal("valid suite without prompts")
		}
		seen := map[string]bool{}
		probes := len(s.Probes)
		for _, p := range s.Prompts {
			if seen[p.ID] || !idRE.MatchString(p.ID) || p.Text == "" {
				t.Fatalf("bad prompt %q (id %q)", p.Text, p.ID)
			}
			seen[p.ID] = true
			insts := s.ProbesFor(p.ID)
			probes += len(s.PromptProbes[p.ID])
			ids := map[string]bool{}
			for _, in := range insts {
				if ids[in.ID] || in.Probe == nil {
					t.Fatalf("prompt %s: duplicate or empty probe instance %q", p.ID, in.ID)
				}
				ids[in.ID] = true
			}
			if s.PromptHash(p.ID, cfg) == "" {
				t.Fatalf("prompt %s: empty PromptHash", p.ID)
			}
		}
		if probes == 0 {
			t.Fatal("valid suite without probes")
		}
		if len(s.Hash(cfg)) != 64 {
			t.Fatal("bad Hash")
		}
	})
}
