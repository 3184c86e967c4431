package factual_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/factual"
)

func TestRegistered(t *testing.T) {
	typ, err := probe.Lookup("factual_consistency")
	if err != nil {
		t.Fatalf("Lookup: got error %v, want nil", err)
	}
	if typ.Name != "Factual Consistency" || typ.Category != promptcanary.CategoryFactual {
		t.Errorf("type: got (%q, %q), want (%q, %q)", typ.Name, typ.Category, "Factual Consistency", promptcanary.CategoryFactual)
	}
	p, params, err := probe.New("factual_consistency", map[string]any{"expected_value": "Paris"})
	if err != nil {
		t.Fatalf("probe.New: got error %v, want nil", err)
	}
	if p == nil {
		t.Fatal("probe.New: got no probe")
	}
	want := probe.Params{"expected_value": "Paris", "match_mode": "contains", "case_sensitive": false}
	if diff := cmp.Diff(want, params); diff != "" {
		t.Errorf("defaults mismatch (-want +got):\n%s", diff)
	}
}

func TestConsistency(t *testing.T) {
	long := strings.Repeat("ü", 300)
	tests := []struct {
		name    string
		params  map[string]any
		content string
		pass    bool
		meta    map[string]any // nil to skip
		details string
		// built, when set, is evaluated instead of a probe built from
		// params: a Consistency as Go callers build it, zero fields and
		// modes New rejects included.
		built probe.Probe
	}{
		{name: "contains ignoring case", params: map[string]any{"expected_value": "Paris"},
			content: "The capital of France is PARIS.", pass: true,
			meta:    map[string]any{"expected": "Paris", "match_mode": "contains", "response_preview": "The capital of France is PARIS."},
			details: `Expected value "Paris" found in the response (mode contains).`},
		{name: "contains absent", params: map[string]any{"expected_value": "Paris"}, content: "It is Lyon.",
			meta:    map[string]any{"expected": "Paris", "match_mode": "contains", "response_preview": "It is Lyon."},
			details: `Expected value "Paris" not found in the response (mode contains).`},
		{name: "contains case sensitive", params: map[string]any{"expected_value": "Paris", "case_sensitive": true},
			content: "paris"},
		{name: "contains is a substring test", params: map[string]any{"expected_value": "4"}, content: "The answer is 42.", pass: true},
		{name: "contains does not trim the expected value", params: map[string]any{"expected_value": " Paris "},
			content: "Paris.", pass: false},
		{name: "exact after trimming", params: map[string]any{"expected_value": "Paris", "match_mode": "exact"},
			content: "  Paris\n", pass: true,
			meta: map[string]any{"expected": "Paris", "match_mode": "exact", "response_preview": "  Paris\n"}},
		{name: "exact trims the expected value", params: map[string]any{"expected_value": " paris ", "match_mode": "exact"},
			content: "PARIS", pass: true},
		{name: "exact rejects punctuation", params: map[string]any{"expected_value": "Paris", "match_mode": "exact"},
			content: "Paris."},
		{name: "exact case sensitive", params: map[string]any{"expected_value": "Paris", "match_mode": "exact", "case_sensitive": true},
			content: "paris"},
		{name: "exact on empty content", params: map[string]any{"expected_value": "x", "match_mode": "exact"}, content: ""},
		{name: "startswith", params: map[string]any{"expected_value": "Paris", "match_mode": "startswith"},
			content: "\n  paris is the capital.", pass: true},
		{name: "startswith later in the text", params: map[string]any{"expected_value": "Paris", "match_mode": "startswith"},
			content: "The capital is Paris."},
		{name: "startswith keeps the expected value's spaces", params: map[string]any{"expected_value": " Paris", "match_mode": "startswith"},
			content: "Paris is the capital."},
		{name: "startswith case sensitive", params: map[string]any{"expected_value": "Paris", "match_mode": "startswith", "case_sensitive": true},
			content: "paris is the capital."},
		{name: "unicode ignoring case", params: map[string]any{"expected_value": "ÉLYSÉE"}, content: "le palais de l'élysée", pass: true},
		{name: "empty content", params: map[string]any{"expected_value": "Paris"}, content: ""},
		{name: "preview is 200 code points", params: map[string]any{"expected_value": "ü"}, content: long, pass: true,
			meta: map[string]any{"expected": "ü", "match_mode": "contains", "response_preview": strings.Repeat("ü", 200)}},
		{name: "struct: zero mode is contains", built: &factual.Consistency{ExpectedValue: "b"}, content: "abc", pass: true,
			meta: map[string]any{"expected": "b", "match_mode": "contains", "response_preview": "abc"}, details: "found"},
		{name: "struct: exact", built: &factual.Consistency{ExpectedValue: "abc", MatchMode: factual.Exact}, content: " ABC ", pass: true,
			meta: map[string]any{"expected": "abc", "match_mode": "exact", "response_preview": " ABC "}, details: "found"},
		{name: "struct: startswith", built: &factual.Consistency{ExpectedValue: "ab", MatchMode: factual.StartsWith, CaseSensitive: true}, content: "Abc",
			meta: map[string]any{"expected": "ab", "match_mode": "startswith", "response_preview": "Abc"}, details: "not found"},
		{name: "struct: unknown mode fails", built: &factual.Consistency{ExpectedValue: "a", MatchMode: "regex"}, content: "a",
			meta: map[string]any{"expected": "a", "match_mode": "regex", "response_preview": "a"}, details: `Unknown match mode "regex"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.built
			if p == nil {
				p = probetest.New(t, "factual_consistency", tc.params)
			}
			got := probetest.Eval(p, &promptcanary.Prompt{ID: "p"}, &promptcanary.Response{Content: tc.content})
			score := map[bool]float64{true: 1, false: 0}[tc.pass]
			probetest.CheckResult(t, got, probetest.Want{Passed: tc.pass, Score: score, Meta: tc.meta, Details: tc.details})
		})
	}
}

func TestConsistencyNumericExpectedValue(t *testing.T) {
	// `expected_value: 4` in YAML decodes as a number and means the text "4".
	p, _, err := probe.New("factual_consistency", map[string]any{"expected_value": 4})
	if err != nil {
		t.Fatal(err)
	}
	got := probetest.Eval(p, &promptcanary.Prompt{}, &promptcanary.Response{Content: "2 + 2 = 4"})
	if !got.Passed || got.Score != 1 {
		t.Errorf("got %+v, want a pass on content containing 4", got)
	}
}

func TestConsistencyConfig(t *testing.T) {
	tests := []struct {
		name   string
		params map[string]any
		want   []string
		msg    string
		hint   string
	}{
		{name: "missing expected_value", params: nil, want: []string{"expected_value"}, msg: "required parameter is missing"},
		{name: "empty expected_value", params: map[string]any{"expected_value": ""}, want: []string{"expected_value"},
			msg: "must not be empty"},
		{name: "bad match_mode", params: map[string]any{"expected_value": "x", "match_mode": "fuzzy"}, want: []string{"match_mode"},
			msg: `invalid value "fuzzy"`, hint: "contains, exact, startswith"},
		{name: "match_mode is case sensitive", params: map[string]any{"expected_value": "x", "match_mode": "Exact"},
			want: []string{"match_mode"}},
		{name: "unknown parameter", params: map[string]any{"expected_value": "x", "mode": "exact"}, want: []string{"mode"},
			msg: "unknown parameter for factual_consistency"},
		{name: "every problem at once", params: map[string]any{"match_mode": "regex", "case_sensitive": "yes"},
			want: []string{"case_sensitive", "expected_value", "match_mode"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := probe.New("factual_consistency", tc.params)
			if err == nil {
				t.Fatalf("probe.New(%v): got nil error, want one", tc.params)
			}
			var names, hints []string
			params, other := probe.ParamErrors(err)
			for _, e := range other {
				t.Errorf("error %v (%T): want a *probe.ParamError", e, e)
			}
			for _, pe := range params {
				names, hints = append(names, pe.Param), append(hints, pe.Hint)
			}
			slices.Sort(names)
			if !slices.Equal(names, tc.want) {
				t.Errorf("params in error: got %v, want %v (error %v)", names, tc.want, err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error: got %q, want it to contain %q", err, tc.msg)
			}
			if tc.hint != "" && !slices.ContainsFunc(hints, func(h string) bool { return strings.Contains(h, tc.hint) }) {
				t.Errorf("hints: got %q, want one containing %q", hints, tc.hint)
			}
		})
	}
}

func FuzzConsistency(f *testing.F) {
	f.Add("Paris", "The capital is Paris.")
	f.Add("ü", "\xff\xfe")
	f.Add("  x ", "x")
	f.Fuzz(func(t *testing.T, expected, content string) {
		for _, mode := range []factual.MatchMode{factual.Contains, factual.Exact, factual.StartsWith} {
			c := &factual.Consistency{ExpectedValue: expected, MatchMode: mode}
			got := probetest.Eval(c, &promptcanary.Prompt{}, &promptcanary.Response{Content: content})
			if got.Passed != (got.Score == 1) || (got.Score != 0 && got.Score != 1) || math.IsNaN(got.Score) {
				t.Fatalf("%s: got passed %v score %v, want 1/0", mode, got.Passed, got.Score)
			}
			// Exact implies startswith implies contains, for a trimmed expected value.
			if mode == factual.Exact && got.Passed && expected == strings.TrimSpace(expected) {
				s := probetest.Eval(&factual.Consistency{ExpectedValue: expected, MatchMode: factual.StartsWith}, &promptcanary.Prompt{}, &promptcanary.Response{Content: content})
				if !s.Passed {
					t.Fatalf("exact passed but startswith failed for %q in %q", expected, content)
				}
			}
			if p, _ := got.Metadata["response_preview"].(string); len([]rune(p)) > 200 {
				t.Fatalf("preview: got %d characters, want <= 200", len([]rune(p)))
			}
		}
	})
}

func BenchmarkConsistency(b *testing.B) {
	content := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 100) + "The capital of France is Paris."
	for _, mode := range []factual.MatchMode{factual.Contains, factual.Exact, factual.StartsWith} {
		b.Run(string(mode), func(b *testing.B) {
			c := &factual.Consistency{ExpectedValue: "paris", MatchMode: mode}
			resp := &promptcanary.Response{Content: content}
			b.ReportAllocs()
			for b.Loop() {
				probetest.Eval(c, &promptcanary.Prompt{}, resp)
			}
		})
	}
}
