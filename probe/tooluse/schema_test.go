package tooluse

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

func TestSchemaScore(t *testing.T) {
	tests := []struct {
		name       string
		schema     map[string]any
		content    string
		calls      []promptcanary.ToolCall
		wantName   any // nil when no name is set
		wantArgs   float64
		wantTypes  float64
		wantScore  float64
		wantPass   bool
		wantSource string
	}{
		{"perfect call", map[string]any{"name": "search", "required_args": []any{"q"}, "arg_types": map[string]any{"q": "string"}},
			`{"name": "search", "arguments": {"q": "go"}}`, nil, 1.0, 1, 1, 1, true, "json"},
		{"no name set gives full name credit", map[string]any{"required_args": []any{"q"}},
			`{"name": "other", "arguments": {"q": "go"}}`, nil, nil, 1, 1, 1, true, "json"},
		{"wrong name scores 0.3", map[string]any{"name": "search", "required_args": []any{"q"}},
			`{"name": "other", "arguments": {"q": "go"}}`, nil, 0.3, 1, 1, 0.72, false, "json"},
		{"no call at all", map[string]any{"name": "search", "required_args": []any{"q"}},
			"I don't know.", nil, 0.0, 0, 1, 0.2, false, "none"},
		{"type score 1 without arg_types", map[string]any{"name": "search"},
			`Calling "name": "search"`, nil, 1.0, 1, 1, 1, true, "text"},
		{"type score 0 when content is not json", map[string]any{"name": "search", "required_args": []any{"q"}, "arg_types": map[string]any{"q": "string"}},
			`Calling {"name": "search", "arguments": {"q": "go"}}`, nil, 1.0, 1, 0, 0.8, false, "text"},
		{"type score 0.5 without an argument object", map[string]any{"name": "search", "arg_types": map[string]any{"q": "string"}},
			`{"name": "search"}`, nil, 1.0, 1, 0.5, 0.9, true, "json"},
		{"type score 0.5 with empty arguments", map[string]any{"name": "search", "arg_types": map[string]any{"q": "string"}},
			`{"name": "search", "arguments": {}}`, nil, 1.0, 1, 0.5, 0.9, true, "json"},
		{"type fraction", map[string]any{"name": "search", "required_args": []any{"q"}, "arg_types": map[string]any{"q": "string", "n": "integer"}},
			`{"name": "search", "arguments": {"q": "go", "n": "5"}}`, nil, 1.0, 1, 0.5, 0.9, true, "json"},
		{"missing typed arg counts as wrong", map[string]any{"name": "search", "required_args": []any{"q"}, "arg_types": map[string]any{"q": "string", "n": "integer"}},
			`{"name": "search", "arguments": {"q": "go"}}`, nil, 1.0, 1, 0.5, 0.9, true, "json"},
		{"pass boundary 0.85", map[string]any{"name": "search", "required_args": []any{"a"}, "arg_types": map[string]any{"a": "string", "b": "integer", "c": "boolean", "d": "array"}},
			`{"name": "search", "arguments": {"a": "x", "b": "2", "c": "true", "d": {}}}`, nil, 1.0, 1, 0.25, 0.85, true, "json"},
		{"below boundary", map[string]any{"name": "search", "required_args": []any{"a"}, "arg_types": map[string]any{"a": "integer", "b": "integer", "c": "boolean", "d": "array"}},
			`{"name": "search", "arguments": {"a": "x", "b": "2", "c": "true", "d": {}}}`, nil, 1.0, 1, 0, 0.8, false, "json"},
		{"boundary with partial args and types", map[string]any{"name": "search", "required_args": []any{"a", "b", "c", "z"}, "arg_types": map[string]any{"a": "string", "b": "string", "c": "string", "z": "string"}},
			`{"name": "search", "arguments": {"a": "x", "b": "y", "c": "z"}}`, nil, 1.0, 0.75, 0.75, 0.85, true, "json"},
		{"forbidden arg", map[string]any{"name": "search", "required_args": []any{"q"}, "forbidden_args": []any{"api_key"}},
			`{"name": "search", "arguments": {"q": "go", "api_key": "k"}}`, nil, 1.0, 0.5, 1, 0.8, false, "json"},
		{"optional args do not change the score", map[string]any{"name": "search", "required_args": []any{"q"}, "optional_args": []any{"limit"}},
			`{"name": "search", "arguments": {"q": "go"}}`, nil, 1.0, 1, 1, 1, true, "json"},
		// Unlike the reference (args score 0, total 0.6, a fail), keys present
		// with none required give full args credit (probe/DEVIATIONS.md).
		{"keys with none required", map[string]any{"name": "search"},
			`{"name": "search", "arguments": {"q": "go"}}`, nil, 1.0, 1, 1, 1, true, "json"},
		{"keys with none required, forbidden present", map[string]any{"name": "search", "forbidden_args": []any{"q"}},
			`{"name": "search", "arguments": {"q": "go"}}`, nil, 1.0, 0.5, 1, 0.8, false, "json"},
		// Improvement over the reference: a JSON-string arguments value is typed.
		{"openai string arguments are typed", map[string]any{"name": "search", "required_args": []any{"q", "n"}, "arg_types": map[string]any{"q": "string", "n": "integer"}},
			`{"tool_calls": [{"function": {"name": "search", "arguments": "{\"q\": \"go\", \"n\": 3}"}}]}`, nil, 1.0, 1, 1, 1, true, "json"},
		{"simple format", map[string]any{"name": "search", "required_args": []any{"q"}, "arg_types": map[string]any{"q": "str"}},
			`{"function": "search", "args": {"q": "go"}}`, nil, 1.0, 1, 1, 1, true, "json"},
		{"anthropic format", map[string]any{"name": "search", "required_args": []any{"q"}, "arg_types": map[string]any{"q": "str"}},
			`{"type": "tool_use", "name": "search", "input": {"q": "go"}}`, nil, 1.0, 1, 1, 1, true, "json"},
		// The first argument object depth-first, in document order.
		{"first call of a list is typed", map[string]any{"arg_types": map[string]any{"n": "integer"}},
			`[{"name": "f", "input": {"n": 1}}, {"name": "g", "input": {"n": "x"}}]`, nil, nil, 1, 1, 1, true, "json"},
		{"document order, not key order", map[string]any{"arg_types": map[string]any{"n": "integer"}},
			`{"b": {"input": {"n": "x"}}, "a": {"input": {"n": 1}}}`, nil, nil, 1, 0, 0.8, false, "json"},
		{"own containers before nested values", map[string]any{"arg_types": map[string]any{"n": "integer"}},
			`{"x": {"input": {"n": "s"}}, "args": {"n": 1}}`, nil, nil, 1, 1, 1, true, "json"},
		{"empty container skipped", map[string]any{"arg_types": map[string]any{"n": "integer"}},
			`{"arguments": {}, "parameters": {"n": 1}}`, nil, nil, 1, 1, 1, true, "json"},
		// Structured calls.
		{"structured call", map[string]any{"name": "search", "required_args": []any{"q"}, "arg_types": map[string]any{"q": "string"}},
			`{"name": "other", "arguments": {"x": 1}}`, []promptcanary.ToolCall{call("search", `{"q": "go"}`)}, 1.0, 1, 1, 1, true, "structured"},
		{"structured string arguments", map[string]any{"name": "search", "required_args": []any{"n"}, "arg_types": map[string]any{"n": "int"}},
			"", []promptcanary.ToolCall{call("search", `"{\"n\": 2}"`)}, 1.0, 1, 1, 1, true, "structured"},
		{"structured types use the first call", map[string]any{"name": "search", "required_args": []any{"n"}, "arg_types": map[string]any{"n": "int"}},
			"", []promptcanary.ToolCall{call("search", `{"n": "two"}`), call("search", `{"n": 2}`)}, 1.0, 1, 0, 0.8, false, "structured"},
		{"structured invalid arguments", map[string]any{"name": "search", "arg_types": map[string]any{"n": "int"}},
			`{"arguments": {"n": 1}}`, []promptcanary.ToolCall{call("search", `{"n": 2`)}, 1.0, 1, 0, 0.8, false, "structured"},
		{"structured string arguments not json", map[string]any{"name": "search", "arg_types": map[string]any{"n": "int"}},
			"", []promptcanary.ToolCall{call("search", `"{n: 2}"`)}, 1.0, 1, 0, 0.8, false, "structured"},
		{"structured no arguments", map[string]any{"name": "search", "arg_types": map[string]any{"n": "int"}},
			"", []promptcanary.ToolCall{call("search", "")}, 1.0, 1, 0.5, 0.9, true, "structured"},
		{"structured wrong name", map[string]any{"name": "search"},
			`{"name": "search"}`, []promptcanary.ToolCall{call("lookup", "")}, 0.3, 1, 1, 0.72, false, "structured"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := run(build(t, "tool_call_schema", map[string]any{"schema": tc.schema}), tc.content, tc.calls...)
			cs := res.Metadata["component_scores"].(map[string]any)
			if cs["name"] != tc.wantName {
				t.Errorf("name component: got %v, want %v", cs["name"], tc.wantName)
			}
			if !near(cs["args"].(float64), tc.wantArgs) {
				t.Errorf("args component: got %v, want %v", cs["args"], tc.wantArgs)
			}
			if !near(cs["types"].(float64), tc.wantTypes) {
				t.Errorf("types component: got %v, want %v", cs["types"], tc.wantTypes)
			}
			if !near(res.Score, tc.wantScore) {
				t.Errorf("score: got %v, want %v", res.Score, tc.wantScore)
			}
			if res.Passed != tc.wantPass {
				t.Errorf("passed: got %v, want %v (%s)", res.Passed, tc.wantPass, res.Details)
			}
			if got := res.Metadata["source"]; got != tc.wantSource {
				t.Errorf("source: got %v, want %v", got, tc.wantSource)
			}
			if len(res.Metadata) != 3 {
				t.Errorf("metadata keys: got %v, want schema, component_scores, source", res.Metadata)
			}
			checkJSONFriendly(t, res.Metadata)
		})
	}
}

