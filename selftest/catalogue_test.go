package selftest_test

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/selftest"
	"github.com/promptcanary/promptcanary/suite"
)

// answers covers the shapes the drifts tell apart.
var answers = []promptcanary.Response{
	{PromptID: "json", Content: `{"user_name": "Ada", "age": 36, "city": "London"}`, CompletionTokens: 20, FinishReason: "stop"},
	{PromptID: "prose", Content: "Paris is the capital of France. It has 2 million people.", CompletionTokens: 12, FinishReason: "stop"},
	{PromptID: "steps", Content: "# Tea\n\n1. Boil water.\n2. Add the tea bag.\n3. Wait three minutes.", FinishReason: "stop"},
	{PromptID: "tool", ToolCalls: []promptcanary.ToolCall{{ID: "c1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo","unit":"C"}`)}}, FinishReason: "tool_calls"},
	{PromptID: "refused", Content: "I'm sorry, but I can't help with that.", FinishReason: "stop"},
	{PromptID: "empty"},
}

func TestCatalogue(t *testing.T) {
	cat := selftest.Catalogue()
	if len(cat) < 15 {
		t.Fatalf("got %d drifts, want at least 15", len(cat))
	}
	idRe := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	seen := map[string]bool{}
	for _, d := range cat {
		if !idRe.MatchString(d.ID) || seen[d.ID] {
			t.Errorf("drift id %q: want a unique snake_case id", d.ID)
		}
		seen[d.ID] = true
		if d.Name == "" || len(d.Description) < 40 || d.Apply == nil || d.Suggest == nil {
			t.Errorf("drift %s: want a name, a description of what it models, Apply and Suggest", d.ID)
		}
	}
	// Catalogue returns a copy.
	cat[0].ID = "changed"
	if selftest.Catalogue()[0].ID == "changed" {
		t.Error("got the catalogue itself, want a copy")
	}
}

// TestApply checks which answers each drift applies to, that it is pure
// (the input answer is untouched and shares no tool call with the output)
// and that applying it twice gives the same answer.
func TestApply(t *testing.T) {
	want := map[string][]string{
		"json_in_prose":     {"json"},
		"json_fenced":       {"json"},
		"preamble":          {"json", "prose", "steps"},
		"keys_renamed":      {"json"},
		"key_dropped":       {"json"},
		"keys_reordered":    {"json"},
		"truncated":         {"json", "prose", "steps"},
		"doubled":           {"json", "prose", "steps"},
		"disclaimer":        {"json", "prose", "steps"},
		"refusal":           {"json", "prose", "steps", "tool", "empty"},
		"tool_renamed":      {"tool"},
		"tool_arg_renamed":  {"tool"},
		"tool_call_dropped": {"tool"},
		"hedging":           {"prose", "steps"},
		"language_switch":   {"prose", "steps"},
		"headers_removed":   {"steps"},
		"steps_collapsed":   {"steps"},
		"empty":             {"json", "prose", "steps", "tool", "refused"},
		"sign_off":          {"json", "prose", "steps"},
		"numbers_changed":   {"json", "prose"},
	}
	for _, d := range selftest.Catalogue() {
		t.Run(d.ID, func(t *testing.T) {
			var got []string
			for _, a := range answers {
				before := deepCopy(a)
				out, ok := d.Apply(a)
				if !reflect.DeepEqual(a, before) {
					t.Errorf("%s: Apply changed its input", a.PromptID)
				}
				if !ok {
					continue
				}
				got = append(got, a.PromptID)
				if out.Content == a.Content && out.FinishReason == a.FinishReason && reflect.DeepEqual(out.ToolCalls, a.ToolCalls) {
					t.Errorf("%s: Apply reported a change and changed nothing", a.PromptID)
				}
				if len(out.ToolCalls) > 0 && len(a.ToolCalls) > 0 && &out.ToolCalls[0] == &a.ToolCalls[0] {
					t.Errorf("%s: the drifted answer shares its tool calls with the original", a.PromptID)
				}
				again, _ := d.Apply(a)
				if !reflect.DeepEqual(out, again) {
					t.Errorf("%s: Apply is not deterministic: %+v then %+v", a.PromptID, out, again)
				}
			}
			if strings.Join(got, ",") != strings.Join(want[d.ID], ",") {
				t.Errorf("applies to %v, want %v", got, want[d.ID])
			}
		})
	}
}

func deepCopy(r promptcanary.Response) promptcanary.Response {
	if r.ToolCalls != nil {
		calls := make([]promptcanary.ToolCall, len(r.ToolCalls))
		for i, c := range r.ToolCalls {
			c.Arguments = append(json.RawMessage(nil), c.Arguments...)
			calls[i] = c
		}
		r.ToolCalls = calls
	}
	r.RawResponse = append(json.RawMessage(nil), r.RawResponse...)
	return r
}

// TestDriftOutputs pins what some drifts write.
func TestDriftOutputs(t *testing.T) {
	apply := func(id string, r promptcanary.Response) promptcanary.Response {
		for _, d := range selftest.Catalogue() {
			if d.ID == id {
				out, ok := d.Apply(r)
				if !ok {
					t.Fatalf("%s does not apply to %q", id, r.Content)
				}
				return out
			}
		}
		t.Fatalf("no drift %s", id)
		return r
	}
	tests := []struct {
		drift string
		in    promptcanary.Response
		want  string
	}{
		{"keys_renamed", answers[0], `{"userName": "Ada", "Age": 36, "City": "London"}`},
		{"key_dropped", answers[0], `{"user_name": "Ada", "age": 36}`},
		{"keys_reordered", answers[0], `{"city": "London", "age": 36, "user_name": "Ada"}`},
		{"numbers_changed", answers[1], "Paris is the capital of France. It has 3 million people."},
		{"truncated", answers[1], "Paris is the capital of"},
		{"headers_removed", answers[2], "Tea\n\n1. Boil water.\n2. Add the tea bag.\n3. Wait three minutes."},
		{"steps_collapsed", answers[2], "# Tea Boil water. Add the tea bag. Wait three minutes."},
		{"json_fenced", answers[0], "```json\n" + answers[0].Content + "\n```"},
	}
	for _, tc := range tests {
		t.Run(tc.drift, func(t *testing.T) {
			if got := apply(tc.drift, tc.in).Content; got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	tr := apply("truncated", answers[1])
	if tr.FinishReason != "length" || tr.CompletionTokens >= answers[1].CompletionTokens {
		t.Errorf("truncated: got finish_reason %q and %d tokens, want length and fewer than %d", tr.FinishReason, tr.CompletionTokens, answers[1].CompletionTokens)
	}
	tool := apply("tool_renamed", answers[3])
	if tool.ToolCalls[0].Name != "fetch_weather" || answers[3].ToolCalls[0].Name != "get_weather" {
		t.Errorf("tool_renamed: got %q (original %q), want fetch_weather (get_weather)", tool.ToolCalls[0].Name, answers[3].ToolCalls[0].Name)
	}
	arg := apply("tool_arg_renamed", answers[3])
	if got := string(arg.ToolCalls[0].Arguments); got != `{"location": "Oslo", "unit": "C"}` {
		t.Errorf("tool_arg_renamed: got arguments %s, want location and unit", got)
	}
}

// TestSuggestionsLoad checks that every suggestion is a registered probe
// type whose parameters canary.yaml accepts, on the prompt it is for.
func TestSuggestionsLoad(t *testing.T) {
	res := runScaffold(t, selftest.Options{})
	n := 0
	for _, d := range res.Drifts {
		for _, g := range d.Gaps {
			n++
			s := g.Suggestion
			if _, err := probe.Lookup(s.ProbeType); err != nil {
				t.Errorf("drift %s suggests %q: %v", d.ID, s.ProbeType, err)
				continue
			}
			if s.Why == "" {
				t.Errorf("drift %s: suggestion %s says not why", d.ID, s)
			}
			var b strings.Builder
			b.WriteString("name: x\nprompts:\n  - id: p\n    text: hello\n    probes:\n")
			for _, l := range strings.Split(strings.TrimSuffix(s.YAML(), "\n"), "\n") {
				b.WriteString("      " + l + "\n")
			}
			if _, err := suite.Parse("canary.yaml", []byte(b.String())); err != nil {
				t.Errorf("drift %s: suggestion %s does not load:\n%s\n%v", d.ID, s, b.String(), err)
			}
		}
	}
	if n == 0 {
		t.Fatal("got no suggestion on the scaffolded suite, want some")
	}
}
