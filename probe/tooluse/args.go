package tooluse

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/outcome"
)

// Args is the tool_call_args probe: it checks that the tool call carries
// the required argument keys and none of the forbidden ones. The score is
// the fraction of required keys present (1 when none are required), halved
// when a forbidden key is present, so a passing call always scores 1.
type Args struct {
	// Required are the argument keys that must be present.
	Required []string
	// Forbidden are the argument keys that must not be present.
	Forbidden []string
}

var _ probe.Probe = (*Args)(nil)

const (
	argsID = "tool_call_args"
	// forbiddenFactor multiplies the score when a forbidden key is present.
	forbiddenFactor = 0.5
)

func init() {
	probe.Register(probe.Type{
		ID:          argsID,
		Name:        "Tool Call Arguments",
		Category:    promptcanary.CategoryToolUse,
		Description: "Verifies required arguments are present in the tool call.",
		Example: `probes:
  - type: tool_call_args
    required_args: [city]
    forbidden_args: [api_key]
`,
		Params: []probe.Param{
			{Name: "required_args", Kind: probe.StringList, Required: true,
				Doc: "argument keys the tool call must carry"},
			{Name: "forbidden_args", Kind: probe.StringList, Default: []string{},
				Doc: "argument keys the tool call must not carry"},
		},
		New: func(p probe.Params) (probe.Probe, error) {
			a := &Args{Required: p.Strings("required_args"), Forbidden: p.Strings("forbidden_args")}
			if len(a.Required)+len(a.Forbidden) == 0 {
				return nil, &probe.ParamError{Param: "required_args",
					Msg:  "nothing to check: required_args is empty and there are no forbidden_args",
					Hint: "list the argument keys the call must carry, for example required_args: [city]; to check only that a tool is called, use tool_call_presence"}
			}
			if err := checkOverlap("forbidden_args", "required_args", a.Required, a.Forbidden); err != nil {
				return nil, err
			}
			return a, nil
		},
	})
}

// checkOverlap reports keys that are both required and forbidden: no
// response could pass such a probe.
func checkOverlap(param, requiredParam string, required, forbidden []string) error {
	var both []string
	for _, f := range forbidden {
		if slices.Contains(required, f) && !slices.Contains(both, f) {
			both = append(both, f)
		}
	}
	if len(both) == 0 {
		return nil
	}
	return &probe.ParamError{Param: param, Msg: fmt.Sprintf("%s also listed in %s", quoteList(both), requiredParam),
		Hint: "an argument cannot be both required and forbidden"}
}

// noArgsKey is what the result of a response without argument keys
// depends on: the configured lists, known by their backing arrays (which
// the cached key keeps alive, so another list cannot take their place),
// and the source.
type noArgsKey struct {
	required, forbidden   *string
	nRequired, nForbidden int
	source                string
}

// noArgs holds the result of a response without argument keys.
var noArgs = outcome.NewTable[noArgsKey](1)

// Evaluate passes when no required key is missing and no forbidden key is
// present. Responses without argument keys share their result; the lists
// must not be changed in place once the probe is used.
func (p *Args) Evaluate(_ context.Context, pin probe.Input) probe.Result {
	r := pin.Response
	in := getInput(r)
	defer in.release()
	keys, source := in.argKeys()
	if len(keys) == 0 {
		// No argument: the result depends only on the configuration and
		// the source, and is shared.
		key := noArgsKey{required: unsafe.SliceData(p.Required), nRequired: len(p.Required),
			forbidden: unsafe.SliceData(p.Forbidden), nForbidden: len(p.Forbidden), source: source}
		if res, ok := noArgs.Get(0, key); ok {
			return res
		}
		v := judgeArgs(nil, p.Required, p.Forbidden)
		return noArgs.Put(0, key, probe.Result{Passed: v.passed, Score: v.score, Details: v.details,
			Metadata: map[string]any{"extracted_keys": []string{}, "missing": v.missing, "forbidden_found": v.forbidden, "source": source}})
	}
	v := judgeArgs(keys, p.Required, p.Forbidden)
	keys = fresh(keys)
	return probe.Result{
		Passed:  v.passed,
		Score:   v.score,
		Details: v.details,
		Metadata: map[string]any{
			"extracted_keys":  keys,
			"missing":         v.missing,
			"forbidden_found": v.forbidden,
			"source":          source,
		},
	}
}

// argsVerdict is the outcome of checking argument keys.
type argsVerdict struct {
	passed    bool
	score     float64
	missing   []string
	forbidden []string
	details   string
}

// judgeArgs checks the extracted keys (sorted) against the required and
// forbidden keys. The score is the share of required keys present (1 when
// none are required), times forbiddenFactor when a forbidden key is
// present. Unlike the reference, which divides by max(len(required), 1)
// and so scores 0 a passing call that carries keys when none are required,
// a pass always scores 1 (see probe/DEVIATIONS.md).
func judgeArgs(keys, required, forbidden []string) argsVerdict {
	v := argsVerdict{missing: []string{}, forbidden: []string{}}
	if len(keys) == 0 && len(required) == 0 {
		v.passed, v.score, v.details = true, 1, "No arguments required and none found."
		return v
	}
	for _, k := range required {
		if _, ok := slices.BinarySearch(keys, k); !ok {
			v.missing = append(v.missing, k)
		}
	}
	for _, k := range forbidden {
		if _, ok := slices.BinarySearch(keys, k); ok {
			v.forbidden = append(v.forbidden, k)
		}
	}
	v.score = 1
	if len(required) > 0 {
		v.score = float64(len(required)-len(v.missing)) / float64(len(required))
	}
	if len(v.forbidden) > 0 {
		v.score *= forbiddenFactor
	}
	v.passed = len(v.missing) == 0 && len(v.forbidden) == 0
	var parts []string
	if len(v.missing) > 0 {
		parts = append(parts, "missing arguments: "+quoteList(v.missing))
	}
	if len(v.forbidden) > 0 {
		parts = append(parts, "forbidden arguments present: "+quoteList(v.forbidden))
	}
	switch {
	case v.passed && len(required) == 0:
		v.details = "No arguments required; no forbidden argument present among " + strconv.Itoa(len(keys)) + " found."
	case v.passed:
		v.details = "All " + strconv.Itoa(len(required)) + " required argument(s) present."
	default:
		s := strings.Join(parts, "; ")
		v.details = strings.ToUpper(s[:1]) + s[1:] + "."
	}
	return v
}
