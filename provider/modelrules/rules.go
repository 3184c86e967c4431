// Package modelrules is the one table of per-model request rules: which
// sampling parameters a model family accepts, which request field carries
// its output-token limit, which API serves it and how it thinks. Rules are
// matched by model name whatever the host, so a model reached through a
// proxy, a gateway or a cloud (Bedrock, Vertex AI) gets the same rules as
// at its provider. Every rule names the provider documentation it comes
// from. Apply turns what canary.yaml asks for into what a model accepts.
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

// The vendors whose models the table knows.
const (
	VendorOpenAI    = "openai"
	VendorAnthropic = "anthropic"
	VendorGoogle    = "google"
)

// Rules are what one model family accepts. The zero value is the plain
// rules: every parameter, the API's usual token field.
type Rules struct {
	// Family names the rules in messages ("OpenAI reasoning models").
	Family string
	// Vendor is the company whose models they are (VendorOpenAI, …), ""
	// for the plain rules.
	Vendor string
	// Source is the documentation the rules come from.
	Source string
	// Temperature, when set, is the only temperature the model takes.
	Temperature *float64
	// NoTemperature: the model takes no temperature at all; none is sent.
	NoTemperature bool
	// NoTopP: the model refuses top_p.
	NoTopP bool
	// NoTopK: the model refuses top_k.
	NoTopK bool
	// OneSampler: the model takes temperature or top_p, not both.
	OneSampler bool
	// TokenField is the request field that carries the output-token
	// limit, "" for the API's usual one.
	TokenField string
	// ResponsesOnly: OpenAI serves the model only through the Responses
	// API (/v1/responses), not Chat Completions.
	ResponsesOnly bool
	// ThinkingBudget: the model takes Anthropic's extended thinking with a
	// budget (thinking: {type: enabled, budget_tokens: N}).
	ThinkingBudget bool
	// AdaptiveThinkingOnly: the model refuses a thinking budget and takes
	// only thinking: {type: adaptive}.
	AdaptiveThinkingOnly bool
	// ThinksInOutput: the model's thinking spends its output-token limit
	// (Gemini's maxOutputTokens), so an answer can come back empty.
	ThinksInOutput bool
	// ThinksByDefault: the model thinks unless told not to.
	ThinksByDefault bool
	// MinThinkingBudget, when above 0, is the smallest thinking budget the
	// model takes: it cannot turn thinking off.
	MinThinkingBudget int
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
	Vendor:      VendorOpenAI,
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
// So are the deep-research models and computer-use-preview.
// https://platform.openai.com/docs/models/o3-deep-research
// https://platform.openai.com/docs/models/o4-mini-deep-research
// https://platform.openai.com/docs/models/computer-use-preview
var openAIResponsesOnly = func() Rules {
	r := openAIReasoning
	r.Family = "OpenAI models served by the Responses API only"
	r.Source = "https://platform.openai.com/docs/models/o3-pro"
	r.ResponsesOnly = true
	return r
}()

// OpenAI's other chat models (gpt-4o, gpt-4.1, gpt-5-chat-latest) take the
// usual sampling parameters.
// https://platform.openai.com/docs/api-reference/chat/create
var openAIChat = Rules{
	Family: "OpenAI chat models",
	Vendor: VendorOpenAI,
	Source: "https://platform.openai.com/docs/api-reference/chat/create",
}

// For returns the rules of model, a model name as any provider spells it:
// "gpt-5", "openai/gpt-5" behind a gateway, "gpt-5-2025-08-07", Bedrock's
// "us.anthropic.claude-sonnet-4-5-20250929-v1:0", Vertex AI's
// "claude-sonnet-4-5@20250929", OpenRouter's "anthropic/claude-sonnet-4.5".
// A model the table does not know gets its family's rules by prefix, or
// the plain rules.
func For(model string) Rules {
	m := Base(model)
	switch {
	case isOpenAIReasoning(m) && isResponsesOnly(m), strings.HasPrefix(m, "computer-use-"):
		return openAIResponsesOnly
	case isOpenAIReasoning(m):
		return openAIReasoning
	case strings.HasPrefix(m, "gpt-"):
		return openAIChat
	case strings.HasPrefix(m, "claude-"):
		return claude(m)
	case strings.HasPrefix(m, "gemini-"):
		return gemini(m)
	}
	return Rules{}
}

// Base is model's name without what hosts add to it: a gateway's
// "vendor/" path, Vertex AI's "@version", Bedrock's region ("us.",
// "global.") and vendor ("anthropic.") prefixes; lower case, and Claude's
// dotted versions ("claude-sonnet-4.5", OpenRouter's) spelled with a dash
// as Anthropic does.
func Base(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	m, _, _ = strings.Cut(m, "@")
	for {
		head, rest, ok := strings.Cut(m, ".")
		if !ok || head == "" || rest == "" || !isWord(head) {
			break
		}
		m = rest
	}
	if strings.HasPrefix(m, "claude-") {
		m = strings.ReplaceAll(m, ".", "-")
	}
	return m
}

// isWord: s is letters with single dashes between them ("us-gov",
// "anthropic"), as Bedrock's prefixes are, and no model name is.
func isWord(s string) bool {
	for _, part := range strings.Split(s, "-") {
		if part == "" {
			return false
		}
		for _, c := range part {
			if c < 'a' || c > 'z' {
				return false
			}
		}
	}
	return true
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

// isResponsesOnly: o1-pro, o3-pro, gpt-5-pro and later pros, codex
// models (gpt-5-codex, codex-mini-latest) and the deep-research models
// (o3-deep-research, o4-mini-deep-research).
func isResponsesOnly(m string) bool {
	return strings.Contains(m, "-pro") || strings.Contains(m, "codex") || strings.Contains(m, "-deep-research")
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
