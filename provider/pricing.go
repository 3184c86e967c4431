package provider

import (
	"slices"
	"strings"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input  float64 `json:"input" yaml:"input"`
	Output float64 `json:"output" yaml:"output"`
}

// Cost is the price of the given token counts.
func (p Price) Cost(promptTokens, completionTokens int) float64 {
	return (float64(promptTokens)*p.Input + float64(completionTokens)*p.Output) / 1e6
}

// defaultPrices are list prices of well-known models (USD per million
// tokens, standard tier, as published by each provider in 2025-2026). They
// are estimates for budgeting, not invoices: override them with prices: in
// canary.yaml. Keys match the model name after the provider prefix, by
// longest prefix, so dated snapshots ("gpt-4o-2024-08-06") find their family.
var defaultPrices = map[string]Price{
	"gpt-4o":            {2.50, 10.00},
	"gpt-4o-mini":       {0.15, 0.60},
	"gpt-4.1":           {2.00, 8.00},
	"gpt-4.1-mini":      {0.40, 1.60},
	"gpt-4.1-nano":      {0.10, 0.40},
	"gpt-5":             {1.25, 10.00},
	"gpt-5-mini":        {0.25, 2.00},
	"gpt-5-nano":        {0.05, 0.40},
	"o3":                {2.00, 8.00},
	"o3-mini":           {1.10, 4.40},
	"o4-mini":           {1.10, 4.40},
	"claude-opus-4":     {15.00, 75.00},
	"claude-sonnet-4":   {3.00, 15.00},
	"claude-3-7-sonnet": {3.00, 15.00},
	"claude-3-5-sonnet": {3.00, 15.00},
	"claude-3-5-haiku":  {0.80, 4.00},
	"claude-haiku-4-5":  {1.00, 5.00},
	"gemini-2.5-pro":    {1.25, 10.00},
	"gemini-2.5-flash":  {0.30, 2.50},
	"gemini-2.0-flash":  {0.10, 0.40},
	"gemini-1.5-pro":    {1.25, 5.00},
	"gemini-1.5-flash":  {0.075, 0.30},
	"grok-3":            {3.00, 15.00},
	"grok-3-mini":       {0.30, 0.50},
	"mistral-large":     {2.00, 6.00},
	"mistral-small":     {0.10, 0.30},
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
	best := ""
	for k := range defaultPrices {
		if strings.HasPrefix(model, k) && len(k) > len(best) {
			best = k
		}
	}
	if best == "" {
		return Price{}, false
	}
	return defaultPrices[best], true
}
