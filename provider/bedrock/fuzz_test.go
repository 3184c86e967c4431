package bedrock

import (
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// FuzzDecode feeds arbitrary bodies to the response decoder: it must
// never panic, must fail only with a *provider.Error, and on success must
// return tool-call arguments that are valid JSON.
func FuzzDecode(f *testing.F) {
	providertest.FuzzDecode(f, func(body []byte) (*promptcanary.Response, error) { return decode(body, "answer") },
		`{"output":{"message":{"content":[{"toolUse":{"toolUseId":"a","name":"answer","input":"{\"a\":"}}]}},"stopReason":"tool_use"}`,
		`{"output":{"message":null},"stopReason":"content_filtered"}`,
		`{"output":{"message":{"content":[{"text":null},{"toolUse":null}]}},"stopReason":"end_turn","usage":{"inputTokens":-5}}`,
		`null`,
		`[]`,
	)
}
