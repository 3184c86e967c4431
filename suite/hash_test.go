package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

func TestSlug(t *testing.T) {
	tests := []struct{ in, want string }{
		{"What is the capital of France?", "what-is-the-capital-of"},
		{"Don't panic!", "dont-panic"},
		{"  Return\tJSON:\n{name: 'Alice'}  ", "return-json-name-alice"},
		{"Café au lait, s'il vous plaît", "caf-au-lait-sil-vous"},
		{"日本の首都は?", "prompt"},
		{"", "prompt"},
		{"Supercalifragilisticexpialidocious antidisestablishmentarianism", "supercalifragilisticexpialidocious-antid"},
		{"a1 b2 c3 d4 e5 f6", "a1-b2-c3-d4-e5"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got := slug(tc.in)
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if len(got) > 40 || !idRE.MatchString(got) {
				t.Errorf("slug %q is not a valid id of at most 40 bytes", got)
			}
		})
	}
}

func TestDerivedIDs(t *testing.T) {
	const base = "probes: [test_plain]\ndefault_system_prompt: Be brief.\nprompts:\n  - What is the capital of France?\n"
	id := func(t *testing.T, src string) string {
		t.Helper()
		return parse(t, src).Prompts[0].ID
	}
	first := id(t, base)
	if got, want := first, "what-is-the-capital-of-"; !strings.HasPrefix(got, want) || len(got) != len(want)+8 {
		t.Fatalf("got %q, want %s + 8 hex digits", got, want)
	}
	if again := id(t, base); again != first {
		t.Errorf("second load: got %q, want %q", again, first)
	}
	same := []struct{ name, src string }{
		{"mapping form", "probes: [test_plain]\ndefault_system_prompt: Be brief.\nprompts:\n  - text: What is the capital of France?\n    tags: [x]\n    description: d\n"},
		{"own system prompt equal to default", "probes: [test_plain]\nprompts:\n  - text: What is the capital of France?\n    system_prompt: Be brief.\n"},
		{"other suite name", "name: other\n" + base},
	}
	for _, tc := range same {
		t.Run(tc.name, func(t *testing.T) {
			if got := id(t, tc.src); got != first {
				t.Errorf("got %q, want %q", got, first)
			}
		})
	}
	changed := []struct{ name, src string }{
		{"text", strings.Replace(base, "France?", "France?!", 1)},
		{"default system prompt", strings.Replace(base, "Be brief.", "Be verbose.", 1)},
		{"own system prompt", "probes: [test_plain]\ndefault_system_prompt: Be brief.\nprompts:\n  - text: What is the capital of France?\n    system_prompt: Be kind.\n"},
		{"no system prompt", "probes: [test_plain]\nprompts:\n  - What is the capital of France?\n"},
	}
	for _, tc := range changed {
		t.Run(tc.name, func(t *testing.T) {
			got := id(t, tc.src)
			if got == first {
				t.Errorf("got %q, want a different id", got)
			}
			if !strings.HasPrefix(got, "what-is-the-capital-of-") {
				t.Errorf("got %q, want the same slug", got)
			}
		})
	}
}

func readFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func baseConfig() promptcanary.ProviderConfig {
	seed := int64(42)
	return promptcanary.ProviderConfig{ModelID: "sim/stable", Temperature: 0, MaxTokens: 1024, Seed: &seed,
		ExtraParams: map[string]any{"top_p": 1.0, "stop": []any{"\n\n"}}}
}

