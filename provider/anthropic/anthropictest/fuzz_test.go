package anthropictest

import "testing"

// FuzzCheck feeds arbitrary bodies to the stand-in: Check must never
// panic, and a body it accepts must get an answer.
func FuzzCheck(f *testing.F) {
	f.Add([]byte(`{"model":"claude-sonnet-4-5","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`), "")
	f.Add([]byte(`{"anthropic_version":"vertex-2023-10-16","max_tokens":2000,"thinking":{"type":"enabled","budget_tokens":1024},"tools":[{"name":"f","input_schema":{"type":"object","required":["a"],"properties":{"a":{"type":"object"}}}}],"messages":[{"role":"user","content":"think hard"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[1]}]}]}`), "claude-opus-4-1@20250805")
	f.Add([]byte(`{"model":1,"messages":null}`), "")
	f.Fuzz(func(t *testing.T, body []byte, vertex string) {
		r, err := Check(body, vertex)
		if err == nil && len(Reply(r)) == 0 {
			t.Fatal("accepted request got no answer")
		}
	})
}
