package execcmd

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/promptcanary/promptcanary/internal/fuzzseed"
	"github.com/promptcanary/promptcanary/provider"
)

// FuzzParseOutput feeds arbitrary stdout to the output parser, seeded with
// testdata/output-*: it must never panic, must fail only with a
// *provider.Error, and on success must keep valid JSON in the raw
// response and the tool-call arguments, and negative token counts out.
func FuzzParseOutput(f *testing.F) {
	fuzzseed.Files(f, "output-*")
	f.Add([]byte(" {\"content\": 1e999}\r\n"))
	f.Add([]byte("{\"content\":\"a\",\"total_tokens\":9223372036854775808}"))
	f.Fuzz(func(t *testing.T, out []byte) {
		resp, err := parseOutput(out)
		if err != nil {
			var pe *provider.Error
			if !errors.As(err, &pe) {
				t.Fatalf("got %T %v, want *provider.Error", err, err)
			}
			return
		}
		if resp == nil {
			t.Fatal("got nil response and nil error")
		}
		if resp.RawResponse != nil && !json.Valid(resp.RawResponse) {
			t.Errorf("raw response %q is not valid JSON", resp.RawResponse)
		}
		for _, tc := range resp.ToolCalls {
			if tc.Arguments != nil && !json.Valid(tc.Arguments) {
				t.Errorf("tool call arguments %q are not valid JSON", tc.Arguments)
			}
		}
		if resp.PromptTokens < 0 || resp.CompletionTokens < 0 || resp.TotalTokens < 0 {
			t.Errorf("got negative token counts %d %d %d", resp.PromptTokens, resp.CompletionTokens, resp.TotalTokens)
		}
	})
}
