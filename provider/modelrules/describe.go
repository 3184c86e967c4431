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
	for _, f := range []struct {
		on     bool
		phrase string
	}{
		{r.NoTopP, "no top_p"},
		{r.NoTopK, "no top_k"},
		{r.OneSampler, "temperature or top_p, not both"},
		{r.TokenField != "", r.TokenField},
		{r.ResponsesOnly, "Responses API only"},
		{r.ThinkingBudget, "thinking budget 1024 to below max_tokens, with temperature 1"},
		{r.AdaptiveThinkingOnly, "adaptive thinking only"},
	} {
		if f.on {
			out = append(out, f.phrase)
		}
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
