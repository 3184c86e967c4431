package suite

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

// The test probe types below stand in for the built-ins so these tests do
// not depend on them. Between them they use every parameter Kind, an enum,
// a required parameter and cross-field rules reported by New.
func init() {
	pass := func(*promptcanary.Prompt, *promptcanary.Response) probe.Result {
		return probe.Result{Passed: true, Score: 1}
	}
	fn := func(string) probe.Probe {
		return probe.Func(func(context.Context, probe.Input) probe.Result { return probe.Result{Passed: true, Score: 1} })
	}
	probe.RegisterFunc("test_plain", "Plain", promptcanary.CategoryFormat, "no parameters", pass)
	probe.Register(probe.Type{
		ID: "test_expected", Category: promptcanary.CategoryFormat,
		New: func(probe.Params) (probe.Probe, error) { return skipper{fn("test_expected")}, nil },
	})
	probe.Register(probe.Type{
		ID: "test_match", Category: promptcanary.CategoryFactual,
		Params: []probe.Param{
			{Name: "expected_value", Kind: probe.String, Required: true, Doc: "the text the answer must contain"},
			{Name: "match_mode", Kind: probe.String, Default: "contains", Enum: []string{"contains", "exact", "startswith"}},
			{Name: "case_sensitive", Kind: probe.Bool, Default: false},
		},
		New: func(probe.Params) (probe.Probe, error) { return fn("test_match"), nil },
	})
	probe.Register(probe.Type{
		ID: "test_length", Category: promptcanary.CategoryFormat,
		Params: []probe.Param{
			{Name: "min_chars", Kind: probe.Int, Default: 1},
			{Name: "max_chars", Kind: probe.Int},
			{Name: "tolerance", Kind: probe.Float, Default: 0.5},
		},
		New: func(p probe.Params) (probe.Probe, error) {
			minC, _ := p.Int("min_chars")
			if minC < 0 {
				return nil, &probe.ParamError{Param: "min_chars", Msg: fmt.Sprintf("must be >= 0, got %d", minC), Hint: "lengths cannot be negative"}
			}
			if maxC, ok := p.Int("max_chars"); ok && maxC < minC {
				return nil, &probe.ParamError{Param: "max_chars", Msg: fmt.Sprintf("must be >= min_chars (%d)", minC), Hint: "max_chars must be >= min_chars"}
			}
			return fn("test_length"), nil
		},
	})
	probe.Register(probe.Type{
		ID: "test_keywords", Category: promptcanary.CategoryFormat,
		Params: []probe.Param{
			{Name: "required_keywords", Kind: probe.StringList, Default: []string{}},
			{Name: "forbidden_keywords", Kind: probe.StringList, Default: []string{}},
		},
		New: func(p probe.Params) (probe.Probe, error) {
			if len(p.Strings("required_keywords"))+len(p.Strings("forbidden_keywords")) == 0 {
				return nil, &probe.ParamError{Msg: "needs required_keywords or forbidden_keywords", Hint: "list at least one keyword"}
			}
			return fn("test_keywords"), nil
		},
	})
	probe.Register(probe.Type{
		ID: "test_schema", Category: promptcanary.CategoryToolUse,
		Params: []probe.Param{{Name: "schema", Kind: probe.Map, Required: true}},
		New: func(p probe.Params) (probe.Probe, error) {
			types, _ := p.Map("schema")["arg_types"].(map[string]any)
			var errs []string
			for _, name := range slices.Sorted(maps.Keys(types)) {
				if s, _ := types[name].(string); s != "string" && s != "integer" {
					errs = append(errs, name)
				}
			}
			if len(errs) > 0 {
				return nil, &probe.ParamError{Param: "schema.arg_types." + errs[0], Msg: fmt.Sprintf("unknown type %v", types[errs[0]]), Hint: "use one of: " + strings.Join([]string{"string", "integer"}, ", ")}
			}
			return fn("test_schema"), nil
		},
	})
}

// skipper is a probe with nothing to check on prompts without
// expected_keywords, like the built-in expected_keywords.
type skipper struct{ probe.Probe }

func (skipper) Skips(p *promptcanary.Prompt) (string, string) {
	if len(p.ExpectedKeywords) > 0 {
		return "", ""
	}
	return "no expected_keywords declared", "add expected_keywords: to the prompt"
}