func TestHash(t *testing.T) {
	cfg := baseConfig()
	a := load(t, "hash-a.yaml")
	h := a.Hash(cfg)
	if len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" {
		t.Fatalf("got %q, want 64 hex digits", h)
	}
	if got := load(t, "hash-a.yaml").Hash(cfg); got != h {
		t.Errorf("second load: got %s, want %s", got, h)
	}
	// Another name, description, tags, key order, prompt and probe order, and
	// explicit default values: same hash.
	if got := load(t, "hash-b.yaml").Hash(cfg); got != h {
		t.Errorf("hash-b.yaml: got %s, want %s", got, h)
	}
	// Empty and absent extra params hash alike, as do equal values in maps
	// built in another order.
	cfg2 := baseConfig()
	cfg2.ExtraParams = map[string]any{"stop": []any{"\n\n"}, "top_p": 1.0}
	if got := a.Hash(cfg2); got != h {
		t.Errorf("extra params rebuilt: got %s, want %s", got, h)
	}
	noExtra := baseConfig()
	noExtra.ExtraParams = nil
	emptyExtra := baseConfig()
	emptyExtra.ExtraParams = map[string]any{}
	if a.Hash(noExtra) != a.Hash(emptyExtra) {
		t.Error("nil and empty extra params hash differently")
	}

	src := readFixture(t, "hash-a.yaml")
	edits := []struct{ name, old, new string }{
		{"param value", "max_chars: 100", "max_chars: 101"},
		{"param added", "max_chars: 100", "max_chars: 100\n    tolerance: 0.4"},
		{"enum param", "match_mode: exact", "match_mode: startswith"},
		{"probe id", "  - type: test_match\n", "  - type: test_match\n    id: capital\n"},
		{"probe removed", "  - type: test_length\n    min_chars: 5\n    max_chars: 100\n", ""},
		{"prompt text", "capital of France?", "capital of France?!"},
		{"prompt id", "id: fr", "id: france"},
		{"system prompt", "Be brief.", "Be short."},
		{"default system prompt", "name: hash-a", "default_system_prompt: Hi."},
		{"expected keywords", "[Paris]", "[Paris, France]"},
		{"prompt probe param", "[Tokyo]", "[Tokyo, Japan]"},
		{"prompt probe moved to suite", "    probes:\n      - type: test_keywords\n        required_keywords: [Tokyo]\n", ""},
		{"suite-wide probe added", "probes:\n", "probes:\n  - type: test_keywords\n    required_keywords: [Tokyo]\n"},
		{"tools", "    expected_keywords: [Paris]\n", "    expected_keywords: [Paris]\n    tools: [{name: get_capital}]\n"},
		{"tool choice", "    expected_keywords: [Paris]\n", "    expected_keywords: [Paris]\n    tools: [{name: get_capital}]\n    tool_choice: required\n"},
	}
	for _, e := range edits {
		t.Run(e.name, func(t *testing.T) {
			if !strings.Contains(src, e.old) {
				t.Fatalf("fixture lacks %q", e.old)
			}
			edited := strings.Replace(src, e.old, e.new, 1)
			if e.name == "prompt probe moved to suite" {
				// The same probe, now suite-wide: it also judges fr.
				edited = strings.Replace(edited, "probes:\n", "probes:\n  - type: test_keywords\n    required_keywords: [Tokyo]\n", 1)
			}
			if got := parse(t, edited).Hash(cfg); got == h {
				t.Errorf("got the same hash %s after the edit", got)
			}
		})
	}

	seed7 := int64(7)
	configs := []struct {
		name string
		edit func(*promptcanary.ProviderConfig)
	}{
		{"model", func(c *promptcanary.ProviderConfig) { c.ModelID = "sim/drifted" }},
		{"temperature", func(c *promptcanary.ProviderConfig) { c.Temperature = 0.7 }},
		{"max tokens", func(c *promptcanary.ProviderConfig) { c.MaxTokens = 512 }},
		{"seed", func(c *promptcanary.ProviderConfig) { c.Seed = &seed7 }},
		{"no seed", func(c *promptcanary.ProviderConfig) { c.Seed = nil }},
		{"extra param", func(c *promptcanary.ProviderConfig) {
			c.ExtraParams = map[string]any{"top_p": 0.9, "stop": []any{"\n\n"}}
		}},
	}
	for _, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			cfg := baseConfig()
			c.edit(&cfg)
			if got := a.Hash(cfg); got == h {
				t.Errorf("got the same hash %s after the change", got)
			}
		})
	}
}

func TestPromptHash(t *testing.T) {
	cfg := baseConfig()
	src := readFixture(t, "hash-a.yaml")
	s := parse(t, src)
	if len(s.Prompts) != 2 {
		t.Fatalf("got %d prompts, want 2", len(s.Prompts))
	}
	fr, jp := s.Prompts[0].ID, s.Prompts[1].ID
	base := map[string]string{fr: s.PromptHash(fr, cfg), jp: s.PromptHash(jp, cfg)}
	if base[fr] == base[jp] || base[fr] == "" {
		t.Fatalf("got prompt hashes %v, want two distinct non-empty", base)
	}
	if got := s.PromptHash("nope", cfg); got != "" {
		t.Errorf("unknown prompt: got %q, want empty", got)
	}
	if got := load(t, "hash-b.yaml").PromptHash(fr, cfg); got != base[fr] {
		t.Errorf("hash-b.yaml %s: got %s, want %s", fr, got, base[fr])
	}
	tests := []struct {
		name, old, new string
		changed        []string // prompts whose hash must change; the others must not
	}{
		{"fr keywords", "[Paris]", "[Paris, France]", []string{fr}},
		{"fr description", "description: anchor", "description: other", nil},
		{"jp own probe", "[Tokyo]", "[Tokyo, Japan]", []string{jp}},
		{"suite-wide probe", "max_chars: 100", "max_chars: 90", []string{fr, jp}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := parse(t, strings.Replace(src, tc.old, tc.new, 1))
			for _, id := range []string{fr, jp} {
				got := e.PromptHash(id, cfg)
				want := !strings.Contains(strings.Join(tc.changed, " "), id)
				if same := got == base[id]; same != want {
					t.Errorf("%s: got unchanged=%v, want unchanged=%v", id, same, want)
				}
			}
		})
	}
	other := baseConfig()
	other.ModelID = "sim/drifted"
	if s.PromptHash(fr, other) == base[fr] {
		t.Error("model change: got the same prompt hash")
	}
}
