//go:build unix

package cputime_test

import (
	"testing"

	"github.com/promptcanary/promptcanary/internal/cputime"
)

// TestProcessGrows burns CPU and checks the reading moves forward: a reading
// stuck at 0 would silently drop every benchmark's cpu metric.
func TestProcessGrows(t *testing.T) {
	before := cputime.Process()
	if before <= 0 {
		t.Fatalf("got %v before any work, want > 0", before)
	}
	x := uint64(1)
	for after := before; after <= before; after = cputime.Process() {
		for i := 0; i < 1_000_000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	if x == 0 {
		t.Log(x) // keeps the loop from being optimised away
	}
}
