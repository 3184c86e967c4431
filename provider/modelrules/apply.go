package modelrules

import (
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary"
)

// Thinking budgets of Anthropic's extended thinking: "budget_tokens must
// be ≥1024 and less than max_tokens".
// https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking
const minClaudeThinkingBudget = 1024

// GeminiRoomyMaxTokens is the output limit under which Apply warns that a
// Gemini model thinking by default may spend the whole limit thinking and
// answer nothing (its dynamic thinking alone can use more than 8,192
// tokens).
const GeminiRoomyMaxTokens = 8192

// Apply returns cfg (whose ModelID is "NAME/MODEL") as the model's rules
// take it, with one note for each change, such as "gpt-5 takes no
// temperature but the default 1: sends 1 instead of 0" (true before and
// after the run). A parameter is removed by setting it to nil in
// ExtraParams, which every client omits. A request no change can make
// acceptable (a thinking budget out of range) is an error. cfg itself is
// not modified. Warnings about what is sent unchanged come from Warnings.
func Apply(cfg promptcanary.ProviderConfig) (promptcanary.ProviderConfig, []string, error) {
	return ApplyVia(cfg, "")
}

// APIResponses names the OpenAI Responses API for ApplyVia.
const APIResponses = "responses"

// ApplyVia is Apply for a request sent through api, the API a provider
// entry chose ("api: responses"), "" for the one the model's rules
// imply: through the Responses API an OpenAI reasoning model gets no
// temperature at all and an output limit of at least 16, as a
// Responses-only model does.
func ApplyVia(cfg promptcanary.ProviderConfig, api string) (promptcanary.ProviderConfig, []string, error) {
	r := For(cfg.ModelID)
	if api == APIResponses && r.TokenField == MaxCompletionTokens {
		r.ResponsesOnly = true
	}
	if !r.Known() {
		return cfg, nil, nil
	}
	a := &applier{cfg: cfg, r: r, model: short(cfg.ModelID)}
	a.cfg.ExtraParams = maps.Clone(cfg.ExtraParams)
	if a.cfg.ExtraParams == nil {
		a.cfg.ExtraParams = map[string]any{}
	}
	if err := a.thinking(); err != nil {
		return cfg, nil, err
	}
	if err := a.geminiThinking(); err != nil {
		return cfg, nil, err
	}
	a.sampling()
	a.responsesLimit()
	return a.cfg, a.notes, nil
}

// Warnings says what may go wrong with cfg as sent, changing nothing:
// a Gemini model whose thinking may spend the whole output limit. Give
// it Apply's result.
func Warnings(cfg promptcanary.ProviderConfig) []string {
	r := For(cfg.ModelID)
	if !r.ThinksInOutput {
		return nil
	}
	a := &applier{cfg: cfg, r: r, model: short(cfg.ModelID)}
	a.geminiWarning()
	return a.notes
}

// responsesLimit raises an output limit below the least the Responses
// API takes ("minimum": 16), as the client would, so the run records what
// is sent.
// https://platform.openai.com/docs/api-reference/responses/create#responses-create-max_output_tokens
func (a *applier) responsesLimit() {
	if a.r.ResponsesOnly && a.cfg.MaxTokens > 0 && a.cfg.MaxTokens < MinResponsesOutputTokens {
		a.note("%s takes max_output_tokens of %d or more on the Responses API: sends %d instead of %d", a.model, MinResponsesOutputTokens, MinResponsesOutputTokens, a.cfg.MaxTokens)
		a.cfg.MaxTokens = MinResponsesOutputTokens
	}
}

// MinResponsesOutputTokens is the least max_output_tokens the OpenAI
// Responses API takes ("minimum": 16 in its OpenAPI spec).
// https://platform.openai.com/docs/api-reference/responses/create#responses-create-max_output_tokens
const MinResponsesOutputTokens = 16

// applier carries one Apply.
type applier struct {
	cfg   promptcanary.ProviderConfig
	r     Rules
	model string
	notes []string
}

func (a *applier) note(format string, args ...any) {
	a.notes = append(a.notes, fmt.Sprintf(format, args...))
}

