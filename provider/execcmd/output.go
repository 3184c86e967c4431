package execcmd

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/respobj"
	"github.com/promptcanary/promptcanary/provider/internal/toolcall"
)

// parseOutput reads the command's stdout: a JSON object with a "content"
// key is a response object, anything else is the answer text.
func parseOutput(out []byte) (*promptcanary.Response, error) {
	trimmed := bytes.TrimSpace(out)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var obj map[string]json.RawMessage
		if json.Unmarshal(trimmed, &obj) == nil {
			if _, ok := obj["content"]; ok {
				resp, err := responseObject(obj)
				if err != nil {
					return nil, &provider.Error{Message: "stdout: " + err.Error()}
				}
				resp.RawResponse = json.RawMessage(trimmed)
				return resp, nil
			}
		}
	}
	s := string(out)
	if t, ok := strings.CutSuffix(s, "\n"); ok {
		s = strings.TrimSuffix(t, "\r")
	}
	return &promptcanary.Response{Content: s}, nil
}

// outputRules read a response object as a replay line is read, but ignores
// keys it does not know, since an application may print more, reads a
// negative token count (from a broken program) as 0, as the HTTP clients
// do, and decodes tool-call arguments written as a JSON string.
var outputRules = respobj.Rules{
	ClampNegative:   true,
	DecodeArguments: true,
	ToolCallsShape:  "tool_calls must be an array of {name, arguments} objects",
}

// responseObject reads a response object.
func responseObject(obj map[string]json.RawMessage) (*promptcanary.Response, error) {
	resp, err := respobj.Decode(obj, outputRules)
	if err != nil {
		return nil, err
	}
	toolcall.Bound(resp, len(resp.ToolCalls))
	return resp, nil
}
