package provider

import (
	"maps"
	"slices"
	"strings"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input  float64 `json:"input" yaml:"input"`
	Output float64 `json:"output" yaml:"output"`
}

// Cost is the price of the given token counts. It is computed in floating
// point, so no count overflows it; a negative count (a provider's
// nonsense) costs nothing.
func (p Price) Cost(promptTokens, completionTokens int) float64 {
	return (float64(max(promptTokens, 0))*p.Input + float64(max(completionTokens, 0))*p.Output) / 1e6
}

// listPrice is a model family's list price and the provider serving it.
type listPrice struct {
	provider string
	Price
}

// defaultPrices are list prices of well-known models (USD per million
// tokens, standard tier, as published by each provider in 2025-2026). They
// are estimates for budgeting, not invoices: override them with prices: in
// canary.yaml. Keys match the model name after the provider prefix, by
// longest prefix, so dated snapshots ("gpt-4o-2024-08-06") find their family.
// Each names the provider that serves the model, so that a bare model name
// ("gpt-4o") can suggest its provider spec.
var defaultPrices = map[string]listPrice{
	"gpt-4o":            {"openai", Price{2.50, 10.00}},
	"gpt-4o-mini":       {"openai", Price{0.15, 0.60}},
	"gpt-4.1":           {"openai", Price{2.00, 8.00}},
	"gpt-4.1-mini":      {"openai", Price{0.40, 1.60}},
	"gpt-4.1-nano":      {"openai", Price{0.10, 0.40}},
	"gpt-5":             {"openai", Price{1.25, 10.00}},
	"gpt-5-mini":        {"openai", Price{0.25, 2.00}},
	"gpt-5-nano":        {"openai", Price{0.05, 0.40}},
	"o3":                {"openai", Price{2.00, 8.00}},
	"o3-mini":           {"openai", Price{1.10, 4.40}},
	"o4-mini":           {"openai", Price{1.10, 4.40}},
	"claude-opus-4":     {"anthropic", Price{15.00, 75.00}},
	"claude-sonnet-4":   {"anthropic", Price{3.00, 15.00}},
	"claude-3-7-sonnet": {"anthropic", Price{3.00, 15.00}},
	"claude-3-5-sonnet": {"anthropic", Price{3.00, 15.00}},
	"claude-3-5-haiku":  {"anthropic", Price{0.80, 4.00}},
	"claude-haiku-4-5":  {"anthropic", Price{1.00, 5.00}},
	"gemini-2.5-pro":    {"gemini", Price{1.25, 10.00}},
	"gemini-2.5-flash":  {"gemini", Price{0.30, 2.50}},
	"gemini-2.0-flash":  {"gemini", Price{0.10, 0.40}},
	"gemini-1.5-pro":    {"gemini", Price{1.25, 5.00}},
	"gemini-1.5-flash":  {"gemini", Price{0.075, 0.30}},
	"grok-3":            {"xai", Price{3.00, 15.00}},
	"grok-3-mini":       {"xai", Price{0.30, 0.50}},
	"mistral-large":     {"mistral", Price{2.00, 6.00}},
	"mistral-small":     {"mistral", Price{0.10, 0.30}},
}

// freeProviders run locally or offline and cost nothing.
var freeProviders = []string{"sim", "replay", "ollama", "exec", "hosted_vllm"}

// LookupPrice returns the price of spec ("name/model"): from overrides
// (keyed by the full spec or by model name), else the default table, else
// false. Local and offline providers are free.
func LookupPrice(spec string, overrides map[string]Price) (Price, bool) {
	if p, ok := overrides[spec]; ok {
		return p, true
	}
	name, model, err := Split(spec)
	if err != nil {
		return Price{}, false
	}
	if p, ok := overrides[model]; ok {
		return p, true
	}
	if slices.Contains(freeProviders, name) {
		return Price{}, true
	}
	// OpenRouter and Together name models "vendor/model".
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		model = model[i+1:]
	}
	lp, ok := family(model)
	return lp.Price, ok
}

// family returns the list price of the longest known model family that
// model starts with.
func family(model string) (listPrice, bool) {
	best := ""
	for k := range defaultPrices {
		if strings.HasPrefix(model, k) && len(k) > len(best) {
			best = k
		}
	}
	if best == "" {
		return listPrice{}, false
	}
	return defaultPrices[best], true
}

// modelProvider guesses the provider of a bare model name from the price
// table: the provider of the longest family the name starts with, else of
// a family sharing its first word ("gemini-3-pro" → gemini); "" when none.
func modelProvider(model string) string {
	if lp, ok := family(model); ok {
		return lp.provider
	}
	word, _, _ := strings.Cut(model, "-")
	if word == "" {
		return ""
	}
	for _, k := range slices.Sorted(maps.Keys(defaultPrices)) {
		if w, _, _ := strings.Cut(k, "-"); w == word {
			return defaultPrices[k].provider
		}
	}
	return ""
}
