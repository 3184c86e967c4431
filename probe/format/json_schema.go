package format

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// JSONSchema checks the top-level keys of a JSON object response: every
// required key must be present and no forbidden key may be.
//
// The score is the fraction of required keys present (1 when none are
// required), or 1/0 when AllOrNothing is set, halved when a forbidden key is
// present. The result passes when nothing is missing and nothing forbidden
// is present. A response that is not JSON, or not an object, fails with 0.
type JSONSchema struct {
	// RequiredKeys must all be present.
	RequiredKeys []string
	// ForbiddenKeys must all be absent.
	ForbiddenKeys []string
	// AllOrNothing scores 1 when no required key is missing and 0 otherwise,
	// instead of giving credit per key (YAML: score_per_key: false).
	AllOrNothing bool
}

var _ probe.Probe = (*JSONSchema)(nil)

func init() {
	probe.Register(probe.Type{
		ID:          "json_schema",
		Name:        "JSON Schema",
		Category:    promptcanary.CategoryFormat,
		Description: "Checks that a JSON object response has the required keys and none of the forbidden ones.",
		Example: `probes:
  - type: json_schema
    required_keys: [name, age, city]
    forbidden_keys: [password]
    score_per_key: true
`,
		Params: []probe.Param{
			{Name: "required_keys", Kind: probe.StringList, Required: true,
				Doc: "top-level keys the JSON object must have"},
			{Name: "forbidden_keys", Kind: probe.StringList, Default: []string{},
				Doc: "top-level keys the JSON object must not have"},
			{Name: "score_per_key", Kind: probe.Bool, Default: true,
				Doc: "give partial credit per required key present; false scores all or nothing"},
		},
		New: newJSONSchema,
	})
}

func newJSONSchema(p probe.Params) (probe.Probe, error) {
	perKey, _ := p.Bool("score_per_key")
	s := &JSONSchema{
		RequiredKeys:  p.Strings("required_keys"),
		ForbiddenKeys: p.Strings("forbidden_keys"),
		AllOrNothing:  !perKey,
	}
	var errs []error
	if len(s.RequiredKeys)+len(s.ForbiddenKeys) == 0 {
		errs = append(errs, &probe.ParamError{Param: "required_keys",
			Msg:  "nothing to check: required_keys is empty and there are no forbidden_keys",
			Hint: "list the keys the JSON object must have, for example required_keys: [name, age]; to check only that the answer is JSON, use json_validity"})
	}
	for _, k := range s.ForbiddenKeys {
		if slices.Contains(s.RequiredKeys, k) {
			errs = append(errs, &probe.ParamError{Param: "forbidden_keys",
				Msg:  fmt.Sprintf("key %q is also in required_keys", k),
				Hint: "a key cannot be both required and forbidden; remove it from one list"})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s, nil
}

// Evaluate checks the keys of the fence-stripped response. The metadata
// holds "missing_keys", "forbidden_found" and "present_keys", each sorted.
func (s *JSONSchema) Evaluate(_ context.Context, in probe.Input) probe.Result {
	r := in.Response
	doc := parseJSON(text.StripFences(r.Content))
	if doc.err != nil || !doc.object {
		required := uniqueSorted(s.RequiredKeys)
		details := "Response is not valid JSON, so its keys cannot be checked."
		if doc.err == nil {
			details = fmt.Sprintf("Response is a JSON %s, not an object, so its keys cannot be checked.", doc.kind)
		}
		return probe.Result{Details: details, Metadata: map[string]any{
			"missing_keys":    required,
			"forbidden_found": []string{},
			"present_keys":    []string{},
		}}
	}
	required := sortedView(s.RequiredKeys)
	present := doc.keys // fresh for this result
	slices.Sort(present)
	has := func(k string) bool { _, ok := slices.BinarySearch(present, k); return ok }

	missing := []string{}
	for _, k := range required {
		if !has(k) {
			missing = append(missing, k)
		}
	}
	forbidden := []string{}
	for _, k := range sortedView(s.ForbiddenKeys) {
		if has(k) {
			forbidden = append(forbidden, k)
		}
	}

	var score float64
	switch {
	case s.AllOrNothing && len(missing) == 0:
		score = 1
	case s.AllOrNothing:
		score = 0
	case len(required) == 0:
		score = 1
	default:
		score = float64(len(required)-len(missing)) / float64(len(required))
	}
	if len(forbidden) > 0 {
		score *= 0.5
	}
	passed := len(missing) == 0 && len(forbidden) == 0

	var details string
	switch {
	case passed && len(required) == 0:
		details = "JSON object has " + strconv.Itoa(len(present)) + " keys and none of the forbidden ones."
	case passed:
		details = "All " + strconv.Itoa(len(required)) + " required keys are present and no forbidden key is."
	case len(missing) > 0 && len(forbidden) > 0:
		details = "Missing required keys " + quoteList(missing) + " and found forbidden keys " + quoteList(forbidden) + "."
	case len(missing) > 0:
		details = "Missing required keys " + quoteList(missing) + "."
	default:
		details = "Found forbidden keys " + quoteList(forbidden) + "."
	}
	return probe.Result{Passed: passed, Score: score, Details: details, Metadata: map[string]any{
		"missing_keys":    missing,
		"forbidden_found": forbidden,
		"present_keys":    present,
	}}
}

// uniqueSorted returns the distinct values of list, sorted, never nil.
func uniqueSorted(list []string) []string {
	out := make([]string, len(list))
	copy(out, list)
	slices.Sort(out)
	return slices.Compact(out)
}

// sortedView returns the distinct values of list, sorted: list itself
// when it already is, for reading only, else a sorted copy.
func sortedView(list []string) []string {
	for i := 1; i < len(list); i++ {
		if list[i-1] >= list[i] {
			return uniqueSorted(list)
		}
	}
	return list
}

// quoteList renders list as "a", "b", "c" for details, each quoted as %q
// quotes it.
func quoteList(list []string) string {
	var buf [256]byte
	b := buf[:0]
	for i, s := range list {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendQuote(b, s)
	}
	return string(b)
}
