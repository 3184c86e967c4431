package suite

import (
	"strings"
	"testing"
)

func TestProviderExtraParamsKeepNull(t *testing.T) {
	s := parse(t, `
name: s
providers:
  - id: anthropic/claude-sonnet-4-5
    extra_params: {top_p: 0.9, temperature: null, thinking: {type: enabled, budget_tokens: 2048}}
prompts:
  - {id: p, text: hi}
probes: [{type: test_length}]
`)
	e := s.Provider("anthropic/claude-sonnet-4-5")
	if e == nil {
		t.Fatal("no entry")
	}
	v, ok := e.ExtraParams["temperature"]
	if !ok || v != nil {
		t.Errorf("temperature: null was %v (kept %v), want a nil value", v, ok)
	}
	if e.ExtraParams["top_p"] != 0.9 {
		t.Errorf("top_p %v", e.ExtraParams["top_p"])
	}
	if _, in := e.Settings["extra_params"]; in {
		t.Errorf("extra_params left among the provider settings: %v", e.Settings)
	}
	_, err := Parse("canary.yaml", []byte("name: s\nproviders:\n  - id: openai/gpt-5\n    extra_params: [top_p]\nprompts: [{id: p, text: hi}]\nprobes: [{type: test_length}]\n"))
	if err == nil || !strings.Contains(err.Error(), "extra_params") {
		t.Errorf("a list as extra_params: %v", err)
	}
}
