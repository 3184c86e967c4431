// Package anthropictest is a strict local stand-in for Anthropic's
// Messages API, for tests of the anthropic client, of Anthropic models on
// Vertex AI and of CLI transcripts. It rejects what the real API rejects
// (missing headers and fields, unknown fields, roles out of turn, tool
// results answering no tool call, parameters a model refuses, thinking
// budgets out of range), with the API's error shape, and answers with the
// API's response shapes, edge cases included: parallel tool calls,
// refusals, and answers whose whole budget went to thinking.
//
// The rules come from https://docs.anthropic.com/en/api/messages, the
// models overview https://docs.anthropic.com/en/docs/about-claude/models/overview
// and https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking;
// each is cited beside its check.
package anthropictest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// VertexVersion is the anthropic_version Vertex AI requires in the body.
// https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude
const VertexVersion = "vertex-2023-10-16"

// Request is a checked request: the fields the answer depends on.
type Request struct {
	Model      string
	MaxTokens  int
	Messages   []Message
	Tools      []Tool
	ToolChoice map[string]any
	// Budget is thinking.budget_tokens, 0 without extended thinking.
	Budget int
}

// Message is one turn of a request; a string content is one text block.
type Message struct {
	Role    string
	Content []Block
}

// Block is one content block of a request turn.
type Block struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

// Tool is a tool definition of a request.
type Tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"input_schema"`
}

// Error is a request the API refuses: its HTTP status, error type and
// message, written as {"type":"error","error":{"type":…,"message":…}}.
type Error struct {
	Status  int
	Type    string
	Message string
}

func (e *Error) Error() string { return e.Type + ": " + e.Message }

func invalid(format string, a ...any) *Error {
	return &Error{Status: 400, Type: "invalid_request_error", Message: fmt.Sprintf(format, a...)}
}

// topLevel are the request fields of the Messages API; any other is
// refused ("Extra inputs are not permitted").
// https://docs.anthropic.com/en/api/messages
var topLevel = []string{
	"model", "messages", "max_tokens", "system", "temperature", "top_p", "top_k",
	"stop_sequences", "stream", "metadata", "tools", "tool_choice", "thinking",
	"service_tier", "container", "mcp_servers", "context_management",
}

// MaxOutput is the largest max_tokens of each known model (the models
// overview's "Max output"); a model not listed is unknown (404).
// https://docs.anthropic.com/en/docs/about-claude/models/overview
var MaxOutput = map[string]int{
	"claude-sonnet-4-5": 64000, "claude-sonnet-4-5-20250929": 64000,
	"claude-opus-4-1": 32000, "claude-opus-4-1-20250805": 32000,
	"claude-haiku-4-5": 64000, "claude-haiku-4-5-20251001": 64000,
	"claude-sonnet-4-0": 64000, "claude-sonnet-4-20250514": 64000,
	"claude-opus-4-0": 32000, "claude-opus-4-20250514": 32000,
	"claude-3-7-sonnet-latest": 64000, "claude-3-7-sonnet-20250219": 64000,
	"claude-3-5-haiku-latest": 8192, "claude-3-5-haiku-20241022": 8192,
}

// servedModel is the dated model the API reports for an alias.
func servedModel(m string) string {
	for k := range MaxOutput {
		if strings.HasPrefix(k, m+"-2") {
			return k
		}
	}
	return m
}

// noTempWithTopP are the models that refuse temperature and top_p in one
// request. https://docs.anthropic.com/en/docs/about-claude/models/migrating-to-claude-4
var noTempWithTopP = []string{"claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"}

// Check validates a Messages API body. vertexModel is the model named by
// a Vertex AI rawPredict URL ("claude-sonnet-4-5@20250929"), "" for the
// direct API: then the body must not name a model and must carry
// anthropic_version VertexVersion.
func Check(body []byte, vertexModel string) (*Request, *Error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil || raw == nil {
		return nil, invalid("There was an error parsing the body of your request: want a JSON object")
	}
	known := topLevel
	if vertexModel != "" {
		// https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude:
		// "anthropic_version" in the body, the model in the URL.
		if _, ok := raw["model"]; ok {
			return nil, invalid("model: Extra inputs are not permitted")
		}
		var v string
		if json.Unmarshal(raw["anthropic_version"], &v) != nil || v != VertexVersion {
			return nil, invalid("anthropic_version: Input should be '%s'", VertexVersion)
		}
		known = append(slices.Clone(topLevel[1:]), "anthropic_version")
	}
	for _, k := range slices.Sorted(mapKeys(raw)) {
		if !slices.Contains(known, k) {
			return nil, invalid("%s: Extra inputs are not permitted", k)
		}
	}
	r := &Request{Model: vertexModel}
	if err := r.model(raw, vertexModel); err != nil {
		return nil, err
	}
	if err := r.maxTokens(raw); err != nil {
		return nil, err
	}
	if err := r.sampling(raw); err != nil {
		return nil, err
	}
	if err := r.readTools(raw); err != nil {
		return nil, err
	}
	if err := r.readMessages(raw); err != nil {
		return nil, err
	}
	return r, checkSystem(raw["system"])
}

func mapKeys(m map[string]json.RawMessage) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// model reads the required model and checks it is known.
func (r *Request) model(raw map[string]json.RawMessage, vertexModel string) *Error {
	if vertexModel != "" {
		base, _, _ := strings.Cut(vertexModel, "@")
		if _, ok := MaxOutput[base]; !ok {
			return &Error{Status: 404, Type: "not_found_error", Message: "model: " + vertexModel}
		}
		r.Model = base
		return nil
	}
	if raw["model"] == nil {
		return invalid("model: Field required")
	}
	if json.Unmarshal(raw["model"], &r.Model) != nil || r.Model == "" {
		return invalid("model: Input should be a valid string")
	}
	if _, ok := MaxOutput[r.Model]; !ok {
		return &Error{Status: 404, Type: "not_found_error", Message: "model: " + r.Model}
	}
	return nil
}

// maxTokens reads the required max_tokens: a positive integer no larger
// than the model's maximum output.
// https://docs.anthropic.com/en/api/messages#body-max-tokens
func (r *Request) maxTokens(raw map[string]json.RawMessage) *Error {
	if raw["max_tokens"] == nil {
		return invalid("max_tokens: Field required")
	}
	if json.Unmarshal(raw["max_tokens"], &r.MaxTokens) != nil {
		return invalid("max_tokens: Input should be a valid integer")
	}
	if r.MaxTokens < 1 {
		return invalid("max_tokens: Input should be greater than or equal to 1")
	}
	if limit := MaxOutput[r.Model]; r.MaxTokens > limit {
		return invalid("max_tokens: %d > %d, which is the maximum allowed number of output tokens for %s", r.MaxTokens, limit, r.Model)
	}
	return nil
}

// sampling checks temperature, top_p, top_k and thinking.
func (r *Request) sampling(raw map[string]json.RawMessage) *Error {
	var temp, topP *float64
	for name, dst := range map[string]**float64{"temperature": &temp, "top_p": &topP} {
		if v := raw[name]; v != nil {
			if json.Unmarshal(v, dst) != nil || *dst == nil || **dst < 0 || **dst > 1 {
				// https://docs.anthropic.com/en/api/messages#body-temperature: "Ranges from 0.0 to 1.0."
				return invalid("%s: Input should be a number from 0 to 1", name)
			}
		}
	}
	if temp != nil && topP != nil && slices.ContainsFunc(noTempWithTopP, func(m string) bool { return strings.HasPrefix(r.Model, m) }) {
		// https://docs.anthropic.com/en/docs/about-claude/models/migrating-to-claude-4
		return invalid("temperature and top_p cannot both be specified for this model. Please use only one.")
	}
	if raw["thinking"] == nil {
		return nil
	}
	var th struct {
		Type   string `json:"type"`
		Budget *int   `json:"budget_tokens"`
	}
	if json.Unmarshal(raw["thinking"], &th) != nil {
		return invalid("thinking: Input should be an object")
	}
	switch th.Type {
	case "disabled":
		return nil
	case "enabled":
	default:
		return invalid("thinking.type: Input should be 'enabled' or 'disabled'")
	}
	// https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking:
	// budget_tokens at least 1024 and below max_tokens; temperature only 1;
	// no top_k; top_p from 0.95 to 1.
	switch {
	case th.Budget == nil:
		return invalid("thinking.enabled.budget_tokens: Field required")
	case *th.Budget < 1024:
		return invalid("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
	case *th.Budget >= r.MaxTokens:
		return invalid("`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size")
	case temp != nil && *temp != 1:
		return invalid("`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#important-considerations-when-using-extended-thinking")
	case raw["top_k"] != nil:
		return invalid("`top_k` is not supported when thinking is enabled.")
	case topP != nil && *topP < 0.95:
		return invalid("`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled.")
	}
	r.Budget = *th.Budget
	return nil
}