// sampling applies the rules on temperature, top_p and top_k.
func (a *applier) sampling() {
	r := a.r
	t, hasT := a.temperature()
	switch {
	case r.ResponsesOnly && hasT:
		// The OpenAI client sends these models no temperature at all: the
		// Responses API refuses even their default.
		a.remove("temperature")
		a.note("%s takes no temperature on the Responses API: sends none (asked %s)", a.model, show(t))
	case r.NoTemperature && hasT:
		a.remove("temperature")
		a.note("%s takes no temperature: sends none (the model's default) instead of %s", a.model, show(t))
	case r.Temperature != nil && hasT && !equal(t, *r.Temperature):
		a.setTemperature(*r.Temperature)
		a.note("%s takes no temperature but the default %s: sends %s instead of %s", a.model, show(*r.Temperature), show(*r.Temperature), show(t))
	}
	if p, ok := a.extra("top_p"); ok && r.NoTopP {
		a.remove("top_p")
		a.note("%s takes no top_p: sends none instead of %s", a.model, show(p))
	}
	if k, ok := a.extra("top_k"); ok && r.NoTopK {
		a.remove("top_k")
		a.note("%s takes no top_k: sends none instead of %s", a.model, show(k))
	}
	t, hasT = a.temperature()
	if p, ok := a.extra("top_p"); ok && hasT && r.OneSampler {
		a.remove("top_p")
		a.note("%s takes temperature or top_p, not both: sends temperature %s and no top_p (asked %s); extra_params: {temperature: null} sends top_p instead", a.model, show(t), show(p))
	}
}

// thinking applies Anthropic's extended thinking rules: a budget from
// 1,024 to below max_tokens, temperature 1, no top_k, top_p from 0.95 to 1
// ("Thinking isn't compatible with temperature or top_k modifications";
// "you can set top_p to values between 1 and 0.95").
// https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking
func (a *applier) thinking() error {
	if a.r.Vendor != VendorAnthropic {
		return nil
	}
	th, ok := a.cfg.ExtraParams["thinking"].(map[string]any)
	if !ok || th["type"] == "disabled" {
		return nil
	}
	if th["type"] == "enabled" {
		if a.r.AdaptiveThinkingOnly {
			return fmt.Errorf("%s takes no thinking budget (thinking: {type: enabled}): use extra_params: {thinking: {type: adaptive}} (%s)", a.model, a.r.Source)
		}
		budget, ok := number(th["budget_tokens"])
		switch {
		case !ok:
			return fmt.Errorf("extra_params thinking: budget_tokens is missing or not a number: give it, for example thinking: {type: enabled, budget_tokens: %d}", minClaudeThinkingBudget)
		case budget < minClaudeThinkingBudget:
			return fmt.Errorf("extra_params thinking: budget_tokens %s is below %d, the least %s takes: raise it", show(budget), minClaudeThinkingBudget, a.model)
		case budget >= float64(a.cfg.MaxTokens):
			return fmt.Errorf("extra_params thinking: budget_tokens %s is not below max_tokens %d, as %s requires: raise max_tokens (it bounds thinking and answer together) or lower the budget", show(budget), a.cfg.MaxTokens, a.model)
		}
	}
	if t, ok := a.temperature(); ok && !equal(t, 1) && !a.r.NoTemperature {
		a.setTemperature(1)
		a.note("%s with extended thinking takes no temperature but 1: sends 1 instead of %s", a.model, show(t))
	}
	if k, ok := a.extra("top_k"); ok {
		a.remove("top_k")
		a.note("%s with extended thinking takes no top_k: sends none instead of %s", a.model, show(k))
	}
	if p, ok := a.extra("top_p"); ok {
		if f, isNum := number(p); !isNum || f < 0.95 || f > 1 {
			a.remove("top_p")
			a.note("%s with extended thinking takes top_p from 0.95 to 1 only: sends none instead of %s", a.model, show(p))
		}
	}
	return nil
}

