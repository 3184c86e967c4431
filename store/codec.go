package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"time"

	"github.com/promptcanary/promptcanary"
)

// LegacySchemaVersion is the schema version of runs and baselines written
// without one, as the original Python tool writes them.
const LegacySchemaVersion = "0.1"

// Marshal encodes v as compact JSON. Unlike encoding/json it accepts NaN and
// infinite floats anywhere in v and writes them as null; UnmarshalRun and
// UnmarshalBaseline read a null probe score back as NaN.
//
// The answers of a run or a baseline that live in spill files
// (promptcanary.Response.Spill) are written whole, read from their files.
func Marshal(v any) ([]byte, error) {
	c, m := markedValue(v)
	out, err := marshal(c, false)
	return expanded(out, err, m)
}

// expanded is withAnswers(out, m) when err is nil.
func expanded(out []byte, err error, m *markers) ([]byte, error) {
	if err != nil {
		m.release()
		return nil, err
	}
	return withAnswers(out, m)
}

// MarshalIndent is Marshal with two-space indentation, for files meant to
// be read and diffed by people.
func MarshalIndent(v any) ([]byte, error) {
	c, m := markedValue(v)
	out, err := marshal(c, true)
	return expanded(out, err, m)
}

// WriteIndent writes data, compact JSON as Marshal returns it, to w
// indented as MarshalIndent indents, followed by a newline, indenting as it
// writes: the indented text is never held whole (a drift report of a
// statistical run is megabytes).
func WriteIndent(w io.Writer, data []byte) error {
	out, err := indentChunks(make([]byte, 0, indentChunk+indentChunk/4), data, math.MaxInt, func(b []byte) error {
		_, err := w.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

// EncodeIndent writes v to w as WriteIndent writes Marshal(v), indenting
// the compact JSON as it is encoded: a drift report's is never held whole
// (see encodeDrift), any other value's once (see encodeOnce).
func EncodeIndent(w io.Writer, v any) error {
	if c, m := markedValue(v); len(m.keys) > 0 {
		defer m.release()
		var b bytes.Buffer
		if err := encodeIndent(&b, c); err != nil {
			return err
		}
		return expandTo(w, b.Bytes())
	}
	return encodeIndent(w, v)
}

func encodeIndent(w io.Writer, v any) error {
	in := indenter{depth: math.MaxInt, out: make([]byte, 0, indentChunk+indentChunk/4), flush: func(b []byte) error {
		_, err := w.Write(b)
		return err
	}}
	if err := encodeStream(v, in.write); err != nil {
		return err
	}
	_, err := w.Write(append(in.out, '\n'))
	return err
}

// jsonValuer is a value whose MarshalJSON encodes another value, one
// without that method, which JSONValue returns
// (promptcanary.DriftReport).
type jsonValuer interface{ JSONValue() any }

// encodeOnce hands use the compact JSON of v, the bytes of Marshal(v),
// held once: json.Marshal copies what it encoded, and a value with a
// MarshalJSON method is copied again (a statistical run's drift report is
// tens of megabytes), so a jsonValuer's JSONValue is encoded instead. A
// value with a NaN or infinite float takes Marshal's slower way.
func encodeOnce(v any, use func([]byte) error) error {
	ev := v
	if jv, ok := v.(jsonValuer); ok {
		ev = jv.JSONValue()
	}
	ow := &onceWriter{use: use}
	err := json.NewEncoder(ow).Encode(ev)
	if _, ok := errors.AsType[*json.UnsupportedValueError](err); !ok || ow.written {
		return err
	}
	data, err := Marshal(v)
	if err != nil {
		return err
	}
	return use(data)
}

// onceWriter hands use what a json.Encoder writes to it, the compact JSON
// of one value and a newline, in one write (the encoder writes nothing
// until the whole value is encoded), without the newline.
type onceWriter struct {
	use     func([]byte) error
	written bool
}

func (o *onceWriter) Write(p []byte) (int, error) {
	if o.written {
		return 0, errors.New("encode json: the value came in more than one write")
	}
	o.written = true
	if err := o.use(bytes.TrimSuffix(p, []byte("\n"))); err != nil {
		return 0, err
	}
	return len(p), nil
}

func marshal(v any, indent bool) ([]byte, error) {
	enc := func(v any) ([]byte, error) {
		if indent {
			return json.MarshalIndent(v, "", "  ")
		}
		return json.Marshal(v)
	}
	out, err := enc(v)
	var unsupported *json.UnsupportedValueError
	if err == nil || !errors.As(err, &unsupported) {
		return out, err
	}
	// Slow path: some float is NaN or infinite. Encode a copy in which each
	// such float is a sentinel number, then turn the sentinels into null.
	// A sentinel is used only if every occurrence of its text in the output
	// is one of ours, so no real number or string is ever rewritten.
	for _, sentinel := range sentinels {
		token, err := json.Marshal(sentinel)
		if err != nil {
			return nil, err
		}
		n := 0
		cp := replaceNonFinite(reflect.ValueOf(v), sentinel, &n)
		out, err := enc(cp.Interface())
		if err != nil {
			return nil, err
		}
		if bytes.Count(out, token) == n {
			return bytes.ReplaceAll(out, token, []byte("null")), nil
		}
	}
	return nil, fmt.Errorf("encode json: %w", err)
}

// sentinels are unlikely numbers that stand for non-finite floats while
// encoding.
var sentinels = []float64{-1.2345678901234567e+300, -7.654321098765432e+299, -3.1415926535897933e+298}

// replaceNonFinite returns a deep copy of v in which every NaN or infinite
// float is sentinel, counting the replacements in n. Byte slices (such as
// json.RawMessage) are shared, not copied.
func replaceNonFinite(v reflect.Value, sentinel float64, n *int) reflect.Value {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			out := reflect.New(v.Type()).Elem()
			if v.Kind() == reflect.Float64 {
				out.SetFloat(sentinel)
				*n++
			}
			return out
		}
		return v
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(replaceNonFinite(v.Elem(), sentinel, n))
		return out
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		e := v.Elem()
		out := reflect.New(v.Type()).Elem()
		if k := e.Kind(); k == reflect.Float32 || k == reflect.Float64 {
			if f := e.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
				out.Set(reflect.ValueOf(sentinel))
				*n++
				return out
			}
		}
		out.Set(replaceNonFinite(e, sentinel, n))
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := range v.NumField() {
			if f := out.Field(i); f.CanSet() {
				f.Set(replaceNonFinite(v.Field(i), sentinel, n))
			}
		}
		return out
	case reflect.Slice:
		if v.IsNil() || v.Type().Elem().Kind() == reflect.Uint8 {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(replaceNonFinite(v.Index(i), sentinel, n))
		}
		return out
	case reflect.Array:
		out := reflect.New(v.Type()).Elem()
		for i := range v.Len() {
			out.Index(i).Set(replaceNonFinite(v.Index(i), sentinel, n))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(it.Key(), replaceNonFinite(it.Value(), sentinel, n))
		}
		return out
	}
	return v
}

