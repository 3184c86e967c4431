package store

import (
	"bytes"
	"compress/gzip"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
)

func exampleDrift() *promptcanary.DriftReport {
	d := &promptcanary.DriftReport{ReportID: "rep", GeneratedAt: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC), SuiteName: "s", Method: "statistical"}
	for i, ex := range [][2]string{{"Paris.", "Paris!"}, {"Paris.", "Paris!"}, {"", "Lyon"}, {"", ""}} {
		d.Comparisons = append(d.Comparisons, promptcanary.Comparison{ProbeID: "p", PromptID: string(rune('a' + i)),
			Status: promptcanary.StatusStable, BaselineExample: ex[0], CurrentExample: ex[1]})
	}
	return d
}

// gz compresses s as MarshalDriftBody does.
func gz(t *testing.T, s string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDriftBodyRoundTrip(t *testing.T) {
	d := exampleDrift()
	body, err := MarshalDriftBody(d)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := gunzip(body)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(plain), `"Paris."`); n != 1 {
		t.Errorf("the stored form holds the example %q %d times, want once:\n%s", "Paris.", n, plain)
	}
	got, err := UnmarshalDrift(body)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(d, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if d.Comparisons[0].BaselineExample != "Paris." {
		t.Error("MarshalDriftBody changed the report it encoded")
	}
}

func TestDriftBodyRejects(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"newer encoding", `{"encoding":"drift-examples-once","version":2,"report":{}}`, "upgrade promptcanary"},
		{"example out of range", `{"encoding":"drift-examples-once","version":1,"examples":[""],"example_of":[[0,3]],"report":{"comparisons":[{}]}}`, "out of range"},
		{"pairs missing", `{"encoding":"drift-examples-once","version":1,"examples":[""],"example_of":[],"report":{"comparisons":[{}]}}`, "0 example pairs for 1 comparisons"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := UnmarshalDrift(gz(t, tc.body))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
	if _, err := UnmarshalDrift([]byte{0x1f, 0x8b, 1, 2, 3}); err == nil || !strings.Contains(err.Error(), "decompress drift report") {
		t.Errorf("a broken gzip stream: got %v", err)
	}
}

// Storing a statistical compare's drift report encodes it once: json.Marshal
// copied the report's MarshalJSON output and then its own, three times the
// report's JSON (20 MB at 2,000 prompts) held at once while the history saved
// it. The stored body still reads back as the report.
func TestDriftBodyEncodesOnce(t *testing.T) {
	d := exampleDrift()
	d.OverallBaselineScore, d.OverallCurrentScore = 0.9, 0.8
	for i := range 20000 {
		d.Comparisons = append(d.Comparisons, promptcanary.Comparison{ProbeID: "p", PromptID: strings.Repeat("x", i%7) + string(rune('a'+i%26)),
			Status: promptcanary.StatusStable, BaselineDetails: strings.Repeat("detail ", 20), Evidence: strings.Repeat("evidence ", 10)})
	}
	plain, err := Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	// Encoding into a growing buffer allocates about twice what it holds
	// at the end, and the compressor a few megabytes; the copies came on
	// top (5.5 times the JSON). TotalAlloc counts every goroutine and
	// encoding/json reuses pooled buffers that a collection may have
	// dropped, so the least of three tries is what the encoding costs.
	var body []byte
	got := uint64(math.MaxUint64)
	for range 3 {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		body, err = MarshalDriftBody(d)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		got = min(got, after.TotalAlloc-before.TotalAlloc)
	}
	if limit := 3 * uint64(len(plain)); got > limit {
		t.Errorf("storing a report of %d bytes of JSON allocated %d bytes, want at most %d", len(plain), got, limit)
	}
	back, err := UnmarshalDrift(body)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(d, back); diff != "" {
		t.Errorf("read back (-stored +read):\n%s", diff)
	}
}
