package gemini

import (
	"net/http"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// FuzzDecode feeds arbitrary bodies to the response decoder: it must never
// panic, must fail only with a *provider.Error, and on success must return
// tool-call arguments that are valid JSON.
func FuzzDecode(f *testing.F) {
	providertest.FuzzDecode(f, decode,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"t","args":"{\"a\":"}}]}}]}`,
		`{"candidates":[{"content":null,"finishReason":"OTHER"}],"promptFeedback":{}}`,
		`null`,
		`[]`,
	)
}

// FuzzRateLimited feeds arbitrary 429 bodies, seeded with the error
// fixtures in testdata/, to the RetryInfo reader: no panic, a retryable
// error, a delay within [0, httpc.MaxRetryAfter] and no key in the message.
func FuzzRateLimited(f *testing.F) {
	for _, name := range []string{"error_rate_limit.json", "error_unavailable.json", "error_key_invalid.json"} {
		f.Add([]byte(providertest.Fixture(f, name)))
	}
	f.Add([]byte(`{"error":{"code":429,"message":"` + testKey + `","details":[{"retryDelay":"9999999999999s"}]}}`))
	f.Add([]byte(`{"error":{"details":[{"retryDelay":"-5s"},{"retryDelay":"1.5s"}]}}`))
	c, err := New(Config{Model: "gemini-2.5-flash", APIKey: testKey, BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		e := c.rateLimited(&httpc.Response{Status: 429, Header: http.Header{}, Body: body})
		if !e.Retryable || e.StatusCode != 429 || e.RetryAfter < 0 || e.RetryAfter > httpc.MaxRetryAfter {
			t.Fatalf("got %+v, want a retryable 429 with a delay within [0, %v]", e, httpc.MaxRetryAfter)
		}
		if strings.Contains(e.Error(), testKey) {
			t.Fatalf("message %q holds the key", e.Message)
		}
	})
}
