package check

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

// TestCompareAttributes: every pair's report carries its likely cause, and
// a control arm is run beside the target and weighed.
func TestCompareAttributes(t *testing.T) {
	hist, st := openStore(t), loadSuite(t, suiteYAML)
	targets, samples := mustResolve(t, st, Settings{})
	mustRun(t, RunRequest{Suite: st, Targets: targets, Samples: samples, History: hist, SaveBaseline: true, BaselineDir: t.TempDir()})
	compare := func(provider string, control *Target) (*CompareOutcome, error) {
		tg, n := mustResolve(t, st, Settings{Providers: []string{provider}})
		return Compare(context.Background(), CompareRequest{Suite: st, Targets: tg, Samples: n, Control: control,
			Baselines: Baselines{History: hist}, BaselineModel: "sim/stable"})
	}
	cases := []struct {
		provider string
		control  *Target
		cause    string
		evidence string
	}{
		{"sim/stable", nil, promptcanary.CauseNoise, "nothing moved"},
		{"sim/drifted", nil, promptcanary.CauseProvider, "model changed"},
		{"sim/drifted", &targets[0], promptcanary.CauseProvider, "the control sim/stable held"},
	}
	for _, tc := range cases {
		out, err := compare(tc.provider, tc.control)
		if err != nil {
			t.Fatal(err)
		}
		a := out.Pairs[0].Report.Attribution
		if a == nil || a.Cause != tc.cause || !strings.Contains(a.Line(), tc.evidence) {
			t.Errorf("%s (control %v): got %+v, want %s with %q", tc.provider, tc.control != nil, a, tc.cause, tc.evidence)
		}
		if (out.Control != nil) != (tc.control != nil) {
			t.Errorf("%s: got control %v, want %v", tc.provider, out.Control != nil, tc.control != nil)
		}
		if out.Control != nil && (out.Control.Report.HasDrift || out.Control.Report.Compared() == 0) {
			t.Errorf("the control against its own baseline: got drift %v, compared %d; want a clean compare", out.Control.Report.HasDrift, out.Control.Report.Compared())
		}
	}
	noBase, _ := mustResolve(t, st, Settings{Providers: []string{"sim/noisy"}})
	_, err := compare("sim/drifted", &noBase[0])
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "control" || !strings.Contains(strings.Join(fe.Hints(), "\n"), "promptcanary run --save-baseline -p sim/noisy") {
		t.Errorf("control without a baseline: got %v, want a control field error with a hint to save one", err)
	}
}
