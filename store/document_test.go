package store

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
)

const (
	runDoc   = `{"run_id":"r1","suite_name":"s","provider":{"model_id":"m1"},"started_at":"2025-03-01T11:59:59.999999","probe_results":[{"probe_id":"p","score":null}],"llm_responses":[{"prompt_id":"a","timestamp":"2025-03-01T11:59:59.999999"}]}`
	run2Doc  = `{"run_id":"r2","suite_name":"s","provider":{"model_id":"m2"},"started_at":"2025-03-01T12:00:00Z"}`
	driftDoc = `{"report_id":"d","generated_at":"2025-03-01T11:59:59.999999","baseline_created_at":"2025-02-01T00:00:00","comparisons":[]}`
)

func TestDecodeDocument(t *testing.T) {
	python, err := os.ReadFile("testdata/python-null-score.json")
	if err != nil {
		t.Fatal(err)
	}
	naive := time.Date(2025, 3, 1, 11, 59, 59, 999999000, time.UTC)
	tests := []struct {
		name  string
		in    string
		kind  DocumentKind
		check func(t *testing.T, d *Document)
	}{
		{"run with naive times and a null score", runDoc, KindRun, func(t *testing.T, d *Document) {
			r := d.Run
			if r.RunID != "r1" || !r.StartedAt.Equal(naive) || !r.LLMResponses[0].Timestamp.Equal(naive) || !math.IsNaN(r.ProbeResults[0].Score) {
				t.Errorf("got %+v", r)
			}
		}},
		{"python baseline", string(python), KindBaseline, func(t *testing.T, d *Document) {
			if d.Baseline.SnapshotID != "3f2b9c1e-7d4a-4e8b-9f10-2a3b4c5d6e7f" || d.Run != &d.Baseline.RunResult || len(d.Run.ProbeResults) != 2 {
				t.Errorf("got %+v", d)
			}
		}},
		{"drift report", driftDoc, KindDrift, func(t *testing.T, d *Document) {
			if d.Drift.ReportID != "d" || !d.Drift.GeneratedAt.Equal(naive) || d.Drift.BaselineCreatedAt.Month() != 2 {
				t.Errorf("got %+v", d.Drift)
			}
		}},
		{"side by side", `{"kind":"side_by_side","runs":[` + runDoc + `,` + run2Doc + `]}`, KindSideBySide, func(t *testing.T, d *Document) {
			if len(d.Runs) != 2 || d.Runs[0].RunID != "r1" || d.Runs[1].RunID != "r2" || !d.Runs[0].StartedAt.Equal(naive) {
				t.Errorf("got %+v", d.Runs)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := DecodeDocument([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if d.Kind != tc.kind {
				t.Fatalf("kind: got %q, want %q", d.Kind, tc.kind)
			}
			tc.check(t, d)
		})
	}
}

func TestDecodeDocumentErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "  \n", "decode document: empty input, want a JSON object"},
		{"array", `[{"run_id":"r"}]`, "decode document: a JSON array, want an object"},
		{"string", `"run"`, "decode document: a JSON string, want an object"},
		{"null", `null`, "decode document: JSON null, want an object"},
		{"number", `12`, "decode document: a JSON number, want an object"},
		{"truncated", `{"run_id":"r","probe_results":[`, "decode document: truncated JSON (31 bytes): unexpected end of JSON input"},
		{"not json", `{"run_id" 1}`, "decode document: not JSON: invalid character '1' after object key"},
		{"other object", `{"name":"x","probes":[],"prompts":[]}`,
			`decode document: not a PromptCanary run, baseline, drift report or side-by-side report: a JSON object with keys "name", "probes", "prompts" (want run_id, snapshot_id, report_id or kind)`},
		{"empty object", `{}`, "decode document: not a PromptCanary run, baseline, drift report or side-by-side report: a JSON object with keys none (want run_id, snapshot_id, report_id or kind)"},
		{"trend data", `{"suite":"s","runs":[],"scores":[],"drifts":[]}`, "decode document: this is trend data (report trends -o), not a run, baseline or drift report"},
		{"unknown kind", `{"kind":"matrix","runs":[]}`, `decode document: unknown kind "matrix", want "side_by_side"`},
		{"side by side without runs", `{"kind":"side_by_side","runs":[]}`, "decode side-by-side report: no runs"},
		{"side by side with a null run", `{"kind":"side_by_side","runs":[null]}`, "decode side-by-side report: run 1 is null"},
		{"bad baseline time", `{"snapshot_id":"s","created_at":"noon"}`, `decode baseline: parse time "noon"`},
		{"bad run score", `{"run_id":"r","probe_results":[{"score":"high"}]}`, "decode run: json: cannot unmarshal string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeDocument([]byte(tc.in))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestPickRun(t *testing.T) {
	side, err := DecodeDocument([]byte(`{"kind":"side_by_side","runs":[` + runDoc + `,` + run2Doc + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	one, err := DecodeDocument([]byte(`{"kind":"side_by_side","runs":[` + run2Doc + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	run, err := DecodeDocument([]byte(runDoc))
	if err != nil {
		t.Fatal(err)
	}
	drift := &Document{Kind: KindDrift, Drift: &promptcanary.DriftReport{}}
	tests := []struct {
		name    string
		d       *Document
		model   string
		wantID  string
		wantErr string
	}{
		{"run, any model", run, "", "r1", ""},
		{"run, its model", run, "m1", "r1", ""},
		{"run, another model", run, "m2", "", `pick run: the run holds a run of "m1", not "m2"`},
		{"side by side, by model", side, "m2", "r2", ""},
		{"side by side, no model", side, "", "", "pick run: the side-by-side report holds 2 runs (m1, m2): name the provider to use"},
		{"side by side, unknown model", side, "m3", "", `pick run: the side-by-side report has no run of "m3", only of m1, m2`},
		{"side by side of one", one, "", "r2", ""},
		{"drift", drift, "", "", "pick run: a drift report holds no run"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tc.d.PickRun(tc.model)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Errorf("got %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || r.RunID != tc.wantID {
				t.Errorf("got %v, %v, want %s", r, err, tc.wantID)
			}
		})
	}
}

// objectCases are JSON documents and non-documents whose top-level fields
// objectFields must find as encoding/json does.
var objectCases = []string{
	runDoc, run2Doc, driftDoc, `{}`, ` { } `, "{\n\t\"a\" :\t1 ,\r\n \"b\":[1,{\"c\":\"}\"}],\"d\":null}", `{"a":1,"a":2}`,
	`{"k\u0069nd":"side_by_side"}`, `{"a\"b":"x\\"}`, `{"a":"\"}"}`, `{"a":true,"b":false,"c":-1.5e3}`,
	`null`, `[]`, `"x"`, `1`, `{`, `{"a":}`, `{"a":1}x`, ``, `{"a":1,}`,
}

func FuzzObjectFields(f *testing.F) {
	fuzzStrings(f, objectCases, checkObjectFields)
}

// checkObjectFields fails t when objectFields reads data otherwise than
// json.Unmarshal into a map of raw messages.
func checkObjectFields(t *testing.T, data string) {
	t.Helper()
	got, ok := objectFields([]byte(data))
	var want map[string]json.RawMessage
	err := json.Unmarshal([]byte(data), &want)
	if !ok {
		if err == nil && want != nil {
			t.Fatalf("%q: not read, but encoding/json reads %v", data, want)
		}
		return
	}
	if err != nil {
		t.Fatalf("%q: read, but encoding/json rejects it: %v", data, err)
	}
	if !maps.EqualFunc(got, want, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
		t.Fatalf("%q: got %q, want %q", data, got, want)
	}
}

// fuzzStrings seeds f with cases and fuzzes check, a check of one text
// (the fuzz tests of this package's decoders all read one).
func fuzzStrings(f *testing.F, cases []string, check func(t *testing.T, data string)) {
	for _, data := range cases {
		f.Add(data)
	}
	f.Fuzz(check)
}
