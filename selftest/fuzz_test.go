package selftest_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/selftest"
)

// FuzzApply applies every drift to arbitrary model output and tool-call
// arguments: no drift may panic, modify its input or give two answers.
func FuzzApply(f *testing.F) {
	for _, a := range answers {
		args := ""
		if len(a.ToolCalls) > 0 {
			args = string(a.ToolCalls[0].Arguments)
		}
		f.Add(a.Content, args)
	}
	f.Add(`{"a":1}{"b":2}`, `{"":`)
	f.Add("```json\n{\"k\": [1, {\"x\": null}]}\n```", `[1,2]`)
	f.Fuzz(func(t *testing.T, content, args string) {
		r := promptcanary.Response{Content: content, CompletionTokens: 7}
		if args != "" {
			r.ToolCalls = []promptcanary.ToolCall{{Name: "get_x", Arguments: json.RawMessage(args)}}
		}
		for _, d := range selftest.Catalogue() {
			before := deepCopy(r)
			out, ok := d.Apply(r)
			if !reflect.DeepEqual(r, before) {
				t.Fatalf("%s changed its input", d.ID)
			}
			again, ok2 := d.Apply(r)
			if ok != ok2 || !reflect.DeepEqual(out, again) {
				t.Fatalf("%s is not deterministic on %q", d.ID, content)
			}
			if ok {
				_ = d.Suggest(&promptcanary.Prompt{ID: "p"}, []promptcanary.Response{r})
			}
		}
	})
}
