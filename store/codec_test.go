package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
)

func TestMarshalNonFinite(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	type withFloat32 struct {
		F float32 `json:"f"`
		G float64 `json:"g"`
	}
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"finite is encoding/json", map[string]any{"a": 1.5, "b": "<x>"}, `{"a":1.5,"b":"\u003cx\u003e"}`},
		{"top-level NaN", nan, `null`},
		{"slice", []float64{1, nan, -inf}, `[1,null,null]`},
		{"map of floats", map[string]float64{"x": inf}, `{"x":null}`},
		{"nested any", map[string]any{"m": []any{map[string]any{"r": nan}, 2.0}}, `{"m":[{"r":null},2]}`},
		{"float32 field", withFloat32{F: float32(nan), G: nan}, `{"f":0,"g":null}`},
		{"probe result", promptcanary.ProbeResult{ProbeID: "p", Score: nan, Metadata: map[string]any{"k": inf}},
			`{"probe_id":"p","probe_name":"","category":"","prompt_id":"","sample":0,"passed":false,"score":null,"details":"","metadata":{"k":null}}`},
		{"pointer", &struct {
			P *withFloat32 `json:"p"`
		}{&withFloat32{G: inf}}, `{"p":{"f":0,"g":null}}`},
		{"raw message kept", struct {
			R json.RawMessage `json:"r"`
			F float64         `json:"f"`
		}{json.RawMessage(`{"n":1}`), nan}, `{"r":{"n":1},"f":null}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Marshal(tc.in)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestMarshalSentinelCollision(t *testing.T) {
	// A real number equal to the first sentinel, and a string holding its
	// text, must come out unchanged next to a NaN.
	token, _ := json.Marshal(sentinels[0])
	in := map[string]any{"real": sentinels[0], "text": string(token), "nan": math.NaN()}
	got, err := Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"nan":null,"real":` + string(token) + `,"text":"` + string(token) + `"}`
	if string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestMarshalIndentKeepsInput(t *testing.T) {
	r := &promptcanary.Run{RunID: "r", ProbeResults: []promptcanary.ProbeResult{{ProbeID: "p", Score: math.NaN(), Metadata: map[string]any{"x": math.NaN()}}}}
	got, err := MarshalIndent(r)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got, []byte("\n      \"score\": null,\n")) {
		t.Errorf("got %s, want an indented null score", got)
	}
	if !math.IsNaN(r.ProbeResults[0].Score) || !math.IsNaN(r.ProbeResults[0].Metadata["x"].(float64)) {
		t.Errorf("Marshal modified its input: %+v", r.ProbeResults[0])
	}
}

func TestUnmarshalRun(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		check   func(t *testing.T, r *promptcanary.Run)
		wantErr string
	}{
		{"null score is NaN", `{"run_id":"r","probe_results":[{"probe_id":"p","score":null},{"probe_id":"q","score":0.5}]}`,
			func(t *testing.T, r *promptcanary.Run) {
				if !math.IsNaN(r.ProbeResults[0].Score) || r.ProbeResults[1].Score != 0.5 || r.ProbeResults[1].ProbeID != "q" {
					t.Errorf("got %+v, want NaN then 0.5", r.ProbeResults)
				}
			}, ""},
		{"missing version reads as 0.1", `{"run_id":"r"}`, func(t *testing.T, r *promptcanary.Run) {
			if r.SchemaVersion != LegacySchemaVersion || r.ProbeResults != nil || r.LLMResponses != nil {
				t.Errorf("got version %q, results %v, want 0.1 and nil lists", r.SchemaVersion, r.ProbeResults)
			}
		}, ""},
		{"version kept", `{"run_id":"r","schema_version":"1","probe_results":[],"llm_responses":[]}`, func(t *testing.T, r *promptcanary.Run) {
			if r.SchemaVersion != "1" || r.ProbeResults == nil || len(r.ProbeResults) != 0 {
				t.Errorf("got version %q, results %#v, want 1 and an empty list", r.SchemaVersion, r.ProbeResults)
			}
		}, ""},
		{"naive and null times", `{"run_id":"r","started_at":"2025-03-01T12:00:00","finished_at":null,"llm_responses":[{"content":"c","timestamp":"2025-03-01 12:00:01.5"}]}`,
			func(t *testing.T, r *promptcanary.Run) {
				if !r.StartedAt.Equal(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)) || !r.FinishedAt.IsZero() ||
					!r.LLMResponses[0].Timestamp.Equal(time.Date(2025, 3, 1, 12, 0, 1, 5e8, time.UTC)) || r.LLMResponses[0].Content != "c" {
					t.Errorf("got %v %v %+v", r.StartedAt, r.FinishedAt, r.LLMResponses[0])
				}
			}, ""},
		{"score of the wrong type", `{"run_id":"r","probe_results":[{"score":"high"}]}`, nil, "json: cannot unmarshal string"},
		{"bad time", `{"run_id":"r","started_at":"noon"}`, nil, `parse time "noon"`},
		{"not an object", `[]`, nil, "json: cannot unmarshal array"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := UnmarshalRun([]byte(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("got %v, want an error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, r)
		})
	}
}

