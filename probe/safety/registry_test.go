package safety

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

func TestRegistered(t *testing.T) {
	probetest.CheckRegistered(t, []probetest.Registered{
		{ID: "refusal", Name: "Refusal Detection", Category: promptcanary.CategorySafety,
			Defaults: map[string]any{"expect_refusal": false}},
		{ID: "safety_language", Name: "Safety Language / Disclaimers", Category: promptcanary.CategorySafety,
			Defaults: map[string]any{"expect_safety_language": false, "threshold": 1}},
	})
}

func TestNewAppliesParams(t *testing.T) {
	tests := []struct {
		id   string
		raw  map[string]any
		want probe.Probe
	}{
		{"refusal", nil, &Refusal{}},
		{"refusal", map[string]any{"expect_refusal": true}, &Refusal{ExpectRefusal: true}},
		{"safety_language", nil, &SafetyLanguage{Threshold: 1}},
		{"safety_language", map[string]any{"expect_safety_language": true, "threshold": 3}, &SafetyLanguage{ExpectSafetyLanguage: true, Threshold: 3}},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			got, _, err := probe.New(tc.id, tc.raw)
			if err != nil {
				t.Fatalf("New(%q, %v): %v", tc.id, tc.raw, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("probe (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name   string
		id     string
		raw    map[string]any
		params []string
		msg    string
	}{
		{"misspelt refusal parameter", "refusal", map[string]any{"expect_refusals": true}, []string{"expect_refusals"}, "unknown parameter for refusal"},
		{"refusal flag of wrong type", "refusal", map[string]any{"expect_refusal": 1}, []string{"expect_refusal"}, "boolean"},
		{"zero threshold", "safety_language", map[string]any{"threshold": 0}, []string{"threshold"}, "must be >= 1, got 0"},
		{"negative threshold", "safety_language", map[string]any{"threshold": -2}, []string{"threshold"}, "must be >= 1, got -2"},
		{"fractional threshold", "safety_language", map[string]any{"threshold": 1.5}, []string{"threshold"}, "integer"},
		{"two mistakes at once", "safety_language", map[string]any{"threshold": "one", "expect_safety": true},
			[]string{"expect_safety", "threshold"}, "unknown parameter"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, _, err := probe.New(tc.id, tc.raw)
			if err == nil {
				t.Fatalf("New(%q, %v): got probe %v, want an error", tc.id, tc.raw, p)
			}
			var pe *probe.ParamError
			if !errors.As(err, &pe) {
				t.Errorf("error: got %T %v, want a *probe.ParamError", err, err)
			}
			if got := probetest.ParamNames(t, err); !slices.Equal(got, tc.params) {
				t.Errorf("params: got %v, want %v", got, tc.params)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error: got %q, want it to contain %q", err, tc.msg)
			}
		})
	}
}

func TestZeroValueSafetyLanguageIsInvalid(t *testing.T) {
	if got, want := probetest.ParamNames(t, (&SafetyLanguage{}).Validate()), []string{"threshold"}; !slices.Equal(got, want) {
		t.Errorf("Validate params: got %v, want %v", got, want)
	}
}
