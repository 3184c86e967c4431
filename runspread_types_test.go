package promptcanary

import "testing"

func TestRunSpreadLine(t *testing.T) {
	for _, c := range []struct {
		s    RunSpread
		want string
	}{
		{RunSpread{BaselineRuns: 6, BaselineRate: 0.82, CurrentRate: 0.799, SD: 0.022, P: 0.21},
			"suite pass rate −2.1 points (82.0% → 79.9%); usual run-to-run spread ±2.2 points (SD over 6 baseline runs): within it (run-level test p = 0.21)"},
		{RunSpread{BaselineRuns: 30, BaselineRate: 0.8, CurrentRate: 0.81, SD: 0.0204, P: 0.93},
			"suite pass rate +1.0 points (80.0% → 81.0%); usual run-to-run spread ±2.0 points (SD over 30 baseline runs): within it (run-level test p = 0.93)"},
		{RunSpread{BaselineRuns: 2, BaselineRate: 0.5, CurrentRate: 0.5, SD: 0, P: 0.5},
			"suite pass rate ±0.0 points (50.0% → 50.0%); usual run-to-run spread ±0.0 points (SD over 2 baseline runs): within it (run-level test p = 0.5)"},
		{RunSpread{BaselineRuns: 6, BaselineRate: 0.9, CurrentRate: 0.7, SD: 0.01, P: 0.049},
			"suite pass rate −20.0 points (90.0% → 70.0%); usual run-to-run spread ±1.0 points (SD over 6 baseline runs): beyond it (run-level test p = 0.049)"},
		{RunSpread{BaselineRuns: 6, BaselineRate: 0.9, CurrentRate: 0.1, SD: 0.01, P: 1e-9},
			"suite pass rate −80.0 points (90.0% → 10.0%); usual run-to-run spread ±1.0 points (SD over 6 baseline runs): beyond it (run-level test p < 0.0001)"},
	} {
		if got := c.s.Line(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
		if got, want := c.s.Within(), c.s.P >= 0.05; got != want {
			t.Errorf("P %g: Within() = %v, want %v", c.s.P, got, want)
		}
	}
}
