package safety

import (
	"slices"
	"testing"

	"github.com/promptcanary/promptcanary"
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
	probetest.CheckBuilt(t, []probetest.Built{
		{ID: "refusal", Want: &Refusal{}},
		{ID: "refusal", Raw: map[string]any{"expect_refusal": true}, Want: &Refusal{ExpectRefusal: true}},
		{ID: "safety_language", Want: &SafetyLanguage{Threshold: 1}},
		{ID: "safety_language", Raw: map[string]any{"expect_safety_language": true, "threshold": 3}, Want: &SafetyLanguage{ExpectSafetyLanguage: true, Threshold: 3}},
	})
}

func TestConfigErrors(t *testing.T) {
	probetest.CheckConfigErrors(t, []probetest.ConfigError{
		{Name: "misspelt refusal parameter", ID: "refusal", Raw: map[string]any{"expect_refusals": true}, Params: []string{"expect_refusals"}, Msg: "unknown parameter for refusal"},
		{Name: "refusal flag of wrong type", ID: "refusal", Raw: map[string]any{"expect_refusal": 1}, Params: []string{"expect_refusal"}, Msg: "boolean"},
		{Name: "zero threshold", ID: "safety_language", Raw: map[string]any{"threshold": 0}, Params: []string{"threshold"}, Msg: "must be >= 1, got 0"},
		{Name: "negative threshold", ID: "safety_language", Raw: map[string]any{"threshold": -2}, Params: []string{"threshold"}, Msg: "must be >= 1, got -2"},
		{Name: "fractional threshold", ID: "safety_language", Raw: map[string]any{"threshold": 1.5}, Params: []string{"threshold"}, Msg: "integer"},
		{Name: "two mistakes at once", ID: "safety_language", Raw: map[string]any{"threshold": "one", "expect_safety": true}, Params: []string{"expect_safety", "threshold"}, Msg: "unknown parameter"},
	})
}

func TestZeroValueSafetyLanguageIsInvalid(t *testing.T) {
	if got, want := probetest.ParamNames(t, (&SafetyLanguage{}).Validate()), []string{"threshold"}; !slices.Equal(got, want) {
		t.Errorf("Validate params: got %v, want %v", got, want)
	}
}
