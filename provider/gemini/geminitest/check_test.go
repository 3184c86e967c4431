package geminitest

import (
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

func TestCheckRejectsWhatTheAPIRejects(t *testing.T) {
	const user = `{"role":"user","parts":[{"text":"hi"}]}`
	const call = `{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}},{"functionCall":{"name":"g","args":{}}}]}`
	tests := []struct {
		name, model, body string
		vertex            bool
		want              string
	}{
		{"accepted", "gemini-2.5-flash", `{"contents":[` + user + `],"generationConfig":{"temperature":0,"maxOutputTokens":1024}}`, false, ""},
		{"single turn without role on the Gemini API", "gemini-2.5-flash", `{"contents":[{"parts":[{"text":"hi"}]}]}`, false, ""},
		{"turn without role on Vertex", "gemini-2.5-flash", `{"contents":[{"parts":[{"text":"hi"}]}]}`, true, "valid role"},
		{"unknown model", "gemini-9", `{"contents":[` + user + `]}`, false, "models/gemini-9 is not found"},
		{"snake_case top-level field", "gemini-2.5-flash", `{"contents":[` + user + `],"generation_config":{}}`, false, `Unknown name "generation_config": Cannot find field.`},
		{"max_tokens in generationConfig", "gemini-2.5-flash", `{"contents":[` + user + `],"generationConfig":{"max_tokens":5}}`, false, `Unknown name "max_tokens" at 'generation_config': Cannot find field.`},
		{"assistant role", "gemini-2.5-flash", `{"contents":[` + user + `,{"role":"assistant","parts":[{"text":"x"}]}]}`, false, "valid role: user, model"},
		{"empty parts", "gemini-2.5-flash", `{"contents":[{"role":"user","parts":[]}]}`, false, "parts must not be empty"},
		{"response without a call turn", "gemini-2.5-flash", `{"contents":[` + user + `,{"role":"model","parts":[{"text":"x"}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`, false, "immediately after a function call turn"},
		{"one response for two calls", "gemini-2.5-flash", `{"contents":[` + user + `,` + call + `,{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`, false, "number of function response parts"},
		{"responses for parallel calls", "gemini-2.5-flash", `{"contents":[` + user + `,` + call + `,{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}},{"functionResponse":{"name":"g","response":{"output":"x"}}}]}]}`, false, ""},
		{"response not an object", "gemini-2.5-flash", `{"contents":[` + user + `,` + call + `,{"role":"user","parts":[{"functionResponse":{"name":"f","response":"x"}}]}]}`, false, "Invalid JSON payload"},
		{"JSON Schema keyword in responseSchema", "gemini-2.5-flash", `{"contents":[` + user + `],"generationConfig":{"responseMimeType":"application/json","responseSchema":{"type":"object","additionalProperties":false}}}`, false, `Unknown name "additionalProperties" at 'generation_config.response_schema'`},
		{"JSON Schema in responseJsonSchema", "gemini-2.5-flash", `{"contents":[` + user + `],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object","additionalProperties":false}}}`, false, ""},
		{"schema without the JSON MIME type", "gemini-2.5-flash", `{"contents":[` + user + `],"generationConfig":{"responseSchema":{"type":"object"}}}`, false, "response_mime_type"},
		{"thinking off on 2.5 Pro", "gemini-2.5-pro", `{"contents":[` + user + `],"generationConfig":{"thinkingConfig":{"thinkingBudget":0}}}`, false, "only works in thinking mode"},
		{"maxOutputTokens above the model's", "gemini-2.0-flash", `{"contents":[` + user + `],"generationConfig":{"maxOutputTokens":10000}}`, false, "out of range"},
		{"function calling with JSON output on 2.5", "gemini-2.5-flash", `{"contents":[` + user + `],"tools":[{"functionDeclarations":[{"name":"f"}]}],"generationConfig":{"responseMimeType":"application/json"}}`, false, "Function calling with a response mime type"},
		{"seed beyond 32 bits", "gemini-2.5-flash", `{"contents":[` + user + `],"generationConfig":{"seed":4294967296}}`, false, "TYPE_INT32"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Check([]byte(tc.body), tc.model, tc.vertex)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("got %v, want accepted", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Message, tc.want)):
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestThinkingWithinMaxOutputTokens(t *testing.T) {
	r, err := Check([]byte(`{"contents":[{"role":"user","parts":[{"text":"think hard"}]}],"generationConfig":{"maxOutputTokens":1024}}`), "gemini-2.5-pro", false)
	if err != nil {
		t.Fatal(err)
	}
	got := string(Reply(r))
	for _, want := range []string{`"content":{"role":"model"}`, `"finishReason":"MAX_TOKENS"`, `"thoughtsTokenCount":1024`} {
		if !strings.Contains(got, want) {
			t.Errorf("got %s, want it to contain %s", got, want)
		}
	}
}

func TestServerRequiresTheKeyHeader(t *testing.T) {
	srv := NewServer("gk-123456789")
	defer srv.Close()
	body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
	for _, tc := range []struct {
		name, url, key string
		status         int
	}{
		{"key in header", "/v1beta/models/gemini-2.5-flash:generateContent", "gk-123456789", 200},
		{"no key", "/v1beta/models/gemini-2.5-flash:generateContent", "", 403},
		{"key in the query is not taken", "/v1beta/models/gemini-2.5-flash:generateContent?key=gk-123456789", "", 403},
		{"wrong key", "/v1beta/models/gemini-2.5-flash:generateContent", "nope-123456", 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, got := providertest.Post(t, srv.URL+tc.url, body, map[string]string{"Content-Type": "application/json", "x-goog-api-key": tc.key})
			if resp.StatusCode != tc.status {
				t.Errorf("got %d %s, want %d", resp.StatusCode, got, tc.status)
			}
		})
	}
}
