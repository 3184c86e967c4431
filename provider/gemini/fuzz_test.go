package gemini

import (
	"testing"

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