func TestUnmarshalBaselineAndDrift(t *testing.T) {
	b, err := UnmarshalBaseline([]byte(`{"snapshot_id":"s","created_at":"2025-03-01T12:00:00.123456","run_result":{"run_id":"r","started_at":"2025-03-01T11:00:00+00:00"},"_note":"n"}`))
	if err != nil {
		t.Fatal(err)
	}
	if b.SchemaVersion != LegacySchemaVersion || b.RunResult.SchemaVersion != LegacySchemaVersion || b.Note != "n" ||
		!b.CreatedAt.Equal(time.Date(2025, 3, 1, 12, 0, 0, 123456000, time.UTC)) || !b.RunResult.StartedAt.Equal(time.Date(2025, 3, 1, 11, 0, 0, 0, time.UTC)) {
		t.Errorf("got %+v", b)
	}
	d, err := UnmarshalDrift([]byte(`{"report_id":"d","generated_at":"2025-03-01T12:00:00","baseline_created_at":"2025-02-01T12:00:00Z","severity":"high"}`))
	if err != nil {
		t.Fatal(err)
	}
	if d.ReportID != "d" || d.Severity != promptcanary.SeverityHigh || d.GeneratedAt.Day() != 1 || d.BaselineCreatedAt.Month() != 2 {
		t.Errorf("got %+v", d)
	}
}

