package tooluse

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

// fuzzProbes covers every probe and strategy, with types of every kind.
func fuzzProbes(t testing.TB) []probe.Probe {
	return []probe.Probe{
		build(t, "tool_call_presence", nil),
		build(t, "tool_call_presence", map[string]any{"strategy": "json", "expect_tool_call": false}),
		build(t, "tool_call_presence", map[string]any{"strategy": "text"}),
		build(t, "tool_call_name", map[string]any{"expected_name": "search", "allow_aliases": []any{"find"}}),
		build(t, "tool_call_args", map[string]any{"required_args": []any{"q", "n"}, "forbidden_args": []any{"key"}}),
		// Configurations New rejects as checking nothing, still safe to run.
		&Args{Required: []string{}, Forbidden: []string{}},
		build(t, "tool_call_schema", map[string]any{"schema": map[string]any{
			"name": "search", "required_args": []any{"q"}, "forbidden_args": []any{"key"},
			"arg_types": map[string]any{"q": "string", "n": "int", "x": "number", "b": "bool", "l": "list", "o": "dict"}}}),
		&Schema{RequiredArgs: []string{}, OptionalArgs: []string{}, ForbiddenArgs: []string{}, ArgTypes: map[string]ArgType{}},
	}
}

var validSources = map[any]bool{"structured": true, "json": true, "text": true, "none": true}

func FuzzToolCallExtraction(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*_*.*"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil && filepath.Ext(file) != ".yaml" {
			f.Add(string(b), "", []byte(nil))
		}
	}
	f.Add(`{"name": "search", "arguments": "{\"q\": \"x\", \"n\": 3.0}"}`, "search", []byte(`{"q": 1, "n": true}`))
	f.Add(`[{"function": {"name": 1}}, {"function": "x"}, {"tool_calls": {}}]`, "", []byte(`"{\"q\": \"x\"}"`))
	f.Add(`{"input": {"input": {"input": "{\"a\": [1, {\"args\": {}}]}"}}}`, "find", []byte(`"not json`))
	f.Add(`"name": "x", "arguments" functions.f( <tool_call>`, "x", []byte(`null`))
	f.Add(`{"a": 1e400, "args": {"n": -0.0e-0}}`, "", []byte(`{"n": 1e400}`))
	f.Fuzz(func(t *testing.T, content, name string, args []byte) {
		probes := fuzzProbes(t)
		prompt := &promptcanary.Prompt{ID: "p"}
		responses := []*promptcanary.Response{
			{Content: content},
			{Content: content, ToolCalls: []promptcanary.ToolCall{{Name: name, Arguments: args}, {Name: content, Arguments: json.RawMessage(content)}}},
		}
		for _, r := range responses {
			for _, p := range probes {
				// Evaluate directly: a panic must fail the fuzz test, not be recovered.
				res := p.Evaluate(context.Background(), probe.Input{Prompt: prompt, Response: r})
				if math.IsNaN(res.Score) || res.Score < 0 || res.Score > 1 {
					t.Fatalf("%T: score %v outside [0,1]", p, res.Score)
				}
				if res.Details == "" {
					t.Fatalf("%T: empty details", p)
				}
				if !validSources[res.Metadata["source"]] {
					t.Fatalf("%T: source %v", p, res.Metadata["source"])
				}
				if len(r.ToolCalls) > 0 && res.Metadata["source"] != "structured" {
					t.Fatalf("%T: source %v with structured calls", p, res.Metadata["source"])
				}
				if _, err := json.Marshal(res.Metadata); err != nil {
					t.Fatalf("%T: metadata not JSON: %v", p, err)
				}
				for k, v := range res.Metadata {
					if s, ok := v.([]string); ok && s == nil {
						t.Fatalf("%T: metadata %s is a nil slice", p, k)
					}
				}
				checkUncached(t, p, prompt, r, res)
			}
		}
	})
}

// checkUncached checks res, the result of p (a Schema built from
// canary.yaml, which may have answered from its results of earlier calls
// of the same shape), against a Schema of the same fields built directly,
// which caches nothing.
func checkUncached(t *testing.T, p probe.Probe, prompt *promptcanary.Prompt, r *promptcanary.Response, res probe.Result) {
	t.Helper()
	s, ok := p.(*Schema)
	if !ok || s.results == nil {
		return
	}
	fresh := &Schema{ToolName: s.ToolName, RequiredArgs: s.RequiredArgs, OptionalArgs: s.OptionalArgs,
		ForbiddenArgs: s.ForbiddenArgs, ArgTypes: s.ArgTypes}
	if want := fresh.Evaluate(context.Background(), probe.Input{Prompt: prompt, Response: r}); !reflect.DeepEqual(res, want) {
		t.Fatalf("tool_call_schema on %q: got %+v, built afresh %+v", r.Content, res, want)
	}
}

// FuzzParseJSON checks the order-keeping parser against encoding/json.
func FuzzParseJSON(f *testing.F) {
	seeds := []string{`{"a": [1, 2.5, "x", true, null, {}]}`, `"\u00e9\ud800"`, `[]`, `{"a": 1, "a": {"b": 2}}`, "\"\xff\"", `1e400`, `{`}
	fuzzStrings(f, seeds, func(t *testing.T, s string) {
		n, ok := parseJSON(s)
		if ok != json.Valid([]byte(s)) {
			t.Fatalf("parseJSON ok %v, json.Valid %v", ok, !ok)
		}
		if !ok {
			return
		}
		want, _ := decodeStd(s)
		if got := toAny(&n); !reflect.DeepEqual(got, want) {
			t.Fatalf("tree:\ngot  %#v\nwant %#v", got, want)
		}
	})
}
