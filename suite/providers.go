package suite

import (
	"fmt"
	"github.com/promptcanary/promptcanary/internal/yamlwalk"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
)

// ProviderSpec is one entry of `providers:`: a provider to run (when no
// --provider is given) and its settings.
type ProviderSpec struct {
	// Spec is the NAME/MODEL string from `id:`.
	Spec string
	// Line is where the entry starts in the file, for error messages.
	Line int
	// Field names the entry in error messages: "providers[1] (http/bot)".
	Field string
	// RPM and TPM are the rate limits (`rpm:`, `tpm:`), 0 for none, else in
	// [1, promptcanary.MaxRate].
	RPM, TPM int
	// Timeout bounds each call attempt (`timeout:`, e.g. 30s, at most 24h),
	// 0 for the command line's --timeout.
	Timeout time.Duration
	// Settings are the entry's other keys, passed to the provider as
	// provider.Options.Settings (base_url, api_key_env, headers, url, body…).
	Settings map[string]any
	// ExtraParams (`extra_params:`) are request parameters sent as given,
	// over the client's own; a null value removes the parameter from the
	// request (extra_params: {temperature: null}).
	ExtraParams map[string]any
}

// Provider returns the providers: entry for spec, or nil.
func (s *Suite) Provider(spec string) *ProviderSpec {
	for i := range s.Providers {
		if s.Providers[i].Spec == spec {
			return &s.Providers[i]
		}
	}
	return nil
}

// Judge returns the judges: entry for spec, or nil.
func (s *Suite) Judge(spec string) *ProviderSpec {
	for i := range s.Judges {
		if s.Judges[i].Spec == spec {
			return &s.Judges[i]
		}
	}
	return nil
}

// providers parses the `providers:` list, or the `judges:` list, named by
// key. The suite reads id, rpm, tpm and timeout; every other key is a
// provider setting, checked by the provider when it is opened.
func (p *parser) providers(n *yaml.Node, key string) []ProviderSpec {
	var out []ProviderSpec
	seen := map[string]int{}
	for field, item := range p.mappings(n, key, "a list of providers", "a mapping with id: NAME/MODEL") {
		ps := ProviderSpec{Line: item.Line, Field: field, Settings: map[string]any{}}
		var idNode *yaml.Node
		for _, e := range p.Pairs(item, field) {
			switch e.Key.Value {
			case "id":
				idNode = e.Val
			case "rpm", "tpm":
				if v := p.boundedInt(e.Val, yamlwalk.Join(field, e.Key.Value), 1, promptcanary.MaxRate); v != nil {
					if e.Key.Value == "rpm" {
						ps.RPM = *v
					} else {
						ps.TPM = *v
					}
				}
			case "timeout":
				if d, ok := p.duration(e.Val, yamlwalk.Join(field, "timeout")); ok {
					ps.Timeout = d
				}
			case "extra_params":
				ps.ExtraParams = p.extraParams(e.Val, yamlwalk.Join(field, "extra_params"))
			default:
				if v, ok := p.value(e.Val, yamlwalk.Join(field, e.Key.Value)); ok {
					ps.Settings[e.Key.Value] = v
				}
			}
		}
		if idNode == nil {
			p.add(item, field+".id", "required field is missing", "name the provider, for example id: openai/gpt-4o-mini or id: http/my-app")
			continue
		}
		spec, ok := p.str(idNode, field+".id")
		if !ok {
			continue
		}
		if _, _, err := provider.Split(spec); err != nil {
			p.add(idNode, field+".id", fmt.Sprintf("must be NAME/MODEL, got %q", spec), specHint(spec, "for example openai/gpt-4o-mini or http/my-app"))
			continue
		}
		if line, dup := seen[spec]; dup {
			p.add(idNode, field+".id", fmt.Sprintf("duplicate provider %q (also at line %d)", spec, line), "list each provider once")
			continue
		}
		seen[spec] = idNode.Line
		ps.Spec = spec
		ps.Field = fmt.Sprintf("%s (%s)", field, spec)
		out = append(out, ps)
	}
	return out
}

// extraParams parses a providers: entry's `extra_params:`, a mapping whose
// null values are kept (they remove a parameter from the request).
func (p *parser) extraParams(n *yaml.Node, field string) map[string]any {
	if yamlwalk.IsNull(n) {
		return nil
	}
	if p.Resolve(n).Kind != yaml.MappingNode {
		p.wrongType(n, field, "a mapping of request parameter to value, for example {top_p: 0.9} or {temperature: null}")
		return nil
	}
	v, ok := p.value(n, field)
	m, isMap := v.(map[string]any)
	if !ok || !isMap {
		return nil
	}
	return m
}

// prices parses `prices:`, a mapping of model (or NAME/MODEL) to
// {input, output} in US dollars per million tokens.
func (p *parser) prices(n *yaml.Node) map[string]provider.Price {
	if yamlwalk.IsNull(n) || !p.isMapping(n, "prices", "a mapping of model to {input, output}") {
		return nil
	}
	out := map[string]provider.Price{}
	for _, e := range p.Pairs(n, "prices") {
		field := yamlwalk.Join("prices", e.Key.Value)
		if !p.isMapping(e.Val, field, "a mapping with input: and output: (USD per million tokens)") {
			continue
		}
		var pr provider.Price
		have := 0
		for _, f := range p.Pairs(e.Val, field) {
			var dst *float64
			switch f.Key.Value {
			case "input":
				dst = &pr.Input
			case "output":
				dst = &pr.Output
			default:
				p.UnknownKey(f.Key, field, []string{"input", "output"})
				continue
			}
			x, ok := p.price(f.Val, yamlwalk.Join(field, f.Key.Value))
			if !ok {
				continue
			}
			*dst = x
			have++
		}
		if have == 2 {
			out[e.Key.Value] = pr
		} else if have < 2 && len(e.Val.Content) < 4 {
			p.add(e.Val, field, "needs both input: and output:", "for example {input: 2.5, output: 10}")
		}
	}
	return out
}

// specHint suggests the provider spec a malformed one most likely meant
// ("openai:gpt-4o" or "gpt-4o" → openai/gpt-4o), else gives the example.
func specHint(spec, example string) string {
	if s := provider.Suggest(spec); s != "" {
		return "did you mean " + s + "?"
	}
	return example
}
