// Package modelrules is the one table of per-model request rules: which
// sampling parameters a model family accepts, which request field carries
// its output-token limit, and which API serves it. Rules are matched by
// model name whatever the host, so a model reached through a proxy or a
// gateway gets the same rules as at its provider. Every rule names the
// provider documentation it comes from.
package modelrules

import (
	"strconv"
	"strings"
)

// Token-limit fields of the OpenAI APIs.
const (
	MaxTokens           = "max_tokens"
	MaxCompletionTokens = "max_completion_tokens"
)

// Rules are what one model family accepts. The zero value is the plain
// rules: every parameter, the API's usual token field.
type Rules struct {
	// Family names the rules in messages ("OpenAI reasoning models").
	Family string
	// Source is the documentation the rules come from.
	Source string
	// Temperature, when set, is the only temperature the model takes.
	Temperature *float64
	// NoTopP: the model refuses top_p.
	NoTopP bool
	// TokenField is the request field that carries the output-token
	// limit, "" for the API's usual one.
	TokenField string
	// ResponsesOnly: OpenAI serves the model only through the Responses
	// API (/v1/responses), not Chat Completions.
	ResponsesOnly bool
}

// Known reports whether r is a family's rules rather than the plain ones.
func (r Rules) Known() bool { return r.Family != "" }

var one = 1.0

// OpenAI's reasoning models take no temperature but the default 1, no
// top_p, and their output limit in max_completion_tokens (max_tokens is
// refused: "Use 'max_completion_tokens' instead").
// https://platform.openai.com/docs/guides/reasoning
// https://platform.openai.com/docs/api-reference/chat/create#chat-create-max_completion_tokens
var openAIReasoning = Rules{
	Family:      "OpenAI reasoning models",
	Source:      "https://platform.openai.com/docs/guides/reasoning",
	Temperature: &one,
	NoTopP:      true,
	TokenField:  MaxCompletionTokens,
}

// The pro and codex models are served by the Responses API only: "This
// model is only supported in v1/responses and not in v1/chat/completions."
// https://platform.openai.com/docs/models/o3-pro
// https://platform.openai.com/docs/models/gpt-5-pro
// https://platform.openai.com/docs/models/gpt-5-codex
var openAIResponsesOnly = func() Rules {
	r := openAIReasoning
	r.Family = "OpenAI models served by the Responses API only"
	r.Source = "https://platform.openai.com/docs/models/o3-pro"
	r.ResponsesOnly = true
	return r
}()

// For returns the rules of model, a model name as any provider spells it:
// "gpt-5", "openai/gpt-5" behind a gateway, "gpt-5-2025-08-07".
func For(model string) Rules {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if isOpenAIReasoning(m) {
		if isResponsesOnly(m) {
			return openAIResponsesOnly
		}
		return openAIReasoning
	}
	return Rules{}
}

// isOpenAIReasoning: the o-series (o1, o3, o4-mini, …) and gpt-5 and
// later, but not the chat models (gpt-5-chat-latest), which are tuned
// for Chat Completions and take the usual sampling parameters.
// https://platform.openai.com/docs/models/gpt-5-chat-latest
func isOpenAIReasoning(m string) bool {
	if strings.Contains(m, "-chat") {
		return false
	}
	if rest, ok := strings.CutPrefix(m, "o"); ok {
		return leadingInt(rest) > 0
	}
	if rest, ok := strings.CutPrefix(m, "gpt-"); ok {
		return leadingInt(rest) >= 5
	}
	return strings.HasPrefix(m, "codex-")
}

// isResponsesOnly: o1-pro, o3-pro, gpt-5-pro and later pros, and codex
// models (gpt-5-codex, codex-mini-latest).
func isResponsesOnly(m string) bool {
	return strings.Contains(m, "-pro") || strings.Contains(m, "codex")
}

// leadingInt is the number m starts with, 0 when none.
func leadingInt(m string) int {
	end := 0
	for end < len(m) && m[end] >= '0' && m[end] <= '9' {
		end++
	}
	n, _ := strconv.Atoi(m[:end])
	return n
}
