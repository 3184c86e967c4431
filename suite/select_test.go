package suite

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
)

const selectSuite = `name: select
probes: [test_plain]
prompts:
  - id: capital
    text: What is the capital of France?
    tags: [factual, geo]
    probes:
      - type: test_match
        expected_value: Paris
  - id: json
    text: Return a JSON object.
    tags: [format]
  - id: refund
    text: How do I get a refund?
    tags: [support, geo]
  - id: hello
    text: Say hello.
`

func promptIDs(s *Suite) []string {
	out := make([]string, len(s.Prompts))
	for i, p := range s.Prompts {
		out[i] = p.ID
	}
	return out
}

func TestSelect(t *testing.T) {
	whole := parse(t, selectSuite)
	tests := []struct {
		name      string
		ids, tags []string
		want      []string
	}{
		{"nothing given is the whole suite", nil, nil, []string{"capital", "json", "refund", "hello"}},
		{"by id, in file order", []string{"hello", "capital"}, nil, []string{"capital", "hello"}},
		{"by tag", nil, []string{"geo"}, []string{"capital", "refund"}},
		{"ids or tags", []string{"hello"}, []string{"format"}, []string{"json", "hello"}},
		{"overlap counted once", []string{"capital", "capital"}, []string{"factual", "geo"}, []string{"capital", "refund"}},
	}
	cfg := promptcanary.ProviderConfig{ModelID: "sim/stable"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			part, err := whole.Select(tc.ids, tc.tags)
			if err != nil {
				t.Fatalf("Select: got error %v, want nil", err)
			}
			if diff := cmp.Diff(tc.want, promptIDs(part)); diff != "" {
				t.Errorf("prompts (-want +got):\n%s", diff)
			}
			// Each prompt is judged and fingerprinted as in the whole suite,
			// so its baseline still applies.
			for _, id := range tc.want {
				if diff := cmp.Diff(ids(whole.ProbesFor(id)), ids(part.ProbesFor(id))); diff != "" {
					t.Errorf("ProbesFor(%s) (-whole +part):\n%s", id, diff)
				}
				if got, want := part.PromptHash(id, cfg), whole.PromptHash(id, cfg); got != want {
					t.Errorf("PromptHash(%s): got %s, want %s", id, got, want)
				}
			}
			for id := range part.PromptProbes {
				if !slices.Contains(tc.want, id) {
					t.Errorf("PromptProbes keeps unselected prompt %s", id)
				}
			}
			plan := part.Plan(cfg, 3)
			if len(plan.Items) != len(tc.want) || len(plan.PromptHashes) != len(tc.want) {
				t.Errorf("plan: got %d items and %d hashes, want %d of each", len(plan.Items), len(plan.PromptHashes), len(tc.want))
			}
			if part.Name != whole.Name || part.Path != whole.Path || len(part.Probes) != len(whole.Probes) {
				t.Errorf("part: got name %q path %q with %d suite probes, want the whole suite's", part.Name, part.Path, len(part.Probes))
			}
			if (len(tc.want) < len(whole.Prompts)) == (part.Hash(cfg) == whole.Hash(cfg)) {
				t.Errorf("Hash: part of %d prompts has the whole suite's hash %v, want it only for the whole suite", len(tc.want), part.Hash(cfg) == whole.Hash(cfg))
			}
		})
	}
	if len(whole.Prompts) != 4 || len(whole.PromptProbes) != 1 {
		t.Errorf("Select changed the whole suite: %d prompts, %d with own probes", len(whole.Prompts), len(whole.PromptProbes))
	}
}

func TestSelectUnknown(t *testing.T) {
	whole := parse(t, selectSuite)
	tests := []struct {
		name      string
		ids, tags []string
		msg       string
		hints     []string
	}{
		{"typo in an id", []string{"capitl", "json"}, nil,
			`unknown prompt id "capitl" (did you mean capital?)`,
			[]string{"known prompt ids: capital, json, refund, hello"}},
		{"ids and tags", []string{"nope", "nope"}, []string{"suport", "geo", "zzz"},
			"unknown prompt id \"nope\"\nno prompt has tag \"suport\" (did you mean support?)\nno prompt has tag \"zzz\"",
			[]string{"known prompt ids: capital, json, refund, hello", "known tags: factual, format, geo, support"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			part, err := whole.Select(tc.ids, tc.tags)
			if part != nil {
				t.Errorf("got a part of %d prompts, want nil", len(part.Prompts))
			}
			var se *SelectError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a *SelectError", err)
			}
			if err.Error() != tc.msg {
				t.Errorf("Error():\ngot  %s\nwant %s", err, tc.msg)
			}
			if diff := cmp.Diff(tc.hints, se.Hints()); diff != "" {
				t.Errorf("Hints (-want +got):\n%s", diff)
			}
		})
	}

	// A suite without tags says so; a long list of ids is cut.
	var b strings.Builder
	b.WriteString("probes: [test_plain]\nprompts:\n")
	for i := range 25 {
		fmt.Fprintf(&b, "  - {id: p%02d, text: prompt %d}\n", i, i)
	}
	big := parse(t, b.String())
	_, err := big.Select([]string{"x"}, []string{"geo"})
	var se *SelectError
	if !errors.As(err, &se) {
		t.Fatalf("got %v, want a *SelectError", err)
	}
	want := []string{
		"known prompt ids: p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15, p16, p17, p18, p19 and 5 more",
		"no prompt has tags: add tags: [...] to the prompts to select them by tag",
	}
	if diff := cmp.Diff(want, se.Hints()); diff != "" {
		t.Errorf("Hints (-want +got):\n%s", diff)
	}
}