func TestSchemaTypes(t *testing.T) {
	tests := []struct {
		typ   string
		value string
		want  bool
	}{
		{"string", `"x"`, true}, {"str", `"x"`, true}, {"string", `1`, false},
		{"integer", `3`, true}, {"int", `-3`, true}, {"integer", `3.0`, true}, {"integer", `1e2`, true},
		{"integer", `3.5`, false}, {"integer", `true`, false}, {"integer", `"3"`, false}, {"integer", `1e400`, false},
		{"number", `3`, true}, {"float", `3`, true}, {"number", `3.5`, true}, {"float", `-1e-3`, true},
		{"number", `false`, false}, {"number", `"3.5"`, false},
		{"boolean", `true`, true}, {"bool", `false`, true}, {"boolean", `0`, false}, {"boolean", `"true"`, false},
		{"array", `[]`, true}, {"list", `[1, "a"]`, true}, {"array", `{}`, false},
		{"object", `{}`, true}, {"dict", `{"a": 1}`, true}, {"object", `[]`, false}, {"object", `null`, false},
	}
	for _, tc := range tests {
		t.Run(tc.typ+"/"+tc.value, func(t *testing.T) {
			p := build(t, "tool_call_schema", map[string]any{"schema": map[string]any{
				"required_args": []any{"v"}, "arg_types": map[string]any{"v": tc.typ}}})
			res := run(p, `{"name": "f", "arguments": {"other": 1, "v": `+tc.value+`}}`)
			got := res.Metadata["component_scores"].(map[string]any)["types"].(float64) == 1
			if got != tc.want {
				t.Errorf("%s matches %s: got %v, want %v (%s)", tc.value, tc.typ, got, tc.want, res.Details)
			}
		})
	}
}

