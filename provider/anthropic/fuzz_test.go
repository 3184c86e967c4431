package anthropic

import (
	"github.com/promptcanary/promptcanary"
	"testing"

	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// FuzzDecode feeds arbitrary bodies to the response decoder: it must never
// panic, must fail only with a *provider.Error, and on success must return
// tool-call arguments that are valid JSON.
func FuzzDecode(f *testing.F) {
	providertest.FuzzDecode(f, func(b []byte) (*promptcanary.Response, error) { return decode(b, "response") },
		`{"content":[{"type":"tool_use","name":"t","input":"{\"a\":"}],"stop_reason":"tool_use"}`,
		`{"content":[{"type":"tool_use","input":null}]}`,
		`null`,
		`[]`,
	)
}
