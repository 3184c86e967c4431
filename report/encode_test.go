package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// bigDrift is a drift report of n comparisons, as large in JSON as a
// statistical compare's.
func bigDrift(n int) *promptcanary.DriftReport {
	d := &promptcanary.DriftReport{ReportID: "r", SuiteName: "s", CurrentRunID: "c", Method: "statistical",
		OverallBaselineScore: 0.9, OverallCurrentScore: 0.8}
	for i := range n {
		d.Comparisons = append(d.Comparisons, promptcanary.Comparison{
			ProbeID: fmt.Sprintf("probe-%d", i%10), PromptID: fmt.Sprintf("prompt-%d", i/10), Status: promptcanary.StatusStable,
			BaselineScore: 0.5, CurrentScore: 0.25, BaselineDetails: strings.Repeat("<detail> ", 40),
			BaselineExample: strings.Repeat("an answer ", 50),
		})
	}
	return d
}

// The JSON of a drift report is the bytes it always was, its compact text
// held once while it is written: json.Marshal copied the report's
// MarshalJSON output and then its own, so a compare's report (40 MB
// indented at 2,000 prompts) was held three times at the compare's peak.
func TestDriftJSONHeldOnce(t *testing.T) {
	d := bigDrift(5000)
	compact, err := store.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := store.WriteIndent(&want, compact); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := Drift(&got, JSON, d, Options{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatal("the drift report's JSON changed")
	}
	// Encoding into a growing buffer allocates about twice what it
	// holds at the end; the copies came on top. TotalAlloc counts every
	// goroutine and encoding/json reuses pooled buffers that a collection
	// may have dropped, so the least of three tries is what writing costs.
	cost := uint64(math.MaxUint64)
	for range 3 {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := Drift(io.Discard, JSON, d, Options{}); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		cost = min(cost, after.TotalAlloc-before.TotalAlloc)
	}
	if limit := 3 * uint64(len(compact)); cost > limit {
		t.Errorf("writing a report of %d bytes of JSON allocated %d bytes, want at most %d", len(compact), cost, limit)
	}
}

// Reports whose scores are not numbers are written as before: nulls where
// the floats were, the overall scores last when there are no others.
func TestDriftJSONNonFinite(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(d *promptcanary.DriftReport)
	}{
		{"overall scores", func(d *promptcanary.DriftReport) {
			d.OverallBaselineScore, d.OverallCurrentScore = math.NaN(), math.NaN()
		}},
		{"a comparison's score", func(d *promptcanary.DriftReport) { d.Comparisons[1].ScoreDelta = math.Inf(1) }},
		{"both", func(d *promptcanary.DriftReport) {
			d.OverallBaselineScore = math.NaN()
			d.Comparisons[0].CurrentScore = math.NaN()
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := bigDrift(3)
			tt.edit(d)
			compact, err := store.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			var want, got bytes.Buffer
			if err := store.WriteIndent(&want, compact); err != nil {
				t.Fatal(err)
			}
			if err := Drift(&got, JSON, d, Options{}); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("got\n%s\nwant\n%s", got.String(), want.String())
			}
		})
	}
}
