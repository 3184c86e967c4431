package store_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/storetest"
)

// maxStatisticalBaseline bounds the file of a 200-prompt × 10-probe
// baseline at 30 samples (6,000 responses, 60,000 probe results).
const maxStatisticalBaseline = 3 << 20

func largeBaseline() *promptcanary.Baseline {
	r := storetest.LargeRun("large-run", 200, 10, 30, 1)
	return storetest.NewBaseline("large-snapshot", r, r.FinishedAt, "")
}

func TestStatisticalBaselineSize(t *testing.T) {
	b := largeBaseline()
	if n := len(b.RunResult.ProbeResults); n < 59000 {
		t.Fatalf("fixture has %d results, want about 60,000", n)
	}
	data, err := store.MarshalBaseline(b, store.LayoutAuto)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := store.MarshalBaseline(b, store.LayoutPlain)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("baseline file: %d bytes compact, %d plain", len(data), len(plain))
	if len(data) > maxStatisticalBaseline {
		t.Errorf("compact baseline: got %d bytes, want at most %d", len(data), maxStatisticalBaseline)
	}
	got, err := store.UnmarshalBaseline(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(b, got, cmpopts.EquateNaNs()); diff != "" {
		t.Errorf("round trip (-want +got):\n%.4000s", diff)
	}
}

// benchLayouts are the layouts the baseline benchmarks measure, by name.
var benchLayouts = []struct {
	name   string
	layout store.Layout
}{{"compact", store.LayoutCompact}, {"plain", store.LayoutPlain}}

func BenchmarkMarshalBaseline(b *testing.B) {
	base := largeBaseline()
	for _, l := range benchLayouts {
		b.Run(l.name, func(b *testing.B) {
			var n int
			b.ReportAllocs()
			for b.Loop() {
				data, err := store.MarshalBaseline(base, l.layout)
				if err != nil {
					b.Fatal(err)
				}
				n = len(data)
			}
			b.ReportMetric(float64(n), "bytes")
		})
	}
}

func BenchmarkUnmarshalBaseline(b *testing.B) {
	base := largeBaseline()
	for _, l := range benchLayouts {
		b.Run(l.name, func(b *testing.B) {
			data, err := store.MarshalBaseline(base, l.layout)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := store.UnmarshalBaseline(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