// UnmarshalRun decodes a run written by this module or by the original
// Python tool. Timestamps may be RFC 3339 or naive ISO 8601 (read as UTC),
// a null probe score reads as NaN and a missing schema version as
// LegacySchemaVersion. In a run of the compact layout, probe results with
// equal metadata share one map: treat decoded metadata as read-only.
func UnmarshalRun(data []byte) (*promptcanary.Run, error) {
	return unmarshalRun(data, nil)
}

// unmarshalRun is UnmarshalRun, folding the probe results with f when set.
func unmarshalRun(data []byte, f *Folding) (*promptcanary.Run, error) {
	var w runJSON
	fo := w.folders(f)
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, err
	}
	r := w.run()
	if fo != nil {
		f.keep(&r, fo)
	}
	return &r, nil
}

// UnmarshalBaseline decodes a baseline written by this module or by the
// original Python tool, with the tolerances of UnmarshalRun.
func UnmarshalBaseline(data []byte) (*promptcanary.Baseline, error) {
	return unmarshalBaseline(data, nil)
}

// unmarshalBaseline is UnmarshalBaseline, folding the probe results with
// f when set.
func unmarshalBaseline(data []byte, f *Folding) (*promptcanary.Baseline, error) {
	var w baselineJSON
	fo := w.RunResult.folders(f)
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, err
	}
	b := w.Baseline
	b.CreatedAt = w.CreatedAt.t
	b.RunResult = w.RunResult.run()
	if b.SchemaVersion == "" {
		b.SchemaVersion = LegacySchemaVersion
	}
	if fo != nil {
		f.keep(&b.RunResult, fo)
	}
	return &b, nil
}

