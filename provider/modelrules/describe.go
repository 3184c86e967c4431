package modelrules

import "fmt"

// Describe says what the rules change in a request, one short phrase
// each ("temperature 1 only", "no top_p"); nothing for the plain rules.
func (r Rules) Describe() []string {
	var out []string
	switch {
	case r.NoTemperature:
		out = append(out, "no temperature")
	case r.Temperature != nil:
		out = append(out, fmt.Sprintf("temperature %g only", *r.Temperature))
	}
	if r.NoTopP {
		out = append(out, "no top_p")
	}
	if r.NoTopK {
		out = append(out, "no top_k")
	}
	if r.OneSampler {
		out = append(out, "temperature or top_p, not both")
	}
	if r.TokenField != "" {
		out = append(out, r.TokenField)
	}
	if r.ResponsesOnly {
		out = append(out, "Responses API only")
	}
	if r.ThinkingBudget {
		out = append(out, "thinking budget 1024 to below max_tokens, with temperature 1")
	}
	if r.AdaptiveThinkingOnly {
		out = append(out, "adaptive thinking only")
	}
	switch {
	case r.ThinksByDefault && r.MinThinkingBudget > 0:
		out = append(out, "always thinks, within max_tokens")
	case r.ThinksByDefault:
		out = append(out, "thinks by default, within max_tokens")
	case r.ThinksInOutput:
		out = append(out, "thinks when given a budget, within max_tokens")
	}
	return out
}

// API is the API that serves the model through its vendor's client:
// "responses" for OpenAI's Responses-only models, "" for the usual one.
func (r Rules) API() string {
	if r.ResponsesOnly {
		return "responses"
	}
	return ""
}
