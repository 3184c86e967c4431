package builtin_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	_ "github.com/promptcanary/promptcanary/probe/builtin"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	// llm_judge checks that its judge names a registered provider.
	_ "github.com/promptcanary/promptcanary/provider/builtin"
	"github.com/promptcanary/promptcanary/suite"
)

// TestExamples loads every built-in probe's example as canary.yaml: it must
// be valid, use the probe, and show every parameter.
func TestExamples(t *testing.T) {
	types := probe.Types()
	if len(types) < 19 {
		t.Fatalf("got %d registered probe types, want the 19 built-ins", len(types))
	}
	for _, typ := range types {
		t.Run(typ.ID, func(t *testing.T) {
			if typ.Example == "" {
				t.Fatal("Example is empty")
			}
			if typ.ExampleYAML() != typ.Example {
				t.Errorf("ExampleYAML: got %q, want the Example", typ.ExampleYAML())
			}
			doc := suite.ExampleFile(typ)
			s, err := suite.Parse("canary.yaml", []byte(doc))
			if err != nil {
				t.Fatalf("example does not load:\n%s\n%v", doc, err)
			}
			found := false
			for _, p := range s.Prompts {
				for _, in := range s.ProbesFor(p.ID) {
					found = found || in.Type == typ.ID
				}
			}
			if !found {
				t.Errorf("example has no %s probe:\n%s", typ.ID, doc)
			}
			checkExamplePrompt(t, typ, s)
			for _, p := range typ.Params {
				if !regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(p.Name) + `:`).MatchString(typ.Example) {
					t.Errorf("example does not show parameter %s:\n%s", p.Name, typ.Example)
				}
			}
		})
	}
}

// TestNothingToCheck loads suites whose probes have nothing to check and
// checks the exact problems and hints.
func TestNothingToCheck(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string // Error() and hint of each problem, alternating
	}{
		{"keyword_presence with no keywords", `
probes:
  - type: keyword_presence
    required_keywords: []
prompts: [hi]
`, []string{
			"canary.yaml:2: probes[0] (keyword_presence): nothing to check: required_keywords and forbidden_keywords are both empty",
			"list at least one keyword in required_keywords or forbidden_keywords, for example required_keywords: [Paris]",
		}},
		{"keyword_presence with an empty keyword", `
probes:
  - type: keyword_presence
    forbidden_keywords: [Sure, ""]
prompts: [hi]
`, []string{
			"canary.yaml:3: probes[0] (keyword_presence).forbidden_keywords[1]: must not be empty",
			"an empty keyword occurs in every response; remove it",
		}},
		{"expected_keywords on prompts without keywords", `
probes: [expected_keywords]
prompts:
  - hi
  - text: there
    probes: [expected_keywords]
`, []string{
			"canary.yaml:1: probes[0] (expected_keywords): nothing to check on any prompt: no expected_keywords declared",
			"add expected_keywords: [...] to the prompt, or use keyword_presence with its own keywords",
			"canary.yaml:5: prompts[1].probes[0] (expected_keywords): nothing to check on this prompt: no expected_keywords declared",
			"add expected_keywords: [...] to the prompt, or use keyword_presence with its own keywords",
		}},
		{"empty lists of required things", `
probes:
  - type: json_schema
    required_keys: []
  - type: json_key_order
    expected_order: [id]
  - type: markdown_headers
    expected_headers: []
  - type: tool_call_args
    required_args: []
  - type: tool_call_schema
    schema: {optional_args: [unit]}
prompts: [hi]
`, []string{
			"canary.yaml:3: probes[0] (json_schema).required_keys: nothing to check: required_keys is empty and there are no forbidden_keys",
			"list the keys the JSON object must have, for example required_keys: [name, age]; to check only that the answer is JSON, use json_validity",
			"canary.yaml:5: probes[1] (json_key_order).expected_order: nothing to check: an order needs at least 2 keys, got 1",
			"list the top-level keys in the order they should appear, for example expected_order: [id, status, total]; to require a key, use json_schema",
			"canary.yaml:7: probes[2] (markdown_headers).expected_headers: nothing to check: expected_headers is empty",
			"list the header texts that must appear, for example expected_headers: [Summary, Details]",
			"canary.yaml:9: probes[3] (tool_call_args).required_args: nothing to check: required_args is empty and there are no forbidden_args",
			"list the argument keys the call must carry, for example required_args: [city]; to check only that a tool is called, use tool_call_presence",
			"canary.yaml:11: probes[4] (tool_call_schema).schema: nothing to check: the schema sets no name, required_args, forbidden_args or arg_types",
			"describe the expected call, for example schema: {name: get_weather, required_args: [city]}",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := probetest.Problems(t, "", "canary.yaml", strings.TrimPrefix(tc.yaml, "\n")); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("problems:\ngot  %q\nwant %q", got, tc.want)
			}
		})
	}
	// One prompt with keywords is enough for a suite-wide expected_keywords.
	if _, err := suite.Parse("canary.yaml", []byte("probes: [expected_keywords]\nprompts:\n  - hi\n  - {text: \"Capital of France?\", expected_keywords: [Paris]}\n")); err != nil {
		t.Errorf("suite-wide expected_keywords with one prompt declaring keywords: got %v, want nil", err)
	}
}

// checkExamplePrompt checks that the example of a tool-use probe shows a
// conversation with a tool call and its result, and that of a JSON probe
// a structured-output prompt, unless the example brings its own prompts.
func checkExamplePrompt(t *testing.T, typ probe.Type, s *suite.Suite) {
	t.Helper()
	if strings.Contains(typ.Example, "prompts:") {
		return
	}
	p := s.Prompts[0]
	switch {
	case typ.Category == promptcanary.CategoryToolUse:
		roles := ""
		for _, m := range p.Conversation() {
			roles += m.Role[:1]
		}
		if roles != "uatau" || p.Messages[2].ToolCallID != p.Messages[1].ToolCalls[0].ID {
			t.Errorf("example prompt turns %q (%+v), want user, assistant call, tool result, assistant, user", roles, p.Messages)
		}
	case strings.HasPrefix(typ.ID, "json_"):
		if p.ResponseFormat == nil || p.ResponseFormat.Type != promptcanary.FormatJSONSchema {
			t.Errorf("example prompt %s asks for no structured output", p.ID)
		}
	}
}