// geminiThinking refuses a budget below the least the model takes (2.5
// Pro cannot stop thinking).
// https://ai.google.dev/gemini-api/docs/thinking
func (a *applier) geminiThinking() error {
	if !a.r.ThinksInOutput {
		return nil
	}
	if budget, set := a.geminiBudget(); set && budget >= 0 && budget < float64(a.r.MinThinkingBudget) {
		return fmt.Errorf("extra_params thinkingBudget %s: %s cannot turn thinking off; use %d or more, or -1 for dynamic thinking (%s)", show(budget), a.model, a.r.MinThinkingBudget, a.r.Source)
	}
	return nil
}

// geminiWarning warns when a Gemini model's thinking may spend the whole
// output limit, so that answers come back empty.
// https://ai.google.dev/gemini-api/docs/thinking
func (a *applier) geminiWarning() {
	budget, set := a.geminiBudget()
	limit := a.cfg.MaxTokens
	switch {
	case set && budget > 0 && limit > 0 && budget >= float64(limit):
		a.note("%s's thinking budget %s is not below max_tokens %d, and thinking counts against max_tokens: answers may come back empty (finish reason MAX_TOKENS); lower thinkingBudget or raise max_tokens", a.model, show(budget), limit)
	case (!set || budget < 0) && a.r.ThinksByDefault && limit > 0 && limit < GeminiRoomyMaxTokens:
		a.note("%s thinks before it answers and its thinking counts against max_tokens %d: an answer may come back empty (finish reason MAX_TOKENS); raise max_tokens or cap thinking with extra_params: {thinkingConfig: {thinkingBudget: %d}}", a.model, limit, max(limit/2, 128))
	}
}

// geminiBudget is the thinkingBudget extra_params set, at the top level
// or under generationConfig, in either spelling.
func (a *applier) geminiBudget() (float64, bool) {
	for _, holder := range []map[string]any{a.cfg.ExtraParams, mapOf(a.cfg.ExtraParams, "generationConfig", "generation_config")} {
		tc := mapOf(holder, "thinkingConfig", "thinking_config")
		for _, k := range []string{"thinkingBudget", "thinking_budget"} {
			if f, ok := number(tc[k]); ok {
				return f, true
			}
		}
	}
	return 0, false
}

// temperature is the temperature the request sends: extra_params'
// (when it has the key; nil means none is sent) else the run's.
func (a *applier) temperature() (any, bool) {
	if v, ok := a.cfg.ExtraParams["temperature"]; ok {
		return v, v != nil
	}
	return a.cfg.Temperature, true
}

func (a *applier) setTemperature(t float64) {
	a.cfg.Temperature = t
	if v, ok := a.cfg.ExtraParams["temperature"]; ok && v != nil {
		a.cfg.ExtraParams["temperature"] = t
	}
}

// aliases are the other spellings of a parameter in extra_params: the
// camelCase of Gemini and Bedrock's Converse API.
var aliases = map[string]string{"top_p": "topP", "top_k": "topK"}

// extra is extra_params' value of key (or its alias) when it sends one.
func (a *applier) extra(key string) (any, bool) {
	for _, k := range []string{key, aliases[key]} {
		if v, ok := a.cfg.ExtraParams[k]; ok && v != nil && k != "" {
			return v, true
		}
	}
	return nil, false
}

// remove makes the request send no key: nil in ExtraParams, for the
// alias too when extra_params spells it so.
func (a *applier) remove(key string) {
	if alias := aliases[key]; alias != "" && a.cfg.ExtraParams[alias] != nil {
		a.cfg.ExtraParams[alias] = nil
		return
	}
	a.cfg.ExtraParams[key] = nil
}

// mapOf is the first of keys in m that holds a mapping, nil when none.
func mapOf(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		if v, ok := m[k].(map[string]any); ok {
			return v
		}
	}
	return nil
}

// number reads a YAML or JSON number.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

func equal(v any, want float64) bool {
	f, ok := number(v)
	return ok && f == want
}

// show prints a parameter value as canary.yaml would spell it.
func show(v any) string {
	if f, ok := number(v); ok {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return fmt.Sprintf("%v", v)
}

// short is the model as the user spelled it, without the provider name.
func short(spec string) string {
	if _, m, ok := strings.Cut(spec, "/"); ok {
		return m
	}
	return spec
}
