package suite

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/fuzzseed"
	"github.com/promptcanary/promptcanary/probe"
)

// FuzzParse feeds arbitrary bytes to Parse: it must never panic, and must
// return either a *ValidationError with located problems or a suite that
// meets every rule the loader enforces.
func FuzzParse(f *testing.F) {
	fuzzseed.Files(f, "*.yaml")
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
			if seen[p.ID] || !idRE.MatchString(p.ID) || p.Text == "" && len(p.Messages) == 0 {
				t.Fatalf("bad prompt %q (id %q)", p.Text, p.ID)
			}
			checkConversation(t, &p)
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
		checkBounds(t, s)
		checkSomethingToCheck(t, s)
		// Every prompt can be selected on its own, keeping its hash.
		part, err := s.Select([]string{s.Prompts[0].ID}, nil)
		if err != nil || len(part.Prompts) != 1 || part.PromptHash(s.Prompts[0].ID, cfg) != s.PromptHash(s.Prompts[0].ID, cfg) {
			t.Fatalf("Select(%s): got %v, want the one prompt with its hash", s.Prompts[0].ID, err)
		}
		if _, err := s.Select([]string{"\x00unknown"}, nil); err == nil {
			t.Fatal("Select of an unknown id: got no error")
		}
		if len(s.Hash(cfg)) != 64 {
			t.Fatal("bad Hash")
		}
	})
}

// checkConversation fails when a loaded conversation breaks the rules
// the loader enforces: it starts with a user turn and ends with a user or
// tool turn, every call has an id, every tool turn names its call and tool.
func checkConversation(t *testing.T, p *promptcanary.Prompt) {
	t.Helper()
	turns := p.Conversation()
	if len(turns) == 0 || turns[0].Role != promptcanary.RoleUser {
		t.Fatalf("prompt %s: conversation %+v does not start with a user turn", p.ID, turns)
	}
	if last := turns[len(turns)-1].Role; last != promptcanary.RoleUser && last != promptcanary.RoleTool {
		t.Fatalf("prompt %s: conversation ends with a %s turn", p.ID, last)
	}
	for _, m := range turns {
		for _, c := range m.ToolCalls {
			if c.ID == "" || c.Name == "" || !json.Valid(c.Arguments) {
				t.Fatalf("prompt %s: incomplete call %+v", p.ID, c)
			}
		}
		if m.Role == promptcanary.RoleTool && (m.ToolCallID == "" || m.Name == "") {
			t.Fatalf("prompt %s: tool turn %+v names no call", p.ID, m)
		}
		if m.Role == promptcanary.RoleSystem {
			t.Fatalf("prompt %s: system turn left among the messages", p.ID)
		}
	}
}

// checkBounds fails when a valid suite holds a number outside the bounds
// the loader enforces.
func checkBounds(t *testing.T, s *Suite) {
	t.Helper()
	d := s.Defaults
	if d.Temperature != nil && !(*d.Temperature >= promptcanary.MinTemperature && *d.Temperature <= promptcanary.MaxTemperature) {
		t.Fatalf("temperature %v out of bounds", *d.Temperature)
	}
	if d.MaxTokens != nil && (*d.MaxTokens < 1 || *d.MaxTokens > promptcanary.MaxMaxTokens) {
		t.Fatalf("max_tokens %d out of bounds", *d.MaxTokens)
	}
	if d.Samples != nil && (*d.Samples < 1 || *d.Samples > promptcanary.MaxSamples) {
		t.Fatalf("samples %d out of bounds", *d.Samples)
	}
	for _, p := range s.Providers {
		if p.RPM < 0 || p.RPM > promptcanary.MaxRate || p.TPM < 0 || p.TPM > promptcanary.MaxRate || p.Timeout < 0 || p.Timeout > maxTimeout {
			t.Fatalf("provider %s: rpm %d, tpm %d, timeout %v out of bounds", p.Spec, p.RPM, p.TPM, p.Timeout)
		}
	}
	for m, pr := range s.Prices {
		if !(pr.Input >= 0 && pr.Input <= maxPrice && pr.Output >= 0 && pr.Output <= maxPrice) {
			t.Fatalf("price of %s %+v out of bounds", m, pr)
		}
	}
	insts := slices.Clone(s.Probes)
	for _, own := range s.PromptProbes {
		insts = append(insts, own...)
	}
	for _, in := range insts {
		for name, v := range in.Params {
			switch x := v.(type) {
			case float64:
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("probe %s: %s is %v", in.ID, name, x)
				}
			case int:
				if x < probe.MinInt || x > probe.MaxInt {
					t.Fatalf("probe %s: %s is %d", in.ID, name, x)
				}
			}
		}
	}
}

// checkSomethingToCheck fails when a valid suite holds a probe that skips
// every prompt it judges.
func checkSomethingToCheck(t *testing.T, s *Suite) {
	t.Helper()
	judges := func(in probe.Instance, prompts ...promptcanary.Prompt) bool {
		sk, ok := in.Probe.(probe.Skipper)
		if !ok {
			return true
		}
		for i := range prompts {
			if reason, _ := sk.Skips(&prompts[i]); reason == "" {
				return true
			}
		}
		return false
	}
	for _, in := range s.Probes {
		if !judges(in, s.Prompts...) {
			t.Fatalf("suite-wide probe %s skips every prompt", in.ID)
		}
	}
	for _, p := range s.Prompts {
		for _, in := range s.PromptProbes[p.ID] {
			if !judges(in, p) {
				t.Fatalf("probe %s skips its prompt %s", in.ID, p.ID)
			}
		}
	}
}
