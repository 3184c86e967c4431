package runner

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/provider"
	_ "github.com/promptcanary/promptcanary/provider/openai"
)

// TestRunHoldsNoKey is the regression test for a key echoed back in a 200
// response (the answer text and the model field): it was stored verbatim.
// The run engine scrubs each response as it comes, before the probes.
// A model that quotes the key's first 20 characters, or the key
// upper-cased, leaks it as surely: any run of redact.MinRun of its
// characters, in any case, is scrubbed too.
func TestRunHoldsNoKey(t *testing.T) {
	tests := []struct {
		name string
		echo func(key string) string
	}{
		{"exact", func(k string) string { return k }},
		{"first 20 characters", func(k string) string { return k[:20] }},
		{"upper-cased", strings.ToUpper},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { testRunHoldsNoKey(t, tc.echo) })
	}
}

func testRunHoldsNoKey(t *testing.T, echo func(string) string) {
	const key = "ek-test-8d7c6b5a4f3e2d1c0b9a"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := echo(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		json.NewEncoder(w).Encode(map[string]any{
			"model": "echo-" + got,
			"choices": []any{map[string]any{"finish_reason": "stop",
				"message": map[string]any{"content": "your key is " + got,
					"tool_calls": []any{map[string]any{"id": "c1", "type": "function",
						"function": map[string]any{"name": "f", "arguments": `{"k":"` + got + `"}`}}}}}},
		})
	}))
	defer srv.Close()

	set := redact.New()
	p, err := provider.Open("openai/gpt-4o", provider.Options{
		Settings: map[string]any{"base_url": srv.URL + "/v1"},
		Getenv:   func(k string) string { return map[string]string{"OPENAI_API_KEY": key}[k] },
		Secrets:  set,
	})
	if err != nil {
		t.Fatal(err)
	}
	var seen string
	spy := probe.Instance{ID: "spy", Type: "spy", Name: "Spy", Category: promptcanary.CategoryCustom, Probe: probe.Func(func(_ context.Context, in probe.Input) probe.Result {
		r := in.Response
		seen = r.Content + " " + r.ServedModel
		return probe.Result{Passed: true, Score: 1, Details: "judged " + r.Content, Metadata: map[string]any{"answer": []any{r.Content}}}
	})}
	plan := &Plan{Suite: "s", Samples: 1, Config: promptcanary.ProviderConfig{ModelID: "openai/gpt-4o"},
		Items: []Item{{Prompt: promptcanary.Prompt{ID: "p", Text: "echo"}, Probes: []probe.Instance{spy}}}}
	opts := fixedOpts()
	opts.Secrets = set
	run, err := Execute(context.Background(), plan, p, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.LLMResponses) != 1 {
		t.Fatalf("got %d responses, errors %v", len(run.LLMResponses), run.Errors)
	}
	data, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	if lower := strings.ToLower(string(data)); strings.Contains(lower, key[:redact.MinRun]) || strings.Contains(lower, key[8:8+redact.MinRun]) {
		t.Errorf("the run holds the key: %s", data)
	}
	if strings.Contains(strings.ToLower(seen), key[:redact.MinRun]) {
		t.Errorf("the probe saw the key: %q", seen)
	}
	if got := run.LLMResponses[0].Content; got != "your key is [REDACTED]" {
		t.Errorf("got content %q, want the key redacted", got)
	}
	if !json.Valid(run.LLMResponses[0].RawResponse) {
		t.Errorf("raw response is no longer valid JSON")
	}
}

func TestCallErrorHoldsNoKey(t *testing.T) {
	const key = "ek-test-8d7c6b5a4f3e2d1c0b9a"
	f := &fakeProvider{fail: func(string, int) error {
		return &provider.Error{StatusCode: 400, Message: "bad key " + key}
	}}
	opts := fixedOpts()
	opts.Secrets = redact.New(key)
	run, err := Execute(context.Background(), testPlan(1, 1), f, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Errors) != 1 || run.Errors[0].Message != "HTTP 400: bad key [REDACTED]" {
		t.Errorf("got errors %+v, want the key redacted", run.Errors)
	}
}
