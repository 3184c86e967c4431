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

// KeyOrderPassScore is the lowest order score json_key_order passes.
const KeyOrderPassScore = 0.9

// JSONKeyOrder checks that the top-level keys of a JSON object response
// appear in the expected order, as they are written in the text.
//
// Only keys both expected and present are compared: the expected keys that
// occur in the object (in expected order) against the object's keys that
// are expected (in document order). The score is the length of their
// longest common subsequence divided by the longer list's length, and the
// result passes at KeyOrderPassScore or above. When no expected key occurs
// the check is skipped and passes with 1. A response that is not JSON, or
// not an object, fails with 0.
type JSONKeyOrder struct {
	// ExpectedOrder lists keys in the order they should appear.
	ExpectedOrder []string
}

var _ probe.Probe = (*JSONKeyOrder)(nil)

func init() {
	probe.Register(probe.Type{
		ID:          "json_key_order",
		Name:        "JSON Key Order",
		Category:    promptcanary.CategoryFormat,
		Description: "Checks that the top-level keys of a JSON object response appear in the expected order.",
		Example: `probes:
  - type: json_key_order
    expected_order: [order_id, status, eta_days]
`,
		Params: []probe.Param{
			{Name: "expected_order", Kind: probe.StringList, Required: true,
				Doc: "top-level keys in the order they should appear"},
		},
		New: newJSONKeyOrder,
	})
}

func newJSONKeyOrder(p probe.Params) (probe.Probe, error) {
	order := p.Strings("expected_order")
	var errs []error
	if len(order) < 2 {
		errs = append(errs, &probe.ParamError{Param: "expected_order",
			Msg:  fmt.Sprintf("nothing to check: an order needs at least 2 keys, got %d", len(order)),
			Hint: "list the top-level keys in the order they should appear, for example expected_order: [id, status, total]; to require a key, use json_schema"})
	}
	for i, k := range order {
		if slices.Index(order, k) < i && slices.Index(order[i+1:], k) < 0 {
			errs = append(errs, &probe.ParamError{Param: "expected_order",
				Msg:  fmt.Sprintf("key %q is listed more than once", k),
				Hint: "list each key once, in the order it should appear"})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &JSONKeyOrder{ExpectedOrder: order}, nil
}

// Evaluate compares the key order of the fence-stripped response with
// ExpectedOrder. The metadata holds "expected_order" and "actual_order", the
// two filtered lists that were compared.
func (o *JSONKeyOrder) Evaluate(_ context.Context, in probe.Input) probe.Result {
	r := in.Response
	doc := parseJSON(text.StripFences(r.Content))
	if doc.err != nil || !doc.object {
		details := "Response is not valid JSON, so its key order cannot be checked."
		if doc.err == nil {
			details = fmt.Sprintf("Response is a JSON %s, not an object, so its key order cannot be checked.", doc.kind)
		}
		return probe.Result{Details: details, Metadata: map[string]any{
			"expected_order": []string{},
			"actual_order":   []string{},
		}}
	}
	expected := []string{}
	for _, k := range o.ExpectedOrder {
		if slices.Contains(doc.keys, k) {
			expected = append(expected, k)
		}
	}
	actual := []string{}
	for _, k := range doc.keys {
		if slices.Contains(o.ExpectedOrder, k) {
			actual = append(actual, k)
		}
	}
	meta := map[string]any{"expected_order": expected, "actual_order": actual}
	if len(expected) == 0 {
		return probe.Result{Passed: true, Score: 1, Metadata: meta,
			Details: "None of the expected keys occur in the response, so the order check was skipped."}
	}
	score := float64(text.LCS(expected, actual)) / float64(max(len(expected), len(actual)))
	return probe.Result{
		Passed:   score >= KeyOrderPassScore,
		Score:    score,
		Metadata: meta,
		Details: "Expected key order " + quoteList(expected) + ", found " + quoteList(actual) +
			" (order score " + strconv.FormatFloat(score, 'f', 2, 64) + ").",
	}
}
