package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/jsonscan"
)

// DocumentKind says what a JSON document written by PromptCanary (or by
// the original Python tool) holds.
type DocumentKind string

// The kinds of document DecodeDocument recognises.
const (
	// KindRun is one run, as "run -o" writes it and the history keeps it.
	KindRun DocumentKind = "run"
	// KindBaseline is a baseline file: a run with a snapshot id.
	KindBaseline DocumentKind = "baseline"
	// KindDrift is a drift report, as "compare -o" writes it.
	KindDrift DocumentKind = "drift_report"
	// KindSideBySide is what "run -o" writes for several providers:
	// {"kind": "side_by_side", "runs": [...]}, one run per provider.
	KindSideBySide DocumentKind = "side_by_side"
)

// Document is a decoded JSON document. Exactly the fields of its Kind are
// set: Run for a run, Baseline and Run (its RunResult) for a baseline,
// Drift for a drift report, Runs for a side-by-side report.
type Document struct {
	Kind     DocumentKind
	Run      *promptcanary.Run
	Baseline *promptcanary.Baseline
	Drift    *promptcanary.DriftReport
	Runs     []*promptcanary.Run
}

// DecodeDocument decodes a run, a baseline, a drift report or the
// side-by-side report of a multi-provider run, in every form this module
// and the original Python tool write (plain or compact lists, timestamps
// with or without a zone, null scores read as NaN). It tells the kinds
// apart by their keys, and when data is none of them says what it looks
// like instead.
func DecodeDocument(data []byte) (*Document, error) {
	return decodeDocument(data, nil)
}

// decodeDocument is DecodeDocument, folding the probe results of a run
// or a baseline with f when set.
func decodeDocument(data []byte, f *Folding) (*Document, error) {
	fields, ok := objectFields(data)
	if !ok {
		var err error
		if err = json.Unmarshal(data, &fields); err != nil || fields == nil {
			return nil, fmt.Errorf("decode document: %s", describeNonObject(data, err))
		}
	}
	has := func(k string) bool { _, ok := fields[k]; return ok }
	switch {
	case has("kind"):
		var kind string
		if err := json.Unmarshal(fields["kind"], &kind); err != nil || kind != string(KindSideBySide) {
			return nil, fmt.Errorf("decode document: unknown kind %s, want %q", fields["kind"], KindSideBySide)
		}
		var w struct {
			Runs []*runJSON `json:"runs"`
		}
		if err := json.Unmarshal(data, &w); err != nil {
			return nil, fmt.Errorf("decode side-by-side report: %w", err)
		}
		if len(w.Runs) == 0 {
			return nil, errors.New("decode side-by-side report: no runs")
		}
		d := &Document{Kind: KindSideBySide, Runs: make([]*promptcanary.Run, len(w.Runs))}
		for i, rw := range w.Runs {
			if rw == nil {
				return nil, fmt.Errorf("decode side-by-side report: run %d is null", i+1)
			}
			r := rw.run()
			d.Runs[i] = &r
		}
		return d, nil
	case has("run_result") || has("snapshot_id"):
		b, err := unmarshalBaseline(data, f)
		if err != nil {
			return nil, fmt.Errorf("decode baseline: %w", err)
		}
		return &Document{Kind: KindBaseline, Baseline: b, Run: &b.RunResult}, nil
	case has("comparisons") || has("report_id"):
		d, err := UnmarshalDrift(data)
		if err != nil {
			return nil, fmt.Errorf("decode drift report: %w", err)
		}
		return &Document{Kind: KindDrift, Drift: d}, nil
	case has("run_id") || has("probe_results") || has("llm_responses"):
		r, err := unmarshalRun(data, f)
		if err != nil {
			return nil, fmt.Errorf("decode run: %w", err)
		}
		return &Document{Kind: KindRun, Run: r}, nil
	case has("scores") && has("runs"):
		return nil, errors.New("decode document: this is trend data (report trends -o), not a run, baseline or drift report")
	}
	return nil, fmt.Errorf("decode document: not a PromptCanary run, baseline, drift report or side-by-side report: a JSON object with keys %s (want run_id, snapshot_id, report_id or kind)", keyList(fields))
}

// objectFields returns the fields of data when it is a valid JSON object,
// as json.Unmarshal into a map of raw messages would, but each value a
// slice of data: the kind of a document is told from its keys before the
// document is decoded, and a statistical run's fields are megabytes.
func objectFields(data []byte) (map[string]json.RawMessage, bool) {
	data = bytes.TrimLeft(data, " \t\r\n")
	if len(data) == 0 || data[0] != '{' || !json.Valid(data) {
		return nil, false
	}
	fields := map[string]json.RawMessage{}
	for rawKey, val := range jsonscan.Members(data) {
		fields[jsonscan.Unquote(rawKey[1:len(rawKey)-1])] = val
	}
	return fields, true
}

// PickRun returns the run of d for the provider model id model: the run
// of a run or baseline document (model must be "" or its model), or the
// one run of a side-by-side report whose model matches (model may be ""
// when it holds one run). It fails for a drift report, and names the
// models a side-by-side report holds when model picks none of them.
func (d *Document) PickRun(model string) (*promptcanary.Run, error) {
	switch d.Kind {
	case KindRun, KindBaseline:
		if model != "" && d.Run.Provider.ModelID != model {
			return nil, fmt.Errorf("pick run: the %s holds a run of %q, not %q", d.Kind, d.Run.Provider.ModelID, model)
		}
		return d.Run, nil
	case KindSideBySide:
		var models []string
		for _, r := range d.Runs {
			if r.Provider.ModelID == model || model == "" && len(d.Runs) == 1 {
				return r, nil
			}
			models = append(models, r.Provider.ModelID)
		}
		if model == "" {
			return nil, fmt.Errorf("pick run: the side-by-side report holds %d runs (%s): name the provider to use", len(d.Runs), strings.Join(models, ", "))
		}
		return nil, fmt.Errorf("pick run: the side-by-side report has no run of %q, only of %s", model, strings.Join(models, ", "))
	}
	return nil, fmt.Errorf("pick run: a %s holds no run", strings.ReplaceAll(string(d.Kind), "_", " "))
}

// describeNonObject says what data is when it is not a JSON object.
func describeNonObject(data []byte, err error) string {
	trimmed := bytes.TrimSpace(data)
	var syn *json.SyntaxError
	switch {
	case len(trimmed) == 0:
		return "empty input, want a JSON object"
	case errors.As(err, &syn) && syn.Offset >= int64(len(trimmed)):
		return fmt.Sprintf("truncated JSON (%d bytes): %v", len(data), err)
	case errors.As(err, &syn):
		return fmt.Sprintf("not JSON: %v", err)
	}
	kind := "a JSON value"
	switch trimmed[0] {
	case '[':
		kind = "a JSON array"
	case '"':
		kind = "a JSON string"
	case 'n':
		kind = "JSON null"
	case 't', 'f':
		kind = "a JSON boolean"
	default:
		kind = "a JSON number"
	}
	return kind + ", want an object"
}

// keyList lists up to 8 keys of m, sorted and quoted.
func keyList(m map[string]json.RawMessage) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	more := ""
	if len(keys) > 8 {
		keys, more = keys[:8], ", …"
	}
	for i, k := range keys {
		keys[i] = fmt.Sprintf("%q", k)
	}
	return strings.Join(keys, ", ") + more
}
