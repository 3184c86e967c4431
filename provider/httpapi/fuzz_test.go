package httpapi

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzBodyTemplate checks that any prompt and system text yields a valid
// JSON body that decodes back to the same text, whatever quotes, braces,
// control characters or placeholder-like text it holds.
func FuzzBodyTemplate(f *testing.F) {
	f.Add("hello", "be brief", "p1")
	f.Add(trickyPrompt, "{{prompt}}", `"}`)
	f.Add("\x00\x1f\x7f\u2028\u2029", "\\\"\\", "\n")
	f.Add("\xff\xfe invalid", "{{ system }}", "{{temperature}}")
	tmpl, err := compileTemplate(map[string]any{
		"exact":  "{{prompt}}",
		"mixed":  "<{{prompt}}|{{system}}|{{prompt_id}}|{{sample}}>",
		"nested": []any{map[string]any{"sys": "{{system}}", "id": "{{prompt_id}}"}},
		"n":      "{{max_tokens}}",
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, prompt, system, id string) {
		v := vars{prompt: prompt, system: system, promptID: id, sample: 2, maxTokens: 10, temperature: 0.5}
		body, err := tmpl.render(nil, &v, map[string]any{"x": prompt})
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(body) {
			t.Fatalf("body is not valid JSON: %q", body)
		}
		var got struct {
			Exact  string
			Mixed  string
			Nested []struct{ Sys, ID string }
			N      int
			X      string
		}
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		want := func(s string) string { return canonical(t, s) }
		p, s, i := want(prompt), want(system), want(id)
		if got.Exact != p || got.X != p {
			t.Errorf("got prompt %q and %q, want %q", got.Exact, got.X, p)
		}
		if m := "<" + p + "|" + s + "|" + i + "|2>"; got.Mixed != m {
			t.Errorf("got mixed %q, want %q", got.Mixed, m)
		}
		if len(got.Nested) != 1 || got.Nested[0].Sys != s || got.Nested[0].ID != i {
			t.Errorf("got nested %+v, want sys %q id %q", got.Nested, s, i)
		}
		if got.N != 10 {
			t.Errorf("got max_tokens %d, want 10", got.N)
		}
	})
}

// canonical is what a JSON round trip makes of s: invalid UTF-8 bytes
// become U+FFFD, as encoding/json does.
func canonical(t *testing.T, s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var out string
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// FuzzDecode checks that no response body makes the decoder panic, and
// that a body it accepts keeps its raw JSON.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"choices":[{"message":{"content":"hi","tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":"2"},"model":"m"}`))
	f.Add([]byte(`{"choices":[]}`))
	f.Add([]byte(`{"choices":[{"message":null}]}`))
	f.Add([]byte(`[1,2,3]`))
	f.Add([]byte(`plain text`))
	f.Add([]byte(`{"choices":[{"message":{"content":"tr`))
	clients := make([]*Client, 0, 2)
	for _, p := range []Paths{
		{Text: "choices.-1.message.content", PromptTokens: "usage.prompt_tokens", CompletionTokens: "usage.completion_tokens",
			FinishReason: "choices.0.finish_reason", Model: "model", ToolCalls: "choices.0.message.tool_calls"},
		{Text: "."},
	} {
		c, err := New("fuzz", Config{URL: "http://127.0.0.1:1", Response: p}, nil)
		if err != nil {
			f.Fatal(err)
		}
		clients = append(clients, c)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, c := range clients {
			resp, err := c.decode(body)
			if err != nil {
				continue
			}
			if resp.RawResponse != nil && !json.Valid(resp.RawResponse) {
				t.Errorf("RawResponse %q is not valid JSON", resp.RawResponse)
			}
			for _, tc := range resp.ToolCalls {
				if tc.Arguments != nil && !json.Valid(tc.Arguments) {
					t.Errorf("arguments %q are not valid JSON", tc.Arguments)
				}
			}
		}
	})
}