var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)

// readTools checks tools and tool_choice.
// https://docs.anthropic.com/en/api/messages#body-tools
func (r *Request) readTools(raw map[string]json.RawMessage) *Error {
	if v := raw["tools"]; v != nil {
		if json.Unmarshal(v, &r.Tools) != nil {
			return invalid("tools: Input should be a valid list")
		}
		for i, t := range r.Tools {
			if !toolName.MatchString(t.Name) {
				return invalid("tools.%d.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'", i)
			}
			if t.InputSchema == nil {
				return invalid("tools.%d.custom.input_schema: Field required", i)
			}
			if t.InputSchema["type"] != "object" {
				return invalid("tools.%d.custom.input_schema.type: Input should be 'object'", i)
			}
		}
	}
	if v := raw["tool_choice"]; v != nil {
		if json.Unmarshal(v, &r.ToolChoice) != nil {
			return invalid("tool_choice: Input should be an object")
		}
		typ, _ := r.ToolChoice["type"].(string)
		switch typ {
		case "auto", "any", "none":
		case "tool":
			name, _ := r.ToolChoice["name"].(string)
			if !slices.ContainsFunc(r.Tools, func(t Tool) bool { return t.Name == name }) {
				return invalid("tool_choice.tool.name: no tool named %q in tools", name)
			}
		default:
			return invalid("tool_choice: Input tag '%s' found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'", typ)
		}
		if len(r.Tools) == 0 && typ != "none" {
			return invalid("tool_choice may only be specified while providing tools.")
		}
		if r.Budget > 0 && (typ == "any" || typ == "tool") {
			// https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#extended-thinking-with-tool-use
			return invalid("Thinking may not be enabled when tool_choice forces tool use.")
		}
	}
	return nil
}

// checkSystem accepts a string or a list of text blocks.
func checkSystem(v json.RawMessage) *Error {
	if v == nil {
		return nil
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return nil
	}
	var blocks []Block
	if json.Unmarshal(v, &blocks) != nil {
		return invalid("system: Input should be a valid string or list of text blocks")
	}
	for i, b := range blocks {
		if b.Type != "text" || b.Text == nil {
			return invalid("system.%d: Input should be a text block", i)
		}
	}
	return nil
}
