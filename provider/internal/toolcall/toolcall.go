// Package toolcall normalises the arguments of the tool calls a provider
// returns, so that the tool-use probes see JSON whichever way a model or
// API wrote them (an object, a JSON-encoded string, nothing), and gives
// the tools a provider sends the parameter schema the APIs require.
package toolcall

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/promptcanary/promptcanary"
)

// Parameters is the parameter schema sent for a tool whose schema is
// schema: schema itself, or for a tool without parameters an empty object
// schema, which the APIs require.
func Parameters(schema map[string]any) map[string]any {
	if len(schema) == 0 {
		return map[string]any{"type": "object", "properties": map[string]any{}}
	}
	return schema
}

// Max is the most tool calls a client keeps of one answer. Parallel tool
// calls number a handful in practice; an answer with thousands (a model
// in a loop, a hostile endpoint) would otherwise be held, stored and
// judged whole.
const Max = 128

// Bound keeps the first Max of resp's tool calls. When the answer held
// more (total, at least len(resp.ToolCalls): a client may have stopped
// converting them at Max), resp is marked Truncated with
// OriginalToolCalls = total, so the cut is never silent.
func Bound(resp *promptcanary.Response, total int) {
	total = max(total, len(resp.ToolCalls))
	if total <= Max {
		return
	}
	if len(resp.ToolCalls) > Max {
		// A copy, so the dropped calls' backing array can be freed.
		kept := make([]promptcanary.ToolCall, Max)
		copy(kept, resp.ToolCalls)
		resp.ToolCalls = kept
	}
	resp.Truncated = true
	resp.OriginalToolCalls = total
}

// Arguments normalises the arguments of a call returned by a model API
// (anthropic, gemini, ollama) to a compact JSON value: an object as given,
// "{}" when absent, null or a blank string, a JSON-encoded string decoded,
// and a string that is not JSON kept as a JSON string. The result is
// always valid JSON.
func Arguments(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}")
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			t := strings.TrimSpace(s)
			if t == "" {
				return json.RawMessage("{}")
			}
			if json.Valid([]byte(t)) {
				raw = []byte(t)
			} else {
				return raw
			}
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		s, _ := json.Marshal(string(raw))
		return s
	}
	return buf.Bytes()
}

// AsWritten normalises the arguments of a call read from a user's program
// or endpoint (the exec and http providers), keeping them as written: a
// string holding JSON is decoded, any other value (a string that is not
// JSON included) is kept as it is, and null or absent is nil, so that a
// call without arguments is told apart from one with "{}".
func AsWritten(raw json.RawMessage) json.RawMessage {
	v := bytes.TrimSpace(raw)
	if len(v) == 0 || string(v) == "null" {
		return nil
	}
	if v[0] == '"' {
		var s string
		if json.Unmarshal(v, &s) == nil {
			if inner := bytes.TrimSpace([]byte(s)); len(inner) > 0 && json.Valid(inner) {
				return json.RawMessage(inner)
			}
		}
	}
	return json.RawMessage(bytes.Clone(v))
}

// safeID is the form of tool call ID that the Anthropic Messages API
// (tool_use.id: ^[a-zA-Z0-9_-]+$,
// https://docs.anthropic.com/en/api/messages) and Bedrock Converse
// (toolUseId: [a-zA-Z0-9_-]+, 1 to 64 characters,
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolUseBlock.html)
// take.
var safeID = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// SafeID returns a suite's tool call ID in a form those APIs take: the
// ID itself when it has that form, else "call_" and 24 hex digits of its
// SHA-256, the same for the call and for its result, so a hand-written
// ID such as "weather.1" still pairs a tool_use with its tool_result.
func SafeID(id string) string {
	if safeID.MatchString(id) {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "call_" + hex.EncodeToString(sum[:12])
}
