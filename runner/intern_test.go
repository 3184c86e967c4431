package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

// metaProbe records the length of the answer in its metadata and details,
// as most probes do, so that equal answers give equal metadata.
func metaProbe() probe.Instance {
	return probe.Instance{ID: "meta", Type: "meta", Name: "Meta", Category: promptcanary.CategoryCustom, Probe: probe.Func(func(_ context.Context, in probe.Input) probe.Result {
		r := in.Response
		short := len(r.Content) < 14
		return probe.Result{Passed: true, Score: 1, Details: fmt.Sprintf("%t", short),
			Metadata: map[string]any{"short": short, "n": 1, "list": []string{"a"}}}
	})}
}

func mapID(m map[string]any) uintptr { return reflect.ValueOf(m).Pointer() }

func TestExecuteSharesEqualMetadata(t *testing.T) {
	plan := testPlan(3, 4)
	for i := range plan.Items {
		plan.Items[i].Probes = []probe.Instance{metaProbe()}
	}
	// "answer to p0 #0" is 15 characters, as is every answer: one
	// metadata value for all 12 results.
	run, err := Execute(context.Background(), plan, &fakeProvider{}, fixedOpts())
	if err != nil {
		t.Fatal(err)
	}
	if len(run.ProbeResults) != 12 {
		t.Fatalf("got %d results, want 12", len(run.ProbeResults))
	}
	first := run.ProbeResults[0]
	for i, r := range run.ProbeResults {
		if mapID(r.Metadata) != mapID(first.Metadata) {
			t.Errorf("result %d: metadata in a map of its own, want the one shared map", i)
		}
		if want := (map[string]any{"short": false, "n": 1, "list": []string{"a"}}); !reflect.DeepEqual(r.Metadata, want) {
			t.Errorf("result %d: got metadata %v, want %v", i, r.Metadata, want)
		}
		if r.Details != "false" {
			t.Errorf("result %d: got details %q", i, r.Details)
		}
	}
}

func TestInternerKeepsTypesApart(t *testing.T) {
	in := newInterner()
	results := []promptcanary.ProbeResult{
		{Metadata: map[string]any{"n": 1}},
		{Metadata: map[string]any{"n": 1.0}},
		{Metadata: map[string]any{"n": json.Number("1")}},
		{Metadata: map[string]any{"n": 1}},
		{Metadata: map[string]any{"l": []any(nil)}},
		{Metadata: map[string]any{"l": []any{}}},
		{Metadata: map[string]any{"m": map[string]any(nil)}},
		{Metadata: map[string]any{"m": map[string]any{}}},
		{Metadata: map[string]any{"m": map[string]any{}}},
		{Metadata: map[string]any{"e": errors.New("x")}}, // not a JSON type: kept apart
		{Metadata: map[string]any{"e": errors.New("x")}},
		{Metadata: map[string]any{"a": "b", "c": "d"}},
		{Metadata: map[string]any{"c": "d", "a": "b"}},
		{Metadata: map[string]any{"ac": "", "": "bd"}},
	}
	in.results(results)
	same := func(i, j int) bool { return mapID(results[i].Metadata) == mapID(results[j].Metadata) }
	for _, tc := range []struct {
		i, j int
		want bool
	}{
		{0, 3, true}, {0, 1, false}, {1, 2, false}, {0, 2, false},
		{4, 5, false}, {6, 7, false}, {7, 8, true},
		{9, 10, false},
		{11, 12, true}, {11, 13, false},
	} {
		if got := same(tc.i, tc.j); got != tc.want {
			t.Errorf("results %d and %d (%v, %v): shared %v, want %v", tc.i, tc.j, results[tc.i].Metadata, results[tc.j].Metadata, got, tc.want)
		}
	}
}

func TestExecuteFailedCallsLeaveNoGap(t *testing.T) {
	plan := testPlan(4, 3)
	f := &fakeProvider{fail: func(id string, _ int) error {
		if id == "p1" || id == "p3" {
			return errors.New("bad request")
		}
		return nil
	}}
	opts := fixedOpts()
	opts.MaxAttempts = 1
	run, err := Execute(context.Background(), plan, f, opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range run.ProbeResults {
		got = append(got, fmt.Sprintf("%s/%s#%d", r.ProbeID, r.PromptID, r.Sample))
	}
	want := "has_answer/p0#0 has_p0/p0#0 has_answer/p2#0 has_p0/p2#0 has_answer/p0#1 has_p0/p0#1 has_answer/p2#1 has_p0/p2#1 has_answer/p0#2 has_p0/p0#2 has_answer/p2#2 has_p0/p2#2"
	if strings.Join(got, " ") != want {
		t.Errorf("got results\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	if len(run.LLMResponses) != 6 || len(run.Errors) != 6 {
		t.Errorf("got %d responses and %d errors, want 6 and 6", len(run.LLMResponses), len(run.Errors))
	}
	// What the failed calls left behind the results holds nothing.
	tail := run.ProbeResults[len(run.ProbeResults):cap(run.ProbeResults)]
	for i, r := range tail {
		if !reflect.DeepEqual(r, promptcanary.ProbeResult{}) {
			t.Errorf("spare result %d: got %+v, want it cleared", i, r)
		}
	}
}