func TestSchemaMetadata(t *testing.T) {
	p := build(t, "tool_call_schema", map[string]any{"schema": map[string]any{
		"name":           "search",
		"required_args":  []any{"q"},
		"optional_args":  []any{"limit"},
		"forbidden_args": []any{"api_key"},
		"arg_types":      map[string]any{"q": "str", "limit": "int"},
	}})
	res := run(p, `{"name": "search", "arguments": {"q": "go", "limit": 2.5}}`)
	want := map[string]any{
		"name":           "search",
		"required_args":  []string{"q"},
		"optional_args":  []string{"limit"},
		"forbidden_args": []string{"api_key"},
		"arg_types":      map[string]any{"q": "string", "limit": "integer"},
	}
	if got := res.Metadata["schema"]; !reflect.DeepEqual(got, want) {
		t.Errorf("schema: got %#v, want %#v", got, want)
	}
	if want := `types: 1 of 2 argument type(s) correct; missing or wrong: "limit".`; !strings.Contains(res.Details, want) {
		t.Errorf("details: got %q, want it to contain %q", res.Details, want)
	}
	// Results share the schema's metadata, rendered once: metadata is
	// read-only.
	again := run(p, `{}`)
	if got := again.Metadata["schema"]; !reflect.DeepEqual(got, want) {
		t.Errorf("schema of a later result: got %#v, want %#v", got, want)
	}
}

