package ratelimittest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestStandinIsStrict: the stand-in refuses what the real API refuses,
// with the real API's status and message.
func TestStandinIsStrict(t *testing.T) {
	srv := Start(Config{Key: "sk-k"})
	defer srv.Close()
	ok := `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"temperature":0,"max_tokens":16,"seed":7}`
	tests := []struct {
		name, path, key, body string
		status                int
		msg                   string
	}{
		{"valid", "/v1/chat/completions", "sk-k", ok, 200, `"object":"chat.completion"`},
		{"wrong key", "/v1/chat/completions", "sk-x", ok, 401, "Incorrect API key provided"},
		{"wrong path", "/v1/completions", "sk-k", ok, 404, "Invalid URL"},
		{"unknown parameter", "/v1/chat/completions", "sk-k", `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_output_tokens":5}`, 400, "Unrecognized request argument supplied: max_output_tokens"},
		{"no model", "/v1/chat/completions", "sk-k", `{"messages":[{"role":"user","content":"hi"}]}`, 400, "you must provide a model parameter"},
		{"no messages", "/v1/chat/completions", "sk-k", `{"model":"m","messages":[]}`, 400, "empty array"},
		{"bad role", "/v1/chat/completions", "sk-k", `{"model":"m","messages":[{"role":"bot","content":"hi"}]}`, 400, "Invalid value: 'bot'"},
		{"temperature too high", "/v1/chat/completions", "sk-k", `{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":3}`, 400, "Invalid 'temperature': decimal above maximum value"},
		{"both token limits", "/v1/chat/completions", "sk-k", `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":1,"max_completion_tokens":1}`, 400, "at the same time is not supported"},
		{"tool message without id", "/v1/chat/completions", "sk-k", `{"model":"m","messages":[{"role":"tool","content":"x"}]}`, 400, "tool_call_id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", srv.URL+tc.path, strings.NewReader(tc.body))
			req.Header.Set("Authorization", "Bearer "+tc.key)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || !strings.Contains(string(b), tc.msg) {
				t.Errorf("got %d %s, want %d with %q", resp.StatusCode, b, tc.status, tc.msg)
			}
		})
	}
}

// TestRefusedShare: exactly Percent of every 100 requests is refused,
// spread out.
func TestRefusedShare(t *testing.T) {
	for _, p := range []int{0, 30, 100} {
		n := 0
		for i := range int64(100) {
			if refused(i, p) {
				n++
			}
		}
		if n != p {
			t.Errorf("%d%%: refused %d of 100", p, n)
		}
	}
	if refused(0, 30) || refused(1, 30) || !refused(3, 30) {
		t.Errorf("30%%: want the refusals spread out, not the first requests")
	}
}
