package suite

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/internal/yamlwalk"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/provider"
)

func load(t *testing.T, name string) *Suite {
	t.Helper()
	s, err := Load(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("Load(%s): %v", name, err)
	}
	return s
}

func parse(t *testing.T, src string) *Suite {
	t.Helper()
	s, err := Parse("canary.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

// parseInvalid parses src, which must fail with a *ValidationError, and
// returns that error.
func parseInvalid(t *testing.T, src string) *ValidationError {
	t.Helper()
	_, err := Parse("canary.yaml", []byte(src))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("got %v, want a *ValidationError", err)
	}
	return ve
}

// ids lists the instance ids and types of probes as "id=type".
func ids(insts []probe.Instance) []string {
	out := make([]string, len(insts))
	for i, in := range insts {
		out[i] = in.ID + "=" + in.Type
	}
	return out
}

func TestLoadOriginalFormat(t *testing.T) {
	s := load(t, "valid-original.yaml")
	const sys = "You are a concise support assistant."
	if got, want := s.Path, filepath.Join("testdata", "valid-original.yaml"); got != want {
		t.Errorf("Path: got %q, want %q", got, want)
	}
	if got, want := s.Name, "support-assistant"; got != want {
		t.Errorf("Name: got %q, want %q", got, want)
	}
	if got, want := s.Description, "Canary suite for a customer-support assistant.\nWatches answer format, length and factual anchors.\n"; got != want {
		t.Errorf("Description: got %q, want %q", got, want)
	}
	if diff := cmp.Diff([]string{"production", "support"}, s.Tags); diff != "" {
		t.Errorf("Tags (-want +got):\n%s", diff)
	}
	if got := s.DefaultSystemPrompt; got != sys {
		t.Errorf("DefaultSystemPrompt: got %q, want %q", got, sys)
	}
	summary := "Summarise: reset your password from the login page."
	wantPrompts := []promptcanary.Prompt{
		{ID: "capital_fr", Text: "Name the capital of France in one sentence.", Description: "Factual anchor.",
			ExpectedKeywords: []string{"Paris"}, Tags: []string{"factual", "anchor"}, SystemPrompt: sys},
		{ID: "json_order", Text: "Return a JSON object for an order.\nUse exactly the keys: order_id, status, eta_days.\nReply with the JSON only.\n",
			Description: "JSON shape.", Tags: []string{"json", "format"}, SystemPrompt: sys},
		{ID: "refund", Text: "A customer asks: \"How do I get a refund?\"\nAnswer helpfully in two sentences.\n",
			SystemPrompt: "You are a polite support agent for an online shop.", Tags: []string{"support"}},
		{ID: deriveID(summary, sys), Text: summary, SystemPrompt: sys},
	}
	if diff := cmp.Diff(wantPrompts, s.Prompts, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Prompts (-want +got):\n%s", diff)
	}
	if got, want := s.Prompts[3].ID, "summarise-reset-your-password-from-"; !strings.HasPrefix(got, want) {
		t.Errorf("derived id: got %q, want prefix %q", got, want)
	}
	if diff := cmp.Diff([]string{"test_plain=test_plain", "test_keywords=test_keywords", "test_length=test_length"}, ids(s.Probes)); diff != "" {
		t.Errorf("probes (-want +got):\n%s", diff)
	}
	wantParams := []probe.Params{
		{},
		{"required_keywords": []string{}, "forbidden_keywords": []string{"I cannot help", "As an AI language model"}},
		{"min_chars": 10, "max_chars": 4000, "tolerance": 0.5},
	}
	for i, want := range wantParams {
		if diff := cmp.Diff(want, s.Probes[i].Params, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("probes[%d] params (-want +got):\n%s", i, diff)
		}
		typ, err := probe.Lookup(s.Probes[i].Type)
		if s.Probes[i].Probe == nil || err != nil || s.Probes[i].Name != typ.Name || s.Probes[i].Category != typ.Category {
			t.Errorf("probes[%d]: got probe %v named %q (%s), want a %s with its type's name and category", i, s.Probes[i].Probe, s.Probes[i].Name, s.Probes[i].Category, s.Probes[i].Type)
		}
	}
	if got := len(s.PromptProbes); got != 0 {
		t.Errorf("PromptProbes: got %d entries, want 0", got)
	}
	if diff := cmp.Diff(Defaults{}, s.Defaults); diff != "" {
		t.Errorf("Defaults (-want +got):\n%s", diff)
	}
}

func TestLoadBare(t *testing.T) {
	s := load(t, "valid-bare.yaml")
	if got, want := s.Name, "unnamed-suite"; got != want {
		t.Errorf("Name: got %q, want %q", got, want)
	}
	var texts, pids []string
	for _, p := range s.Prompts {
		texts = append(texts, p.Text)
		pids = append(pids, p.ID)
	}
	if diff := cmp.Diff([]string{"What is the capital of France?", "Don't panic: what is 6 x 7?"}, texts); diff != "" {
		t.Errorf("texts (-want +got):\n%s", diff)
	}
	want := []string{deriveID(texts[0], ""), deriveID(texts[1], "")}
	if diff := cmp.Diff(want, pids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(pids[1], "dont-panic-what-is-6-") {
		t.Errorf("id: got %q, want prefix dont-panic-what-is-6-", pids[1])
	}
	if diff := cmp.Diff([]string{"test_plain=test_plain", "test_length=test_length"}, ids(s.Probes)); diff != "" {
		t.Errorf("probes (-want +got):\n%s", diff)
	}
	if got, want := s.Probes[1].Params["min_chars"], any(1); got != want {
		t.Errorf("default min_chars: got %v, want %v", got, want)
	}
}

func TestLoadPerPromptProbes(t *testing.T) {
	s := load(t, "valid-per-prompt.yaml")
	if got := len(s.Probes); got != 0 {
		t.Errorf("suite-wide probes: got %d, want 0", got)
	}
	want := map[string][]string{
		"fr": {"test_match=test_match"},
		"jp": {"test_match=test_match", "test_plain=test_plain"},
	}
	got := map[string][]string{}
	for id, insts := range s.PromptProbes {
		got[id] = ids(insts)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PromptProbes (-want +got):\n%s", diff)
	}
	if got, want := s.PromptProbes["jp"][0].Params["match_mode"], any("startswith"); got != want {
		t.Errorf("jp match_mode: got %v, want %v", got, want)
	}
	if got, want := s.PromptProbes["fr"][0].Params["expected_value"], any("Paris"); got != want {
		t.Errorf("fr expected_value: got %v, want %v", got, want)
	}
	if got := s.ProbesFor("none"); len(got) != 0 {
		t.Errorf("ProbesFor(none): got %v, want none", ids(got))
	}
}

func TestInstanceIDs(t *testing.T) {
	s := load(t, "valid-instance-ids.yaml")
	wantSuite := []string{"test_length_2=test_length", "test_length=test_length", "short=test_length", "test_length_3=test_length", "test_plain=test_plain"}
	if diff := cmp.Diff(wantSuite, ids(s.Probes)); diff != "" {
		t.Errorf("suite-wide ids (-want +got):\n%s", diff)
	}
	maxChars := []any{500, 1000, 80, nil}
	for i, want := range maxChars {
		if got := s.Probes[i].Params["max_chars"]; got != want {
			t.Errorf("probes[%d] max_chars: got %v, want %v", i, got, want)
		}
	}
	tests := []struct {
		prompt string
		want   []string
	}{
		{"fr", append(wantSuite[:len(wantSuite):len(wantSuite)], "test_plain_2=test_plain", "paris=test_match")},
		{"jp", append(wantSuite[:len(wantSuite):len(wantSuite)], "test_plain_2=test_plain")},
	}
	for _, tc := range tests {
		t.Run(tc.prompt, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ids(s.ProbesFor(tc.prompt))); diff != "" {
				t.Errorf("ProbesFor (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadToolsAndDefaults(t *testing.T) {
	s := load(t, "valid-tools.yaml")
	temp, maxTok, seed, samples, maxAnswer := 0.2, 256, int64(42), 5, 65536
	want := Defaults{Provider: "sim/stable", ProviderLine: 2, Temperature: &temp, MaxTokens: &maxTok, Seed: &seed, Samples: &samples, MaxAnswerBytes: &maxAnswer}
	if diff := cmp.Diff(want, s.Defaults); diff != "" {
		t.Errorf("Defaults (-want +got):\n%s", diff)
	}
	wantTools := []promptcanary.Tool{
		{Name: "get_weather", Description: "Current weather for a city.", Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"city": map[string]any{"type": "string"},
				"days": map[string]any{"type": "integer", "minimum": 1},
			},
			"required": []any{"city"},
		}},
		{Name: "get_time"},
	}
	if diff := cmp.Diff(wantTools, s.Prompts[0].Tools); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if got, want := s.Prompts[0].ToolChoice, "get_weather"; got != want {
		t.Errorf("tool_choice: got %q, want %q", got, want)
	}
	if got, want := s.Prompts[1].ToolChoice, "none"; got != want {
		t.Errorf("tool_choice: got %q, want %q", got, want)
	}
	schema := s.Probes[0].Params.Map("schema")
	if diff := cmp.Diff(map[string]any{"name": "get_weather", "required_args": []any{"city"}, "arg_types": map[string]any{"city": "string"}}, schema); diff != "" {
		t.Errorf("schema param (-want +got):\n%s", diff)
	}
}

func TestLoadAnchors(t *testing.T) {
	s := load(t, "valid-anchors.yaml")
	if diff := cmp.Diff([]string{"test_length=test_length", "longer=test_length"}, ids(s.Probes)); diff != "" {
		t.Errorf("probes (-want +got):\n%s", diff)
	}
	if got, want := s.Probes[1].Params["max_chars"], any(400); got != want {
		t.Errorf("merged max_chars: got %v, want %v (explicit key wins)", got, want)
	}
	for _, p := range s.Prompts {
		if got, want := p.SystemPrompt, "Answer in one sentence."; got != want {
			t.Errorf("%s system prompt: got %q, want %q", p.ID, got, want)
		}
	}
}

func TestLoadReadError(t *testing.T) {
	_, err := Load("testdata/no-such-file.yaml")
	if err == nil {
		t.Fatal("got nil error, want one")
	}
	if got, want := err.Error(), `read suite "testdata/no-such-file.yaml": `; !strings.HasPrefix(got, want) {
		t.Errorf("got %q, want prefix %q", got, want)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("got %v, want it to wrap fs.ErrNotExist", err)
	}
	var ve *ValidationError
	if errors.As(err, &ve) {
		t.Errorf("got a ValidationError for an I/O failure")
	}
}

func TestProblemError(t *testing.T) {
	tests := []struct {
		name string
		p    Problem
		want string
	}{
		{"full", Problem{File: "canary.yaml", Line: 14, Column: 5, Field: "probes[2] (response_length).max_chars", Msg: "must be >= min_chars (5)", Hint: "h"},
			"canary.yaml:14: probes[2] (response_length).max_chars: must be >= min_chars (5)"},
		{"no field", Problem{File: "canary.yaml", Line: 3, Msg: "invalid YAML: x"}, "canary.yaml:3: invalid YAML: x"},
		{"no line", Problem{File: "canary.yaml", Msg: "invalid YAML: x"}, "canary.yaml: invalid YAML: x"},
		{"no file", Problem{Line: 2, Field: "name", Msg: "m"}, "line 2: name: m"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.Error(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	ve := &ValidationError{Problems: []*Problem{&tests[0].p, &tests[1].p}}
	if got, want := ve.Error(), tests[0].want+"\n"+tests[1].want; got != want {
		t.Errorf("ValidationError: got %q, want %q", got, want)
	}
	var p *Problem
	if !errors.As(error(ve), &p) || p != &tests[0].p {
		t.Errorf("errors.As: got %v, want the first problem", p)
	}
}

// TestAliasBomb checks that nested aliases cannot blow up the loader: the
// walk stops at a budget and reports one problem.
func TestAliasBomb(t *testing.T) {
	tests := []struct{ name, want, src string }{
		{"laughs", yamlwalk.TooLarge, `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
prompts: [hi]
probes:
  - type: test_keywords
    required_keywords: *h
`},
		{"cycle", yamlwalk.TooDeep, `prompts: [hi]
probes:
  - &p
    type: test_schema
    schema: {loop: *p}
`},
		{"merge cycle", yamlwalk.TooDeep, `prompts: [hi]
probes:
  - &p
    type: test_plain
    <<: *p
`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ve := parseInvalid(t, tc.src)
			found := false
			for _, p := range ve.Problems {
				found = found || p.Msg == tc.want
			}
			if !found {
				t.Errorf("got %v, want a %q problem", ve, tc.want)
			}
		})
	}
}

func TestPlan(t *testing.T) {
	s := load(t, "valid-instance-ids.yaml")
	seed := int64(7)
	cfg := promptcanary.ProviderConfig{ModelID: "sim/stable", Temperature: 0, MaxTokens: 100, Seed: &seed}
	plan := s.Plan(cfg, 3)
	if got, want := plan.ConfigHash, s.Hash(cfg); got != want {
		t.Errorf("ConfigHash: got %q, want %q", got, want)
	}
	if plan.Samples != 3 || plan.Suite != s.Name || plan.Config.ModelID != "sim/stable" {
		t.Errorf("plan: got samples %d suite %q model %q, want 3 %q sim/stable", plan.Samples, plan.Suite, plan.Config.ModelID, s.Name)
	}
	if got, want := len(plan.Items), 2; got != want {
		t.Fatalf("items: got %d, want %d", got, want)
	}
	for _, it := range plan.Items {
		if diff := cmp.Diff(ids(s.ProbesFor(it.Prompt.ID)), ids(it.Probes)); diff != "" {
			t.Errorf("%s probes (-want +got):\n%s", it.Prompt.ID, diff)
		}
	}
	// Prompt hashes ignore the model and seed, so comparing another model or
	// seed against a baseline is never "stale", but follow temperature.
	other := cfg
	other.ModelID, other.Seed = "sim/drifted", nil
	if diff := cmp.Diff(plan.PromptHashes, s.Plan(other, 1).PromptHashes); diff != "" {
		t.Errorf("prompt hashes changed with model/seed (-first +second):\n%s", diff)
	}
	hot := cfg
	hot.Temperature = 0.7
	for id, h := range s.Plan(hot, 3).PromptHashes {
		if h == plan.PromptHashes[id] {
			t.Errorf("prompt %s: hash unchanged by temperature", id)
		}
	}
	if len(plan.PromptHashes) != 2 {
		t.Errorf("got %d prompt hashes, want 2", len(plan.PromptHashes))
	}
	// ProbesFor returns a fresh slice.
	got := s.ProbesFor("fr")
	got[0].ID = "changed"
	if s.Probes[0].ID == "changed" {
		t.Error("ProbesFor aliases the suite's probes")
	}
}

func TestLoadProvidersAndPrices(t *testing.T) {
	s := load(t, "valid-providers.yaml")
	if got, want := s.Defaults.BaseURL, "http://localhost:8000/v1"; got != want {
		t.Errorf("BaseURL: got %q, want %q", got, want)
	}
	if got, want := s.Defaults.Store, "history/runs.db"; got != want {
		t.Errorf("Store: got %q, want %q", got, want)
	}
	want := []ProviderSpec{
		{Spec: "openai/gpt-4o-mini", Line: 6, Field: "providers[0] (openai/gpt-4o-mini)", RPM: 500, TPM: 200000, Timeout: 30 * time.Second,
			Settings: map[string]any{"api_key_env": "MY_KEY"}},
		{Spec: "http/checkout-bot", Line: 11, Field: "providers[1] (http/checkout-bot)", Settings: map[string]any{
			"url":      "https://bot.example.com/chat",
			"headers":  map[string]any{"Authorization": "Bearer ${BOT_TOKEN}"},
			"body":     map[string]any{"message": "{{prompt}}", "temperature": "{{temperature}}"},
			"response": map[string]any{"text": "reply.text"},
		}},
	}
	if diff := cmp.Diff(want, s.Providers); diff != "" {
		t.Errorf("Providers (-want +got):\n%s", diff)
	}
	if got := s.Provider("http/checkout-bot"); got == nil || got.Settings["url"] != "https://bot.example.com/chat" {
		t.Errorf("Provider(http/checkout-bot): got %+v", got)
	}
	if got := s.Provider("openai/gpt-4o"); got != nil {
		t.Errorf("Provider(openai/gpt-4o): got %+v, want nil", got)
	}
	if got, want := s.Prices["my-finetune"], (provider.Price{Input: 1.5, Output: 6}); got != want {
		t.Errorf("Prices: got %v, want %v", got, want)
	}
}
