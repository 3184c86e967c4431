package promptcanary

import "testing"

func TestUSD(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{{0, "$0"}, {0.82, "$0.82"}, {0.0528, "$0.053"}, {0.0041, "$0.0041"}, {12.4, "$12.40"}} {
		if got := USD(tc.v); got != tc.want {
			t.Errorf("USD(%g) = %q, want %q", tc.v, got, tc.want)
		}
	}
	if a, b := USDPair(0.581, 0.584); a != "$0.581" || b != "$0.584" {
		t.Errorf("USDPair(0.581, 0.584) = %q, %q, want $0.581, $0.584", a, b)
	}
}

func TestEconomicMeasureLine(t *testing.T) {
	m := EconomicMeasure{Measure: MeasureCost, Baseline: 0.58, Current: 0.82, Change: 0.82/0.58 - 1, Test: EconomicTestAnswers, P: 0.0005, Q: 0.0015, Flagged: true}
	if got, want := m.Line(), "cost per run: $0.58 → $0.82 (+41%); answer permutation p=5.0e-04, q=1.5e-03; flagged"; got != want {
		t.Errorf("Line() = %q, want %q", got, want)
	}
	na := EconomicMeasure{Measure: MeasureLatency, NA: "latency not recorded"}
	if got, want := na.Line(), "latency per call: n/a (latency not recorded)"; got != want {
		t.Errorf("Line() = %q, want %q", got, want)
	}
}
