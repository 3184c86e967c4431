package ollama

import (
	"testing"

	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// FuzzDecode feeds arbitrary bodies to the response decoder: it must never
// panic, must fail only with a *provider.Error, and on success must return
// tool-call arguments that are valid JSON.
func FuzzDecode(f *testing.F) {
	c, err := New(Config{Model: "llama3.2"})
	if err != nil {
		f.Fatal(err)
	}
	providertest.FuzzDecode(f, c.decode,
		`{"message":{"tool_calls":[{"function":{"name":"t","arguments":"{\"a\":"}}]},"done_reason":"stop"}`,
		`{"message":{"tool_calls":[null]}}`,
		`null`,
		`[]`,
	)
}