func TestSchemaBuiltDirectly(t *testing.T) {
	// A Go user may fill ArgTypes with aliases; they read as the type named.
	p := &Schema{ToolName: "search", RequiredArgs: []string{"n"}, ArgTypes: map[string]ArgType{"n": "int", "bad": "widget"}}
	res := run(p, `{"name": "search", "arguments": {"n": 1, "bad": 1}}`)
	if got := res.Metadata["component_scores"].(map[string]any)["types"]; got != 0.5 {
		t.Errorf("types: got %v, want 0.5 (the unknown type matches nothing)", got)
	}
	md := res.Metadata["schema"].(map[string]any)
	if got := md["optional_args"].([]string); got == nil || len(got) != 0 {
		t.Errorf("optional_args: got %#v, want an empty list", got)
	}
}

// TestSchemaSharesResultsByShape: a Schema built from canary.yaml judges
// an answer whose call has the shape of an earlier one (names, argument
// keys, which types hold) by a lookup, and the result is the one built
// afresh; an answer of another shape is judged anew.
func TestSchemaSharesResultsByShape(t *testing.T) {
	p := build(t, "tool_call_schema", map[string]any{"schema": map[string]any{
		"name": "get_weather", "required_args": []any{"city"}, "forbidden_args": []any{"api_key"},
		"arg_types": map[string]any{"city": "string", "days": "integer"}}})
	prompt := &promptcanary.Prompt{ID: "p"}
	answers := []string{
		`{"name": "get_weather", "arguments": {"city": "Oslo", "days": 3}}`,
		`{"name": "get_weather", "arguments": {"city": "Paris", "days": 5}}`,                // the same shape
		`{"name": "get_weather", "arguments": {"city": "Oslo", "days": "3"}}`,               // a type differs
		`{"name": "get_forecast", "arguments": {"city": "Oslo", "days": 3}}`,                // the name differs
		`{"name": "get_weather", "arguments": {"city": "Oslo", "days": 3, "api_key": "k"}}`, // only a key differs
		`Calling get_weather with "city": "Oslo"`,                                           // text
		`{"name": "get_weather", "arguments": {"city": "Oslo", "days": 3}}`,                 // the first again
		`{"name": "get_weather", "arguments": "{\"city\": \"Oslo\", \"days\": 3}"}`,         // arguments as a string
	}
	var results []probe.Result
	for _, a := range answers {
		r := &promptcanary.Response{Content: a}
		res := p.Evaluate(context.Background(), probe.Input{Prompt: prompt, Response: r})
		checkUncached(t, p, prompt, r, res)
		results = append(results, res)
	}
	if results[0].Details != results[1].Details || !results[1].Passed {
		t.Errorf("the same shape: %q and %q", results[0].Details, results[1].Details)
	}
	for i := 2; i <= 4; i++ {
		if results[i].Score == results[0].Score {
			t.Errorf("answer %d (%s) scored as the first: %v", i, answers[i], results[i].Score)
		}
	}
}
