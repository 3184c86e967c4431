package store

import (
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

// largeDrift is a drift report of n comparisons, as a statistical compare
// writes them (20,000 at 2,000 prompts × 10 probes).
func largeDrift(n int) *promptcanary.DriftReport {
	d := exampleDrift()
	d.OverallBaselineScore, d.OverallCurrentScore = 0.9, 0.8
	st := &promptcanary.DriftStatistics{Alpha: 0.01, Warnings: []string{"a <warning>", "another"}}
	for i := range n / 2 {
		st.Units = append(st.Units, promptcanary.TestedUnit{Kind: promptcanary.UnitPair, Key: "p/" + string(rune('a'+i%26)), P: 0.5, Q: 0.7, Evidence: strings.Repeat("unit ", 8)})
	}
	for i := range n / 4 {
		st.Signals = append(st.Signals, promptcanary.ChangeSignal{Kind: "chrf", PromptID: string(rune('a' + i%26)), Baseline: 0.9, Current: 0.8, Detail: "moved & changed"})
	}
	for i := range 30 {
		st.Nondeterminism = append(st.Nondeterminism, promptcanary.PromptNondeterminism{PromptID: string(rune('a' + i%26)), BaselineSamples: 30, CurrentDistinct: 2})
	}
	d.Statistics = st
	for i := range n {
		d.Comparisons = append(d.Comparisons, promptcanary.Comparison{ProbeID: "p", PromptID: strings.Repeat("x", i%7) + string(rune('a'+i%26)),
			Status: promptcanary.StatusStable, BaselineDetails: strings.Repeat("detail ", 20), Evidence: strings.Repeat("evidence ", 10),
			BaselineExample: "an answer <b>&</b> " + string(rune('a'+i%3))})
	}
	return d
}

// encodeDrift writes the bytes of Marshal, whatever the report holds,
// in pieces of about streamChunk bytes.
func TestEncodeDriftIsMarshal(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(d *promptcanary.DriftReport)
	}{
		{"plain", func(d *promptcanary.DriftReport) {}},
		{"no comparisons", func(d *promptcanary.DriftReport) { d.Comparisons = nil }},
		{"empty comparisons", func(d *promptcanary.DriftReport) { d.Comparisons = []promptcanary.Comparison{} }},
		{"overall scores NaN", func(d *promptcanary.DriftReport) {
			d.OverallBaselineScore, d.OverallCurrentScore = math.NaN(), math.NaN()
		}},
		{"a comparison's score infinite", func(d *promptcanary.DriftReport) { d.Comparisons[7].ScoreDelta = math.Inf(-1) }},
		{"a unit's p NaN", func(d *promptcanary.DriftReport) { d.Statistics.Units[3].P = math.NaN() }},
		{"no statistics", func(d *promptcanary.DriftReport) { d.Statistics = nil }},
		{"no lists in the statistics", func(d *promptcanary.DriftReport) {
			d.Comparisons = nil
			d.Statistics = &promptcanary.DriftStatistics{Units: []promptcanary.TestedUnit{}}
		}},
		{"one list", func(d *promptcanary.DriftReport) {
			d.Comparisons = nil
			d.Statistics.Units, d.Statistics.Nondeterminism, d.Statistics.Warnings = nil, nil, nil
		}},
		{"member names in strings", func(d *promptcanary.DriftReport) {
			d.ReportID = `"comparisons":[]`
			d.Summary = `{"comparisons":[]}`
			d.Comparisons[0].PromptID = `],"comparisons":[`
			d.Statistics.Signals[0].Detail = `"units":[{"kind":"pair"}],"signals":[`
			d.Statistics.Notes = []promptcanary.Note{{Text: `{"warnings":["x"]}`}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := largeDrift(2000)
			tc.edit(d)
			want, err := Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			var got []byte
			largest := 0
			err = encodeStream(d, func(p []byte) error {
				got = append(got, p...)
				largest = max(largest, len(p))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("encoded %d bytes unlike Marshal's %d", len(got), len(want))
			}
			if limit := 2 * streamChunk; len(want) > limit && largest > limit {
				t.Errorf("a piece of %d bytes of %d, want at most %d", largest, len(want), limit)
			}
		})
	}
}

// The indenter gives the same text however the JSON is cut into pieces.
func TestIndenterPieces(t *testing.T) {
	data, err := Marshal(map[string]any{
		"a": []any{}, "b": map[string]any{}, "c": []any{1, "x\"]}[{,:\\", []any{map[string]any{"d": nil}}},
		"e": map[string]any{"f": []any{true, false, 2.5}, "g": "\\\\"}, "h": strings.Repeat("long ", 100),
	})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, depth := range []int{0, 1, 2, math.MaxInt} {
		want := indentTo(data, depth)
		for range 200 {
			in := indenter{depth: depth}
			for rest := data; len(rest) > 0; {
				n := 1 + rng.IntN(min(len(rest), 12))
				if err := in.write(rest[:n]); err != nil {
					t.Fatal(err)
				}
				rest = rest[n:]
			}
			if !bytes.Equal(in.out, want) {
				t.Fatalf("depth %d: got\n%s\nwant\n%s", depth, in.out, want)
			}
		}
	}
}

// Neither storing a drift report nor writing its JSON holds the JSON whole
// (32 MB at 2,000 prompts × 10 probes, encoded twice after each compare):
// they allocate a fraction of it, where building it in one buffer
// allocated about twice its size.
func TestDriftJSONNeverWhole(t *testing.T) {
	d := largeDrift(20000)
	plain, err := Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		encode func() error
	}{
		{"MarshalDriftBody", func() error { _, err := MarshalDriftBody(d); return err }},
		{"EncodeIndent", func() error { return EncodeIndent(io.Discard, d) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// TotalAlloc counts every goroutine: the least of three tries
			// is what the encoding costs. Two collections empty
			// encoding/json's pool of buffers, which would hide a buffer
			// of the whole JSON after the first try.
			got := uint64(math.MaxUint64)
			for range 3 {
				runtime.GC()
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				err := tc.encode()
				runtime.ReadMemStats(&after)
				if err != nil {
					t.Fatal(err)
				}
				got = min(got, after.TotalAlloc-before.TotalAlloc)
			}
			t.Logf("%d bytes of JSON, %d allocated", len(plain), got)
			if limit := uint64(len(plain)) / 2; got > limit {
				t.Errorf("encoding a report of %d bytes of JSON allocated %d bytes, want at most %d", len(plain), got, limit)
			}
		})
	}
}
