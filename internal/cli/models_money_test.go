package cli

import "testing"

// TestMoney: whole cents print with two decimals whatever float rounding
// does to them (o3-mini's $1.10 and $4.40 printed as $1.1 and $4.4),
// finer prices in full.
func TestMoney(t *testing.T) {
	for x, want := range map[float64]string{1.1: "$1.10", 4.4: "$4.40", 0.075: "$0.075", 15: "$15.00", 0.3: "$0.30", 2.5: "$2.50", 0.0375: "$0.0375"} {
		if got := money(x); got != want {
			t.Errorf("money(%v) = %q, want %q", x, got, want)
		}
	}
}
