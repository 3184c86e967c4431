package provider

import (
	"math"
	"testing"

	"github.com/promptcanary/promptcanary"
)

func TestCallSeed(t *testing.T) {
	s := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		seed   *int64
		sample int
		want   int64
		ok     bool
	}{
		{nil, 3, 0, false},
		{s(42), 0, 42, true},
		{s(42), 5, 47, true},
		{s(-1), 1, 0, true},
		{s(math.MaxInt64), 1, math.MinInt64, true}, // wraps, as documented
	} {
		r := Request{Config: promptcanary.ProviderConfig{Seed: tc.seed}, Sample: tc.sample}
		if got, ok := r.CallSeed(); got != tc.want || ok != tc.ok {
			t.Errorf("seed %v sample %d: got %d, %v; want %d, %v", tc.seed, tc.sample, got, ok, tc.want, tc.ok)
		}
	}
}