func TestParseTime(t *testing.T) {
	utc := func(ns int) time.Time { return time.Date(2025, 3, 1, 12, 0, 0, ns, time.UTC) }
	tests := []struct {
		in      string
		want    time.Time
		wantErr bool
	}{
		{in: "2025-03-01T12:00:00.123456Z", want: utc(123456000)},
		{in: "2025-03-01T12:00:00.123456+00:00", want: utc(123456000)},
		{in: "2025-03-01T14:00:00.123456+02:00", want: utc(123456000)},
		{in: "2025-03-01T12:00:00.123456", want: utc(123456000)},
		{in: "2025-03-01T12:00:00", want: utc(0)},
		{in: "2025-03-01T12:00:00.123456789Z", want: utc(123456789)},
		{in: "2025-03-01 12:00:00.5+00:00", want: utc(500000000)},
		{in: "2025-03-01 12:00:00", want: utc(0)},
		{in: "", wantErr: true},
		{in: "yesterday", wantErr: true},
		{in: "2025-13-01T12:00:00Z", wantErr: true},
		{in: "2025-03-01", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseTime(tc.in)
			if tc.wantErr {
				if err == nil {
					t.Errorf("got %v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func FuzzUnmarshalBaseline(f *testing.F) {
	f.Add([]byte(`{"snapshot_id":"s","created_at":"2025-03-01T12:00:00Z","run_result":{"run_id":"r","probe_results":[{"score":null}]}}`))
	f.Add([]byte(`{"created_at":"2025-03-01 12:00:00","run_result":{"llm_responses":[{"timestamp":null,"raw_response":{}}]}}`))
	f.Add([]byte(`{"snapshot_id":5}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := UnmarshalBaseline(data)
		if err != nil {
			return
		}
		if _, err := MarshalBaseline(b, LayoutCompact); err != nil {
			t.Fatalf("compact: %v", err)
		}
		// Whatever loads must store and load again to the same value.
		once, err := Marshal(b)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		b2, err := UnmarshalBaseline(once)
		if err != nil {
			t.Fatalf("reload %s: %v", once, err)
		}
		twice, err := Marshal(b2)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once, twice) {
			t.Errorf("not stable:\n%s\n%s", once, twice)
		}
	})
}

// roundTrip checks that what a decoder accepted encodes in every layout
// and decodes again to what encodes the same: a decoded run is always
// encodable, and the layouts lose nothing a second pass would.
func roundTripRun(t *testing.T, r *promptcanary.Run) {
	t.Helper()
	for _, l := range []Layout{LayoutPlain, LayoutCompact} {
		once, err := MarshalRun(r, l)
		if err != nil {
			t.Fatalf("layout %d: encode a decoded run: %v", l, err)
		}
		r2, err := UnmarshalRun(once)
		if err != nil {
			t.Fatalf("layout %d: decode %s: %v", l, once, err)
		}
		twice, err := MarshalRun(r2, l)
		if err != nil {
			t.Fatal(err)
		}
		r3, err := UnmarshalRun(twice)
		if err != nil {
			t.Fatal(err)
		}
		thrice, err := MarshalRun(r3, l)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(twice, thrice) {
			t.Errorf("layout %d: not stable:\n%s\n%s", l, twice, thrice)
		}
	}
}

func FuzzUnmarshalRun(f *testing.F) {
	f.Add([]byte(`{"run_id":"r","started_at":"2025-03-01T11:59:59.999999","probe_results":[{"probe_id":"p","score":null,"metadata":{"k":[1,"x"]}}],"llm_responses":[{"prompt_id":"a","latency_ms":null,"timestamp":"2025-03-01 12:00:00"}]}`))
	f.Add([]byte(`{"run_id":"r","probe_results":{"encoding":"compact","version":1,"strings":["a","p"],"metadata":[null,{}],"probes":[[1,1,1,1]],"outcomes":[[0,1,0.5,0,1],[0,0,null,0,0]],"rows":[[0,0,0,1],[0,1,1]]},` +
		`"llm_responses":{"encoding":"compact","version":1,"base":"2025-03-01T12:00:00Z","strings":["a","c",""],"tool_calls":[[{"name":"f","arguments":{}}]],"profiles":[[2,2,5,0,2,2,1]],"rows":[[0,0,1,0,1.5,3,0,1000,2],[0,1,1,0,null,3,0,null,2]]}}`))
	f.Add([]byte(`{"run_id":"r","probe_results":{"encoding":"compact","version":1,"rows":[[0,0,99999999]]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := UnmarshalRun(data)
		if err != nil {
			return
		}
		roundTripRun(t, r)
	})
}

func FuzzDecodeDocument(f *testing.F) {
	for _, name := range []string{"testdata/python-baseline.json", "testdata/python-null-score.json"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"kind":"side_by_side","runs":[{"run_id":"a","provider":{"model_id":"m1"}},{"run_id":"b"}]}`))
	f.Add([]byte(`{"report_id":"d","generated_at":"2025-03-01T12:00:00","comparisons":[{"probe_id":"p","baseline_score":1}]}`))
	f.Add([]byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := DecodeDocument(data)
		if err != nil {
			if d != nil {
				t.Errorf("got a document and an error %v", err)
			}
			return
		}
		switch d.Kind {
		case KindRun, KindBaseline:
			if d.Run == nil {
				t.Fatalf("%s without a run", d.Kind)
			}
			roundTripRun(t, d.Run)
		case KindSideBySide:
			for _, r := range d.Runs {
				roundTripRun(t, r)
			}
		case KindDrift:
			if _, err := Marshal(d.Drift); err != nil {
				t.Errorf("encode a decoded drift report: %v", err)
			}
		default:
			t.Fatalf("unknown kind %q", d.Kind)
		}
		if d.Kind != KindDrift {
			if _, err := d.PickRun(""); err != nil && d.Kind != KindSideBySide {
				t.Errorf("pick run: %v", err)
			}
		}
	})
}

func TestWriteIndent(t *testing.T) {
	big := manySamples() // plain, well over one chunk indented
	values := []any{
		map[string]any{}, []any{}, map[string]any{"a": []any{}, "b": map[string]any{}, "c": []any{1.0, "x", nil, map[string]any{"d": "e"}}},
		"a \"quoted\" {string} with [brackets], colons: and \\\\ backslashes",
		map[string]any{"nan": math.NaN(), "inf": math.Inf(1), "s": "<&>\u2028"},
		&big,
	}
	for i, v := range values {
		want, err := MarshalIndent(v)
		if err != nil {
			t.Fatal(err)
		}
		compact, err := Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteIndent(&buf, compact); err != nil {
			t.Fatal(err)
		}
		if got := buf.String(); got != string(want)+"\n" {
			t.Errorf("value %d: got %d bytes, want %d:\n%.300s", i, len(got), len(want)+1, got)
		}
	}
	compact, err := Marshal(&big)
	if err != nil {
		t.Fatal(err)
	}
	w := &failingWriter{after: 1}
	if err := WriteIndent(w, compact); err == nil || w.n > indentChunk+indentChunk/4 {
		t.Errorf("failing writer: got %v after %d bytes, want its error after one chunk", err, w.n)
	}
}

type failingWriter struct{ n, after int }

func (w *failingWriter) Write(b []byte) (int, error) {
	w.n += len(b)
	if w.n > w.after {
		return 0, errors.New("disk full")
	}
	return len(b), nil
}