// UnmarshalDrift decodes a drift report, with tolerant timestamps: its
// JSON, or the stored form of MarshalDriftBody.
func UnmarshalDrift(data []byte) (*promptcanary.DriftReport, error) {
	if isDriftBody(data) {
		plain, err := gunzip(data)
		if err != nil {
			return nil, fmt.Errorf("decompress drift report: %w", err)
		}
		d, err := unmarshalDriftBody(plain)
		if err != nil {
			return nil, err
		}
		noScores(d)
		return d, nil
	}
	var w driftJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, err
	}
	d := w.DriftReport
	d.GeneratedAt = w.GeneratedAt.t
	d.BaselineCreatedAt = w.BaselineCreatedAt.t
	noScores(&d)
	return &d, nil
}

// noScores gives a report that compared nothing the overall scores it was
// made with, NaN: its JSON holds null, which decodes as 0, and reports
// stored before issue 19 hold 0 for "no score".
func noScores(d *promptcanary.DriftReport) {
	if d.Compared() == 0 {
		d.OverallBaselineScore, d.OverallCurrentScore = math.NaN(), math.NaN()
	}
}

// The *JSON types shadow the fields of the domain types that need a
// tolerant decoding: encoding/json prefers the shallower field of the same
// name, and every other field decodes into the embedded value.

type resultJSON struct {
	promptcanary.ProbeResult
	Score nullableFloat `json:"score"`
}

type responseJSON struct {
	promptcanary.Response
	Timestamp tolerantTime `json:"timestamp"`
}

type runJSON struct {
	promptcanary.Run
	StartedAt    tolerantTime `json:"started_at"`
	FinishedAt   tolerantTime `json:"finished_at"`
	ProbeResults resultList   `json:"probe_results"`
	LLMResponses responseList `json:"llm_responses"`
}

func (w *runJSON) run() promptcanary.Run {
	r := w.Run
	r.StartedAt = w.StartedAt.t
	r.FinishedAt = w.FinishedAt.t
	r.ProbeResults = w.ProbeResults.list
	r.LLMResponses = w.LLMResponses.list
	if r.SchemaVersion == "" {
		r.SchemaVersion = LegacySchemaVersion
	}
	return r
}

type baselineJSON struct {
	promptcanary.Baseline
	CreatedAt tolerantTime `json:"created_at"`
	RunResult runJSON      `json:"run_result"`
}

type driftJSON struct {
	promptcanary.DriftReport
	GeneratedAt       tolerantTime `json:"generated_at"`
	BaselineCreatedAt tolerantTime `json:"baseline_created_at"`
}

// nullableFloat reads null as NaN, the value Marshal writes as null.
type nullableFloat float64

func (f *nullableFloat) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = nullableFloat(math.NaN())
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = nullableFloat(v)
	return nil
}

// tolerantTime reads the timestamps of ParseTime; null is the zero time.
type tolerantTime struct{ t time.Time }

func (tt *tolerantTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		tt.t = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("timestamp: %w", err)
	}
	t, err := ParseTime(s)
	if err != nil {
		return err
	}
	tt.t = t
	return nil
}

var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
}

// ParseTime parses the timestamps found in run and baseline files: RFC 3339
// ("2025-03-01T12:00:00.123456Z", "…+00:00") and the ISO 8601 forms Python
// writes, with a space instead of the T or without a zone; a time without
// a zone is UTC.
func ParseTime(s string) (time.Time, error) {
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("parse time %q: want RFC 3339 or ISO 8601 like 2006-01-02T15:04:05.999999Z", s)
}
