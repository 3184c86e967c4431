package ollama

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/promptcanary/promptcanary/provider"
)

// FuzzDecode feeds arbitrary bodies to the response decoder: it must never
// panic, must fail only with a *provider.Error, and on success must return
// tool-call arguments that are valid JSON.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"message":{"tool_calls":[{"function":{"name":"t","arguments":"{\"a\":"}}]},"done_reason":"stop"}`))
	f.Add([]byte(`{"message":{"tool_calls":[null]}}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`[]`))
	c, err := New(Config{Model: "llama3.2"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := c.decode(body)
		if err != nil {
			var pe *provider.Error
			if !errors.As(err, &pe) {
				t.Fatalf("got %T, want *provider.Error", err)
			}
			return
		}
		for _, tc := range resp.ToolCalls {
			if !json.Valid(tc.Arguments) {
				t.Fatalf("tool call arguments %q are not valid JSON", tc.Arguments)
			}
		}
	})
}
