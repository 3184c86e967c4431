package anthropictest

import (
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

func TestCheckRejectsWhatTheAPIRejects(t *testing.T) {
	const ok = `"model":"claude-sonnet-4-5","max_tokens":100`
	tests := []struct {
		name, body, vertex, want string
	}{
		{"accepted", `{` + ok + `,"messages":[{"role":"user","content":"hi"}]}`, "", ""},
		{"no max_tokens", `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"hi"}]}`, "", "max_tokens: Field required"},
		{"no model", `{"max_tokens":1,"messages":[{"role":"user","content":"hi"}]}`, "", "model: Field required"},
		{"unknown model", `{"model":"claude-9","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}`, "", "model: claude-9"},
		{"max_tokens above the model's output", `{"model":"claude-opus-4-1","max_tokens":64000,"messages":[{"role":"user","content":"hi"}]}`, "", "maximum allowed number of output tokens"},
		{"unknown field", `{` + ok + `,"seed":1,"messages":[{"role":"user","content":"hi"}]}`, "", "seed: Extra inputs are not permitted"},
		{"roles in a row", `{` + ok + `,"messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}]}`, "", "roles must alternate"},
		{"system role in messages", `{` + ok + `,"messages":[{"role":"system","content":"a"}]}`, "", "messages.0.role"},
		{"first turn assistant", `{` + ok + `,"messages":[{"role":"assistant","content":"a"}]}`, "", "first message must use the \"user\" role"},
		{"empty text", `{` + ok + `,"messages":[{"role":"user","content":[{"type":"text","text":""}]}]}`, "", "must be non-empty"},
		{"tool_result answering nothing", `{` + ok + `,"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"r"}]}]}`, "", "unexpected `tool_use_id`"},
		{"tool_use left unanswered", `{` + ok + `,"messages":[{"role":"user","content":"a"},
			{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},{"role":"user","content":"next"}]}`, "", "without `tool_result` blocks"},
		{"text before a tool_result", `{` + ok + `,"messages":[{"role":"user","content":"a"},
			{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},
			{"role":"user","content":[{"type":"text","text":"and"},{"type":"tool_result","tool_use_id":"t1"}]}]}`, "", "must be at the beginning"},
		{"temperature with top_p", `{` + ok + `,"temperature":0,"top_p":0.9,"messages":[{"role":"user","content":"hi"}]}`, "", "temperature and top_p cannot both be specified for this model. Please use only one."},
		{"temperature with top_p on an older model", `{"model":"claude-sonnet-4-0","max_tokens":10,"temperature":0,"top_p":0.9,"messages":[{"role":"user","content":"hi"}]}`, "", ""},
		{"thinking with temperature 0", `{"model":"claude-sonnet-4-5","max_tokens":2000,"temperature":0,"thinking":{"type":"enabled","budget_tokens":1024},"messages":[{"role":"user","content":"hi"}]}`, "", "may only be set to 1"},
		{"thinking with a forced tool", `{"model":"claude-sonnet-4-5","max_tokens":2000,"thinking":{"type":"enabled","budget_tokens":1024},
			"tools":[{"name":"f","input_schema":{"type":"object"}}],"tool_choice":{"type":"any"},"messages":[{"role":"user","content":"hi"}]}`, "", "forces tool use"},
		{"tool_choice without tools", `{` + ok + `,"tool_choice":{"type":"auto"},"messages":[{"role":"user","content":"hi"}]}`, "", "only be specified while providing tools"},
		{"vertex body with a model", `{` + ok + `,"anthropic_version":"vertex-2023-10-16","messages":[{"role":"user","content":"hi"}]}`, "claude-sonnet-4-5@20250929", "model: Extra inputs"},
		{"vertex body without anthropic_version", `{"max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, "claude-sonnet-4-5@20250929", "anthropic_version"},
		{"vertex body accepted", `{"anthropic_version":"vertex-2023-10-16","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, "claude-sonnet-4-5@20250929", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Check([]byte(tc.body), tc.vertex)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("got %v, want accepted", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Message, tc.want)):
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestServerRequiresHeaders(t *testing.T) {
	srv := NewServer("k-123456789")
	defer srv.Close()
	body := `{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`
	tests := []struct {
		name   string
		header map[string]string
		status int
		want   string
	}{
		{"all headers", map[string]string{"x-api-key": "k-123456789", "anthropic-version": "2023-06-01", "content-type": "application/json"}, 200, `"type":"message"`},
		{"no key", map[string]string{"anthropic-version": "2023-06-01", "content-type": "application/json"}, 401, "authentication_error"},
		{"no version", map[string]string{"x-api-key": "k-123456789", "content-type": "application/json"}, 400, "anthropic-version: header is required"},
		{"no content type", map[string]string{"x-api-key": "k-123456789", "anthropic-version": "2023-06-01"}, 400, "content-type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, got := providertest.Post(t, srv.URL+"/v1/messages", body, tc.header)
			if resp.StatusCode != tc.status || !strings.Contains(string(got), tc.want) {
				t.Errorf("got %d %s, want %d with %q", resp.StatusCode, got, tc.status, tc.want)
			}
		})
	}
}
