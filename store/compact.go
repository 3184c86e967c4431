package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/jsonscan"
)

// Layout selects how MarshalRun and MarshalBaseline write a run's probe
// results and responses.
type Layout int

const (
	// LayoutAuto is LayoutCompact for a run with several samples per
	// prompt and LayoutPlain otherwise, so that a one-sample baseline is
	// exactly what the original Python tool writes and reads.
	LayoutAuto Layout = iota
	// LayoutPlain writes the original tool's lists of objects, one object
	// per probe result and per response.
	LayoutPlain
	// LayoutCompact writes each list as an object of tables (every
	// distinct string, metadata object, tool-call list, probe and outcome
	// once) and rows of indexes into them: a 30-sample baseline is about a
	// tenth of its plain size. See CompactVersion for what it keeps.
	LayoutCompact
)

// CompactEncoding and CompactVersion mark the compact layout: its
// "probe_results" and "llm_responses" are objects with "encoding":
// "compact" and "version": 1 instead of lists, so that a reader that only
// knows lists fails instead of reading a run without results.
//
// The compact layout keeps every field of promptcanary.ProbeResult and of
// promptcanary.Response, in the same order, except RawResponse: the
// provider's raw body repeats what was parsed out of it (content, tokens,
// finish reason, tool calls), is unique to every call, would be most of a
// many-sample file, and may echo what a user sent. Timestamps are kept to
// the nanosecond, in the time zone of the run's start.
const (
	CompactEncoding = "compact"
	CompactVersion  = 1
)

// compact reports whether l writes r compactly.
func (l Layout) compact(r *promptcanary.Run) bool {
	switch l {
	case LayoutPlain:
		return false
	case LayoutCompact:
		return true
	}
	return r.Samples > 1 || r.SamplesPerPrompt() > 1
}

// MarshalRun encodes r as compact JSON (no indentation) in layout l.
// Non-finite floats are written as null, as by Marshal.
//
// An answer that lives in a spill file (promptcanary.Response.Spill) is
// written whole, read from its file.
func MarshalRun(r *promptcanary.Run, l Layout) ([]byte, error) {
	c, m := marked(r)
	out, err := marshalRun(c, l)
	return expanded(out, err, m)
}

// marshalRun is MarshalRun, markers left in place.
func marshalRun(r *promptcanary.Run, l Layout) ([]byte, error) {
	if !l.compact(r) {
		return marshal(r, false)
	}
	w, err := newCompactRun(r)
	if err != nil {
		return nil, err
	}
	return w.appendJSON(make([]byte, 0, w.sizeHint()))
}

// MarshalRunIndent is MarshalRun for a file: indented as MarshalBaseline
// indents.
func MarshalRunIndent(r *promptcanary.Run, l Layout) ([]byte, error) {
	c, m := marked(r)
	out, err := marshalRunIndent(c, l)
	return expanded(out, err, m)
}

// marshalRunIndent is MarshalRunIndent, markers left in place.
func marshalRunIndent(r *promptcanary.Run, l Layout) ([]byte, error) {
	if !l.compact(r) {
		return marshal(r, true)
	}
	out, err := marshalRun(r, l)
	if err != nil {
		return nil, err
	}
	// Depth 0 is the run, 1 the compact lists, 2 their tables.
	return indentTo(out, 2), nil
}

// MarshalBaseline encodes b as indented JSON for a file in layout l: in
// the compact layout the tables and rows keep one entry per line, so
// that a diff of two baselines stays readable.
func MarshalBaseline(b *promptcanary.Baseline, l Layout) ([]byte, error) {
	c, m := markedValue(b)
	out, err := marshalBaseline(c.(*promptcanary.Baseline), l)
	return expanded(out, err, m)
}

// WriteBaseline writes MarshalBaseline(b, l) to w, each answer that
// lives in a spill file copied from it a piece at a time: the encoded
// baseline is held without them.
func WriteBaseline(w io.Writer, b *promptcanary.Baseline, l Layout) error {
	c, m := markedValue(b)
	defer m.release()
	out, err := marshalBaseline(c.(*promptcanary.Baseline), l)
	if err != nil {
		return err
	}
	return expandTo(w, out)
}

// WriteRunIndent is WriteBaseline for MarshalRunIndent.
func WriteRunIndent(w io.Writer, r *promptcanary.Run, l Layout) error {
	c, m := marked(r)
	defer m.release()
	out, err := marshalRunIndent(c, l)
	if err != nil {
		return err
	}
	return expandTo(w, out)
}

// marshalBaseline is MarshalBaseline, markers left in place.
func marshalBaseline(b *promptcanary.Baseline, l Layout) ([]byte, error) {
	if !l.compact(&b.RunResult) {
		return marshal(b, true)
	}
	run, err := newCompactRun(&b.RunResult)
	if err != nil {
		return nil, err
	}
	// The baseline's own fields, then its run: "run_result" comes last.
	head, err := marshal(&compactBaselineJSON{Baseline: b}, false)
	if err != nil {
		return nil, err
	}
	out, err := spliceLast(head, `"run_result":null}`, run.sizeHint())
	if err != nil {
		return nil, err
	}
	out = append(out, `"run_result":`...)
	if out, err = run.appendJSON(out); err != nil {
		return nil, err
	}
	// Depth 0 is the baseline, 1 the run, 2 the compact lists, 3 their
	// tables: the entries of a table are one per line.
	return indentTo(append(out, '}'), 3), nil
}

// spliceLast returns a copy of head, a JSON object that ends with tail
// (its last fields, written as null), without tail, with room for size
// more bytes.
func spliceLast(head []byte, tail string, size int) ([]byte, error) {
	if !bytes.HasSuffix(head, []byte(tail)) {
		return nil, fmt.Errorf("encode compact layout: want JSON ending %s, got %.40q", tail, head[max(0, len(head)-40):])
	}
	out := make([]byte, 0, len(head)+size)
	return append(out, head[:len(head)-len(tail)]...), nil
}

type compactBaselineJSON struct {
	*promptcanary.Baseline
	RunResult *compactRunJSON `json:"run_result"`
}

type compactRunJSON struct {
	*promptcanary.Run
	ProbeResults *compactResults   `json:"probe_results"`
	LLMResponses *compactResponses `json:"llm_responses"`
}

// appendJSON appends w as encoding/json would write it, the run's own
// fields through Marshal and the compact lists directly: they are most of
// a statistical run's bytes, and encoding/json would build them value by
// value and copy them twice (see TestCompactEncoder).
func (w *compactRunJSON) appendJSON(b []byte) ([]byte, error) {
	head, err := Marshal(&compactRunJSON{Run: w.Run})
	if err != nil {
		return nil, err
	}
	const tail = `"probe_results":null,"llm_responses":null}`
	if !bytes.HasSuffix(head, []byte(tail)) {
		return nil, fmt.Errorf("encode compact layout: want JSON ending %s, got %.40q", tail, head[max(0, len(head)-40):])
	}
	b = append(b, head[:len(head)-len(tail)]...)
	b = append(b, `"probe_results":`...)
	b = w.ProbeResults.appendJSON(b)
	b = append(b, `,"llm_responses":`...)
	if b, err = w.LLMResponses.appendJSON(b); err != nil {
		return nil, fmt.Errorf("encode run %q: responses: %w", w.RunID, err)
	}
	return append(b, '}'), nil
}

// sizeHint estimates the bytes of w's compact lists, so that one
// allocation holds them.
func (w *compactRunJSON) sizeHint() int {
	n := 4096
	if c := w.ProbeResults; c != nil {
		for _, s := range c.Strings {
			n += len(s) + 3
		}
		for _, m := range c.Metadata {
			n += len(m) + 1
		}
		n += 24*len(c.Outcomes) + 12*len(c.Probes)
		for _, r := range c.Rows {
			n += 5 * len(r)
		}
	}
	if c := w.LLMResponses; c != nil {
		for _, s := range c.Strings {
			n += len(s) + 3
		}
		for _, t := range c.ToolCalls {
			n += len(t) + 1
		}
		n += 24*len(c.Profiles) + 48*len(c.Rows)
	}
	return n + n/16
}

func newCompactRun(r *promptcanary.Run) (*compactRunJSON, error) {
	res, err := compactResultsOf(r.ProbeResults)
	if err != nil {
		return nil, fmt.Errorf("encode run %q: %w", r.RunID, err)
	}
	resp, err := compactResponsesOf(r.LLMResponses, r.StartedAt)
	if err != nil {
		return nil, fmt.Errorf("encode run %q: %w", r.RunID, err)
	}
	return &compactRunJSON{Run: r, ProbeResults: res, LLMResponses: resp}, nil
}

// compactResults is the compact form of a run's probe results. A row is
// [prompt, sample, outcome...]: the results of one prompt and sample that
// follow each other in the run, each an index into Outcomes. An outcome
// is [probe, passed (0 or 1), score (null when not a number), details,
// metadata]; a probe is [probe_id, probe_type, probe_name, category].
// Strings are indexes into Strings, metadata into Metadata.
type compactResults struct {
	Encoding string                          `json:"encoding"`
	Version  int                             `json:"version"`
	Strings  []string                        `json:"strings"`
	Metadata []json.RawMessage               `json:"metadata"`
	Probes   [][4]int                        `json:"probes"`
	Outcomes listOf[outcomeRow, *outcomeRow] `json:"outcomes"`
	Rows     intRows                         `json:"rows"`
}

// intRows is a table of rows of integers (the rows of the compact
// results), decoded without encoding/json's reflection: a statistical
// run has thousands of rows.
type intRows [][]int

func (t *intRows) UnmarshalJSON(data []byte) error {
	if rows, ok := parseIntRows(data); ok {
		*t = rows
		return nil
	}
	var slow [][]int
	if err := json.Unmarshal(data, &slow); err != nil {
		return err
	}
	*t = slow
	return nil
}

// parseIntRows reads null or an array of arrays of JSON integers, with any
// JSON whitespace, into rows that share one backing array. It reports
// false for anything else, which encoding/json then reads or rejects.
func parseIntRows(data []byte) ([][]int, bool) {
	l := jsonscan.NewLexer(data)
	l.Space()
	if l.Null() {
		l.Space()
		return nil, l.Done()
	}
	if !l.Eat('[') {
		return nil, false
	}
	// At most one more number than commas, and a row per "[" after the
	// first.
	all := make([]int, 0, bytes.Count(data, []byte{','})+1)
	ends := make([]int, 0, bytes.Count(data, []byte{'['}))
	if !intRowList(l, func(l *jsonscan.Lexer[[]byte]) bool {
		if !l.Eat('[') {
			return false
		}
		ok := intRowList(l, func(l *jsonscan.Lexer[[]byte]) bool {
			n, ok := l.Int(strconv.IntSize)
			all = append(all, int(n))
			return ok
		})
		ends = append(ends, len(all))
		return ok
	}) {
		return nil, false
	}
	l.Space()
	if !l.Done() {
		return nil, false
	}
	rows := make([][]int, len(ends))
	start := 0
	for r, end := range ends {
		rows[r] = all[start:end:end]
		start = end
	}
	return rows, true
}

// intRowList reads the rest of an array after its '[', each element with
// elem, white space allowed around them.
func intRowList(l *jsonscan.Lexer[[]byte], elem func(l *jsonscan.Lexer[[]byte]) bool) bool {
	l.Space()
	if l.Eat(']') {
		return true
	}
	for {
		l.Space()
		if !elem(l) {
			return false
		}
		l.Space()
		if l.Eat(']') {
			return true
		}
		if !l.Eat(',') {
			return false
		}
	}
}

// listOf is a JSON array of rows that decode themselves (outcomes and
// response rows), decoded without encoding/json's reflection: it grows a
// statistical run's thousands of rows one reallocation at a time.
type listOf[T any, P interface {
	*T
	json.Unmarshaler
}] []T

func (l *listOf[T, P]) UnmarshalJSON(data []byte) error {
	// encoding/json has checked that data is valid JSON, and hands every
	// element of an array to its UnmarshalJSON as it is here, in order,
	// stopping at the first error.
	if firstByte(data) != '[' {
		// null, or the error of anything else.
		var slow []T
		err := json.Unmarshal(data, &slow)
		*l = slow
		return err
	}
	out := make([]T, 0, jsonscan.Count(data))
	for elem := range jsonscan.Elements(data) {
		out = append(out, *new(T))
		if err := P(&out[len(out)-1]).UnmarshalJSON(elem); err != nil {
			return err
		}
	}
	*l = out
	return nil
}

// decodeMembers decodes obj, a valid JSON object, member by member without
// encoding/json's reflection over obj itself: the value of the member
// named names[i] is decoded into targets[i], by its UnmarshalJSON when it
// has one (the value is valid JSON already), else by json.Unmarshal. It
// reports false, having decoded part of obj, unless every key is one of
// names exactly and once (any other key might match a field regardless of
// case, as encoding/json matches them) and every decode succeeded: the
// caller then decodes obj the usual way, which also gives the usual errors.
func decodeMembers(obj []byte, names []string, targets ...any) bool {
	var seen uint64
	for key, val := range jsonscan.Members(obj) {
		i := slices.Index(names, string(key[1:len(key)-1]))
		if i < 0 || seen&(1<<i) != 0 || bytes.IndexByte(key, '\\') >= 0 {
			return false
		}
		seen |= 1 << i
		var err error
		if u, ok := targets[i].(json.Unmarshaler); ok {
			err = u.UnmarshalJSON(val) // val is valid: no second check
		} else {
			err = json.Unmarshal(val, targets[i])
		}
		if err != nil {
			return false
		}
	}
	return true
}

// outcomeRow is [probe, passed, score, details, metadata].
type outcomeRow struct {
	probe, passed, details, metadata int
	score                            float64
}

func (o outcomeRow) MarshalJSON() ([]byte, error) {
	return o.appendJSON(make([]byte, 0, 32)), nil
}

func (o outcomeRow) appendJSON(b []byte) []byte {
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(o.probe), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(o.passed), 10)
	b = append(b, ',')
	b = appendFloat(b, o.score)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(o.details), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(o.metadata), 10)
	return append(b, ']')
}

func (o *outcomeRow) UnmarshalJSON(data []byte) error {
	if o.parse(data) {
		return nil
	}
	*o = outcomeRow{}
	return o.unmarshalSlow(data)
}

// parse reads an outcome of the form this package writes, without
// encoding/json, reporting false for anything else (see responseRow.parse).
func (o *outcomeRow) parse(data []byte) bool {
	l := jsonscan.NewLexer(data)
	if !l.Eat('[') {
		return false
	}
	for i, dst := range [5]*int{&o.probe, &o.passed, nil, &o.details, &o.metadata} {
		if i > 0 && !l.Eat(',') {
			return false
		}
		if i == 2 {
			if l.Null() {
				o.score = math.NaN()
				continue
			}
			f, ok := l.Number()
			if !ok {
				return false
			}
			o.score = f
			continue
		}
		if l.Peek() == '-' {
			return false
		}
		n, ok := l.Int(32)
		if !ok {
			return false
		}
		*dst = int(n)
	}
	return l.Eat(']') && l.Done()
}

// unmarshalSlow reads any outcome encoding/json accepts.
func (o *outcomeRow) unmarshalSlow(data []byte) error {
	var f [5]nullableFloat
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	var err error
	ints := [4]*int{&o.probe, &o.passed, &o.details, &o.metadata}
	for i, k := range [4]int{0, 1, 3, 4} {
		if *ints[i], err = index(float64(f[k])); err != nil {
			return fmt.Errorf("outcome %s: %w", data, err)
		}
	}
	o.score = float64(f[2])
	return nil
}

// appendFloat appends f as encoding/json writes it, or null when f is not
// finite.
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	out, _ := json.Marshal(f) // never fails for a finite float
	return append(b, out...)
}

// index converts a decoded number to a non-negative index.
func index(f float64) (int, error) {
	if !(f >= 0 && f <= math.MaxInt32) || f != math.Trunc(f) {
		return 0, fmt.Errorf("%v is not an index", f)
	}
	return int(f), nil
}

// interner numbers distinct values in order of first appearance.
type interner[K comparable] struct {
	idx  map[K]int
	keys []K
}

func (in *interner[K]) add(k K) int {
	if i, ok := in.idx[k]; ok {
		return i
	}
	if in.idx == nil {
		in.idx = make(map[K]int)
	}
	in.idx[k] = len(in.keys)
	in.keys = append(in.keys, k)
	return len(in.keys) - 1
}

type outcomeKey struct {
	probe, details, metadata int
	passed                   bool
	score                    uint64 // math.Float64bits, so NaN equals NaN
}

func compactResultsOf(prs []promptcanary.ProbeResult) (*compactResults, error) {
	if prs == nil {
		return nil, nil
	}
	var (
		strs     interner[string]
		metas    interner[string]
		probes   interner[[4]int]
		outcomes interner[outcomeKey]
	)
	out := &compactResults{Encoding: CompactEncoding, Version: CompactVersion, Rows: intRows{}}
	// A run's results often share metadata maps (see runner): each map is
	// encoded once. A map's identity is its address (reflect's Pointer: Go
	// has no other way to compare two maps without reading them), which
	// stays put while prs holds the map.
	metaOf := map[uintptr]int{}
	var row []int
	for i := range prs {
		pr := &prs[i]
		ptr := reflect.ValueOf(pr.Metadata).Pointer()
		meta, seen := metaOf[ptr]
		if !seen {
			data, err := Marshal(pr.Metadata)
			if err != nil {
				return nil, fmt.Errorf("probe result %d metadata: %w", i, err)
			}
			meta = metas.add(string(data))
			metaOf[ptr] = meta
		}
		prompt := strs.add(pr.PromptID)
		if row == nil || row[0] != prompt || row[1] != pr.Sample {
			if row != nil {
				out.Rows = append(out.Rows, row)
			}
			row = []int{prompt, pr.Sample}
		}
		probe := probes.add([4]int{strs.add(pr.ProbeID), strs.add(pr.ProbeType), strs.add(pr.ProbeName), strs.add(string(pr.Category))})
		k := outcomeKey{probe: probe, details: strs.add(pr.Details), metadata: meta, passed: pr.Passed, score: math.Float64bits(pr.Score)}
		if math.IsNaN(pr.Score) || math.IsInf(pr.Score, 0) {
			k.score = math.Float64bits(math.NaN()) // all read back as one NaN
		}
		row = append(row, outcomes.add(k))
	}
	if row != nil {
		out.Rows = append(out.Rows, row)
	}
	out.Strings = strs.keys
	out.Metadata = make([]json.RawMessage, len(metas.keys))
	for i, m := range metas.keys {
		out.Metadata[i] = json.RawMessage(m)
	}
	out.Probes = probes.keys
	out.Outcomes = make([]outcomeRow, len(outcomes.keys))
	for i, k := range outcomes.keys {
		o := outcomeRow{probe: k.probe, details: k.details, metadata: k.metadata, score: math.Float64frombits(k.score)}
		if k.passed {
			o.passed = 1
		}
		out.Outcomes[i] = o
	}
	return out, nil
}

// all expands c, with bounds checked on every index.
func (c *compactResults) all() ([]promptcanary.ProbeResult, error) {
	tmpl, err := c.templates()
	if err != nil {
		return nil, err
	}
	out := make([]promptcanary.ProbeResult, c.count())
	k := 0
	for i, row := range c.Rows {
		prompt, err := c.rowPrompt(i, row, len(tmpl))
		if err != nil {
			return nil, err
		}
		for _, o := range row[2:] {
			// Field by field: copying the whole result is a runtime call
			// (the struct holds pointers) that the collector cannot
			// interrupt, and while it marks, it spins waiting for this
			// loop to reach a point where it can scan its stack.
			t, pr := &tmpl[o], &out[k]
			pr.ProbeID, pr.ProbeType, pr.ProbeName, pr.Category = t.ProbeID, t.ProbeType, t.ProbeName, t.Category
			pr.PromptID, pr.Sample, pr.Passed, pr.Score = prompt, row[1], t.Passed, t.Score
			pr.Details, pr.Metadata = t.Details, t.Metadata
			k++
		}
	}
	return out, nil
}

// count is the number of results of c's rows.
func (c *compactResults) count() int {
	n := 0
	for _, row := range c.Rows {
		n += max(0, len(row)-2)
	}
	return n
}

// str is the i-th string of c.
func (c *compactResults) str(i int) (string, error) {
	if i < 0 || i >= len(c.Strings) {
		return "", fmt.Errorf("string %d out of range", i)
	}
	return c.Strings[i], nil
}

// templates expands every outcome of c to a result without its prompt and
// sample; rows copy them. Results with one metadata entry share its map:
// a 30-sample run holds some thousands of distinct metadata objects, not
// 60,000 maps.
func (c *compactResults) templates() ([]promptcanary.ProbeResult, error) {
	if err := checkCompact(c.Encoding, c.Version); err != nil {
		return nil, err
	}
	metas := make([]map[string]any, len(c.Metadata))
	for i, raw := range c.Metadata {
		if err := json.Unmarshal(raw, &metas[i]); err != nil {
			return nil, fmt.Errorf("metadata %d: %w", i, err)
		}
	}
	tmpl := make([]promptcanary.ProbeResult, len(c.Outcomes))
	for i, o := range c.Outcomes {
		if o.probe >= len(c.Probes) || o.metadata >= len(metas) || o.passed > 1 {
			return nil, fmt.Errorf("outcome %d: index out of range", i)
		}
		p := c.Probes[o.probe]
		var fields [5]string
		for j, s := range [5]int{p[0], p[1], p[2], p[3], o.details} {
			var err error
			if fields[j], err = c.str(s); err != nil {
				return nil, fmt.Errorf("outcome %d: %w", i, err)
			}
		}
		tmpl[i] = promptcanary.ProbeResult{ProbeID: fields[0], ProbeType: fields[1], ProbeName: fields[2],
			Category: promptcanary.Category(fields[3]), Passed: o.passed == 1, Score: o.score, Details: fields[4],
			Metadata: metas[o.metadata]}
	}
	return tmpl, nil
}

// rowPrompt checks the i-th row of c against outcomes templates and
// returns its prompt.
func (c *compactResults) rowPrompt(i int, row []int, outcomes int) (string, error) {
	if len(row) < 3 {
		return "", fmt.Errorf("row %d: want [prompt, sample, outcome...], got %d numbers", i, len(row))
	}
	prompt, err := c.str(row[0])
	if err != nil {
		return "", fmt.Errorf("row %d: %w", i, err)
	}
	if row[1] < 0 {
		return "", fmt.Errorf("row %d: negative sample %d", i, row[1])
	}
	for _, o := range row[2:] {
		if o < 0 || o >= outcomes {
			return "", fmt.Errorf("row %d: outcome %d out of range", i, o)
		}
	}
	return prompt, nil
}

func checkCompact(encoding string, version int) error {
	if encoding != CompactEncoding {
		return fmt.Errorf("unknown encoding %q, want %q", encoding, CompactEncoding)
	}
	if version > CompactVersion {
		return fmt.Errorf("compact encoding version %d is newer than this program's %d: upgrade promptcanary", version, CompactVersion)
	}
	if version < 1 {
		return fmt.Errorf("compact encoding version %d: want 1 to %d", version, CompactVersion)
	}
	return nil
}

// compactResponses is the compact form of a run's responses. A row is
// [prompt, sample, content, profile, latency_ms, completion_tokens,
// extra_tokens, time, response_id], where extra_tokens is total_tokens -
// prompt_tokens - completion_tokens and time is nanoseconds after Base
// (null for no timestamp, an RFC 3339 string when too far from Base). A profile holds what repeats across samples:
// [provider_model_id, finish_reason, prompt_tokens, tool_calls (-1 for
// none), served_model, system_fingerprint, attempts]. Strings are indexes
// into Strings, tool calls into ToolCalls.
type compactResponses struct {
	Encoding  string                            `json:"encoding"`
	Version   int                               `json:"version"`
	Base      time.Time                         `json:"base"`
	Strings   []string                          `json:"strings"`
	ToolCalls []json.RawMessage                 `json:"tool_calls"`
	Profiles  [][7]int                          `json:"profiles"`
	Rows      listOf[responseRow, *responseRow] `json:"rows"`
	// Cut lists the truncated responses as [row, original_bytes]; it is
	// left out when none was cut, so that files without it read as
	// before.
	Cut [][2]int64 `json:"cut,omitempty"`
	// CutCalls lists the responses whose tool calls were cut as [row,
	// original_tool_calls], and Reasoning those with reasoning tokens as
	// [row, reasoning_tokens]; each is left out when empty.
	CutCalls  [][2]int64 `json:"cut_tool_calls,omitempty"`
	Reasoning [][2]int64 `json:"reasoning,omitempty"`
}

type responseRow struct {
	prompt, sample, content, profile int
	latency                          float64
	completion, extra                int
	hasTime                          bool
	time                             int64
	// at is the time when it is too far from the base for an offset.
	at         *time.Time
	responseID int
}

func (r responseRow) MarshalJSON() ([]byte, error) {
	return r.appendJSON(make([]byte, 0, 64)), nil
}

func (r responseRow) appendJSON(b []byte) []byte {
	b = append(b, '[')
	for _, n := range [4]int{r.prompt, r.sample, r.content, r.profile} {
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, ',')
	}
	b = appendFloat(b, r.latency)
	for _, n := range [2]int{r.completion, r.extra} {
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(n), 10)
	}
	b = append(b, ',')
	if r.at != nil {
		b = strconv.AppendQuote(b, r.at.Format(time.RFC3339Nano))
	} else if r.hasTime {
		b = strconv.AppendInt(b, r.time, 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.responseID), 10)
	return append(b, ']')
}

func (r *responseRow) UnmarshalJSON(data []byte) error {
	if r.parse(data) {
		return nil
	}
	*r = responseRow{}
	return r.unmarshalSlow(data)
}

// unmarshalSlow reads any row encoding/json accepts as nine values.
func (r *responseRow) unmarshalSlow(data []byte) error {
	var f [9]json.RawMessage
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	for i, raw := range f {
		if raw == nil {
			return fmt.Errorf("response row %s: want 9 values", data)
		}
		if i == 4 || i == 7 {
			continue
		}
		if err := json.Unmarshal(raw, []*int{&r.prompt, &r.sample, &r.content, &r.profile, nil, &r.completion, &r.extra, nil, &r.responseID}[i]); err != nil {
			return fmt.Errorf("response row %s: %w", data, err)
		}
	}
	// A null latency reads as 0, as in the plain layout.
	if err := json.Unmarshal(f[4], &r.latency); err != nil {
		return fmt.Errorf("response row %s: latency: %w", data, err)
	}
	switch firstByte(f[7]) {
	case 'n':
	case '"':
		var tt tolerantTime
		if err := json.Unmarshal(f[7], &tt); err != nil {
			return fmt.Errorf("response row %s: time: %w", data, err)
		}
		r.at, r.hasTime = &tt.t, true
	default:
		if err := json.Unmarshal(f[7], &r.time); err != nil {
			return fmt.Errorf("response row %s: time: %w", data, err)
		}
		r.hasTime = true
	}
	return nil
}

// parse reads a row of the form this package writes, nine numbers (the
// latency and time may be null) with no space, without encoding/json's
// allocations: a statistical run has thousands of rows. It reports false
// for anything else (a time as a string, another layout of valid JSON, or
// invalid JSON), which UnmarshalJSON then reads or rejects the slow way.
func (r *responseRow) parse(data []byte) bool {
	l := jsonscan.NewLexer(data)
	if !l.Eat('[') {
		return false
	}
	ints := [9]*int{&r.prompt, &r.sample, &r.content, &r.profile, nil, &r.completion, &r.extra, nil, &r.responseID}
	for i, dst := range ints {
		if i > 0 && !l.Eat(',') {
			return false
		}
		switch {
		case i == 4: // latency: a number or null (0, as in the plain layout)
			if l.Null() {
				continue
			}
			f, ok := l.Number()
			if !ok {
				return false
			}
			r.latency = f
		case i == 7: // time: an offset from the base or null
			if l.Null() {
				continue
			}
			t, ok := l.Int(64)
			if !ok {
				return false
			}
			r.time, r.hasTime = t, true
		default:
			n, ok := l.Int(strconv.IntSize)
			if !ok {
				return false
			}
			*dst = int(n)
		}
	}
	return l.Eat(']') && l.Done()
}

func compactResponsesOf(rs []promptcanary.Response, base time.Time) (*compactResponses, error) {
	if rs == nil {
		return nil, nil
	}
	if base.IsZero() {
		for i := range rs {
			if !rs[i].Timestamp.IsZero() {
				base = rs[i].Timestamp
				break
			}
		}
	}
	base = base.Round(0)
	var (
		strs     interner[string]
		calls    interner[string]
		profiles interner[[7]int]
	)
	out := &compactResponses{Encoding: CompactEncoding, Version: CompactVersion, Base: base, Rows: make([]responseRow, len(rs))}
	for i := range rs {
		r := &rs[i]
		call := -1
		if len(r.ToolCalls) > 0 {
			tc, err := Marshal(r.ToolCalls)
			if err != nil {
				return nil, fmt.Errorf("response %d tool calls: %w", i, err)
			}
			call = calls.add(string(tc))
		}
		row := responseRow{
			prompt: strs.add(r.PromptID), sample: r.Sample, content: strs.add(r.Content),
			profile: profiles.add([7]int{strs.add(r.ProviderModelID), strs.add(r.FinishReason), r.PromptTokens, call,
				strs.add(r.ServedModel), strs.add(r.SystemFingerprint), r.Attempts}),
			latency: r.LatencyMS, completion: r.CompletionTokens, extra: r.TotalTokens - r.PromptTokens - r.CompletionTokens,
			responseID: strs.add(r.ResponseID),
		}
		if !r.Timestamp.IsZero() {
			row.hasTime = true
			d := r.Timestamp.Sub(base)
			if d == math.MaxInt64 || d == math.MinInt64 || !base.Add(d).Equal(r.Timestamp) {
				at := r.Timestamp
				row.at = &at // too far from the base for an offset
			} else {
				row.time = int64(d)
			}
		}
		out.Rows[i] = row
		if r.Truncated {
			out.Cut = append(out.Cut, [2]int64{int64(i), r.OriginalBytes})
		}
		if r.OriginalToolCalls != 0 {
			out.CutCalls = append(out.CutCalls, [2]int64{int64(i), int64(r.OriginalToolCalls)})
		}
		if r.ReasoningTokens != 0 {
			out.Reasoning = append(out.Reasoning, [2]int64{int64(i), int64(r.ReasoningTokens)})
		}
	}
	out.Strings = strs.keys
	out.ToolCalls = make([]json.RawMessage, len(calls.keys))
	for i, c := range calls.keys {
		out.ToolCalls[i] = json.RawMessage(c)
	}
	out.Profiles = profiles.keys
	return out, nil
}

// all expands c, with bounds checked on every index.
func (c *compactResponses) all() ([]promptcanary.Response, error) {
	out := make([]promptcanary.Response, len(c.Rows))
	if err := c.expand(func(i int) *promptcanary.Response { return &out[i] }, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// fold hands the responses of c to fo, a chunk at a time, with the
// checks of all.
func (c *compactResponses) fold(fo ResponseFolder) error {
	chunk := make([]promptcanary.Response, min(foldChunk, len(c.Rows)))
	n := 0
	return c.expand(func(int) *promptcanary.Response { return &chunk[n] }, func(i int) error {
		if n++; n < len(chunk) && i < len(c.Rows)-1 {
			return nil
		}
		err := fo.FoldResponses(chunk[:n])
		clear(chunk[:n])
		n = 0
		return err
	})
}

// expand expands each row of c in turn into at(i), with bounds checked on
// every index, and then calls done(i) when set (its error ends the
// expansion).
func (c *compactResponses) expand(at func(i int) *promptcanary.Response, done func(i int) error) error {
	if err := checkCompact(c.Encoding, c.Version); err != nil {
		return err
	}
	for _, p := range c.Profiles {
		if p[3] < -1 || p[3] >= len(c.ToolCalls) {
			return fmt.Errorf("profile %v: tool calls %d out of range", p, p[3])
		}
	}
	cut, err := rowMap("cut", c.Cut, len(c.Rows))
	if err != nil {
		return err
	}
	cutCalls, err := rowMap("cut_tool_calls", c.CutCalls, len(c.Rows))
	if err != nil {
		return err
	}
	reasoning, err := rowMap("reasoning", c.Reasoning, len(c.Rows))
	if err != nil {
		return err
	}
	for i, row := range c.Rows {
		r := at(i)
		if err := c.expandRow(i, row, r); err != nil {
			return err
		}
		resolveSpill(r)
		if n, ok := cut[int64(i)]; ok {
			r.Truncated, r.OriginalBytes = true, n
		}
		if n, ok := cutCalls[int64(i)]; ok {
			r.Truncated, r.OriginalToolCalls = true, int(n)
		}
		r.ReasoningTokens = int(reasoning[int64(i)])
		if done != nil {
			if err := done(i); err != nil {
				return err
			}
		}
	}
	return nil
}

// rowMap maps the rows of pairs [row, value] to their values, checking
// each row is one of the n rows; name names the list in errors.
func rowMap(name string, pairs [][2]int64, n int) (map[int64]int64, error) {
	m := make(map[int64]int64, len(pairs))
	for _, k := range pairs {
		if k[0] < 0 || k[0] >= int64(n) {
			return nil, fmt.Errorf("%s: response %d out of range", name, k[0])
		}
		m[k[0]] = k[1]
	}
	return m, nil
}

// expandRow fills r with row i of c.
func (c *compactResponses) expandRow(i int, row responseRow, r *promptcanary.Response) error {
	if row.profile < 0 || row.profile >= len(c.Profiles) {
		return fmt.Errorf("response %d: profile %d out of range", i, row.profile)
	}
	var errStr error
	str := func(i int) string {
		if i < 0 || i >= len(c.Strings) {
			errStr = fmt.Errorf("string %d out of range", i)
			return ""
		}
		return c.Strings[i]
	}
	p := c.Profiles[row.profile]
	*r = promptcanary.Response{
		PromptID: str(row.prompt), ProviderModelID: str(p[0]), Content: str(row.content), FinishReason: str(p[1]),
		LatencyMS: row.latency, PromptTokens: p[2], CompletionTokens: row.completion,
		TotalTokens: p[2] + row.completion + row.extra, Sample: row.sample,
		ServedModel: str(p[4]), SystemFingerprint: str(p[5]), ResponseID: str(row.responseID), Attempts: p[6],
	}
	if errStr != nil {
		return fmt.Errorf("response %d: %w", i, errStr)
	}
	switch {
	case row.at != nil:
		r.Timestamp = *row.at
	case row.hasTime:
		r.Timestamp = c.Base.Add(time.Duration(row.time))
	}
	if p[3] >= 0 {
		if err := json.Unmarshal(c.ToolCalls[p[3]], &r.ToolCalls); err != nil {
			return fmt.Errorf("response %d tool calls: %w", i, err)
		}
	}
	return nil
}

// decode decodes c from data, the valid JSON that encoding/json hands to
// an UnmarshalJSON, with decodeMembers: it reports false when
// json.Unmarshal must decode it instead. The rows are most of a
// statistical run's file, and json.Unmarshal would check and skip them
// twice more before they are parsed.
func (c *compactResults) decode(data []byte) bool {
	return decodeMembers(data, []string{"encoding", "version", "strings", "metadata", "probes", "outcomes", "rows"},
		&c.Encoding, &c.Version, &c.Strings, &c.Metadata, &c.Probes, &c.Outcomes, &c.Rows)
}

// decode is compactResults.decode for the responses.
func (c *compactResponses) decode(data []byte) bool {
	return decodeMembers(data, []string{"encoding", "version", "base", "strings", "tool_calls", "profiles", "rows", "cut", "cut_tool_calls", "reasoning"},
		&c.Encoding, &c.Version, &c.Base, &c.Strings, &c.ToolCalls, &c.Profiles, &c.Rows, &c.Cut, &c.CutCalls, &c.Reasoning)
}

// resultList decodes "probe_results": the original list or the compact
// object.
type resultList struct {
	list []promptcanary.ProbeResult
	// fold, when set, takes the results instead of list (see Folding).
	fold Folder
}

func (l *resultList) UnmarshalJSON(data []byte) (err error) {
	l.list, err = unmarshalList[promptcanary.ProbeResult, Folder, compactResults](data, "probe_results", l.fold, l.fold != nil,
		func(w *resultJSON, r *promptcanary.ProbeResult) {
			*r = w.ProbeResult
			r.Score = float64(w.Score)
		},
		func(list []promptcanary.ProbeResult) error { return l.fold.Fold(list) })
	return err
}

// responseList decodes "llm_responses": the original list or the compact
// object.
type responseList struct {
	list []promptcanary.Response
	// fold, when set, takes the responses instead of list (see Folding).
	fold ResponseFolder
}

func (l *responseList) UnmarshalJSON(data []byte) (err error) {
	l.list, err = unmarshalList[promptcanary.Response, ResponseFolder, compactResponses](data, "llm_responses", l.fold, l.fold != nil,
		func(w *responseJSON, r *promptcanary.Response) {
			*r = w.Response
			r.Timestamp = w.Timestamp.t
			resolveSpill(r)
		},
		func(list []promptcanary.Response) error { return l.fold.FoldResponses(list) })
	return err
}

// compactList is the compact object of a list of T (a *compactResults
// or a *compactResponses), which folds into an F.
type compactList[T, F any] interface {
	decode(data []byte) bool
	fold(fo F) error
	all() ([]T, error)
}

// unmarshalList decodes data, the list named name: null, the compact
// object C, or the original list of W, each of which item turns into a T.
// When folding, the items go to fo (the original list's to foldList)
// instead of into the list returned.
func unmarshalList[T, F, C, W any, P interface {
	*C
	compactList[T, F]
}](data []byte, name string, fo F, folding bool, item func(w *W, t *T), foldList func([]T) error) ([]T, error) {
	switch firstByte(data) {
	case 'n':
		return nil, nil
	case '{':
		var c C
		if !P(&c).decode(data) {
			var zero C
			c = zero
			if err := json.Unmarshal(data, &c); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		var list []T
		var err error
		if folding {
			err = P(&c).fold(fo)
		} else {
			list, err = P(&c).all()
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return list, nil
	}
	var w []W
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, err
	}
	list := make([]T, len(w))
	for i := range w {
		item(&w[i], &list[i])
	}
	if folding {
		return nil, foldList(list)
	}
	return list, nil
}

// firstByte returns the first byte of data after white space, 0 for none.
func firstByte(data []byte) byte {
	if i := jsonscan.SpaceEnd(data, 0); i < len(data) {
		return data[i]
	}
	return 0
}

// indentTo indents the valid JSON in data like json.Indent with two
// spaces, but only the objects and arrays nested at most depth deep (the
// top level is depth 0): deeper values stay on one line.
func indentTo(data []byte, depth int) []byte {
	out, _ := indentChunks(make([]byte, 0, len(data)+len(data)/8), data, depth, nil)
	return out
}

// indentChunk is how much indented text indentChunks holds before it
// hands it to flush.
const indentChunk = 64 << 10

// indentChunks appends data indented as indentTo indents it to out; with
// flush, it hands out to flush whenever it holds indentChunk bytes and
// starts over, so that the indented text is never held whole.
func indentChunks(out, data []byte, depth int, flush func([]byte) error) ([]byte, error) {
	in := indenter{depth: depth, out: out, flush: flush}
	err := in.write(data)
	return in.out, err
}

// indenter indents compact JSON handed to it a piece at a time (write),
// as indentChunks indents it whole: the JSON need never be held whole
// either. Its state is what indenting one byte needs of those before.
type indenter struct {
	depth int
	out   []byte
	flush func([]byte) error

	level      int  // nesting level of the next byte
	inStr, esc bool // in a string, after its backslash
	prev       byte // the byte before the next, 0 at the start
	// open is set after an object or array opened at a level that breaks
	// lines: the line breaks unless the next byte closes it.
	open bool
}

// write indents data, the next bytes of the JSON.
func (in *indenter) write(data []byte) error {
	for i := 0; i < len(data); i++ {
		if in.flush != nil && len(in.out) >= indentChunk {
			if err := in.flush(in.out); err != nil {
				return err
			}
			in.out = in.out[:0]
		}
		c := data[i]
		if in.open {
			in.open = false
			if c != '}' && c != ']' {
				in.newline(in.level)
			}
		}
		if in.inStr {
			i = in.stringByte(data, i)
			continue
		}
		switch c {
		case '"':
			in.inStr = true
			in.out = append(in.out, c)
		case '{', '[':
			in.out = append(in.out, c)
			in.level++
			in.open = in.level-1 <= in.depth
		case '}', ']':
			in.level--
			if in.level <= in.depth && in.prev != 0 && in.prev != '{' && in.prev != '[' {
				in.newline(in.level)
			}
			in.out = append(in.out, c)
		case ',':
			in.out = append(in.out, c)
			if in.level-1 <= in.depth {
				in.newline(in.level)
			}
		case ':':
			in.out = append(in.out, c)
			if in.level-1 <= in.depth {
				in.out = append(in.out, ' ')
			}
		default:
			in.out = append(in.out, c)
		}
		in.prev = c
	}
	return nil
}

// stringByte copies data[i], a byte in a string, and the plain run of the
// string after it at once; it returns the index of the last byte copied.
func (in *indenter) stringByte(data []byte, i int) int {
	c := data[i]
	if !in.esc && c != '\\' && c != '"' {
		end := i + 1
		for end < len(data) && data[end] != '\\' && data[end] != '"' {
			end++
		}
		in.out = append(in.out, data[i:end]...)
		in.prev = data[end-1]
		return end - 1
	}
	in.out = append(in.out, c)
	in.prev = c
	switch {
	case in.esc:
		in.esc = false
	case c == '\\':
		in.esc = true
	case c == '"':
		in.inStr = false
	}
	return i
}

func (in *indenter) newline(level int) {
	in.out = append(in.out, '\n')
	for range level {
		in.out = append(in.out, ' ', ' ')
	}
}

// appendJSON appends c as encoding/json writes the compactResults struct
// (null for nil).
func (c *compactResults) appendJSON(b []byte) []byte {
	if c == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"encoding":`...)
	b = appendString(b, c.Encoding)
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, int64(c.Version), 10)
	b = append(b, `,"strings":`...)
	b = appendStrings(b, c.Strings)
	b = append(b, `,"metadata":`...)
	b = appendRaws(b, c.Metadata)
	b = append(b, `,"probes":`...)
	b = appendList(b, c.Probes == nil, len(c.Probes), func(b []byte, i int) []byte { return appendInts(b, c.Probes[i][:]) })
	b = append(b, `,"outcomes":`...)
	b = appendList(b, c.Outcomes == nil, len(c.Outcomes), func(b []byte, i int) []byte { return c.Outcomes[i].appendJSON(b) })
	b = append(b, `,"rows":`...)
	b = appendList(b, c.Rows == nil, len(c.Rows), func(b []byte, i int) []byte { return appendInts(b, c.Rows[i]) })
	return append(b, '}')
}

// appendJSON appends c as encoding/json writes the compactResponses
// struct (null for nil).
func (c *compactResponses) appendJSON(b []byte) ([]byte, error) {
	if c == nil {
		return append(b, "null"...), nil
	}
	b = append(b, `{"encoding":`...)
	b = appendString(b, c.Encoding)
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, int64(c.Version), 10)
	b = append(b, `,"base":`...)
	base, err := c.Base.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("base time: %w", err) // a year outside [0, 9999]
	}
	b = append(b, base...)
	b = append(b, `,"strings":`...)
	b = appendStrings(b, c.Strings)
	b = append(b, `,"tool_calls":`...)
	b = appendRaws(b, c.ToolCalls)
	b = append(b, `,"profiles":`...)
	b = appendList(b, c.Profiles == nil, len(c.Profiles), func(b []byte, i int) []byte { return appendInts(b, c.Profiles[i][:]) })
	b = append(b, `,"rows":`...)
	b = appendList(b, c.Rows == nil, len(c.Rows), func(b []byte, i int) []byte { return c.Rows[i].appendJSON(b) })
	b = appendPairs(b, "cut", c.Cut)
	b = appendPairs(b, "cut_tool_calls", c.CutCalls)
	b = appendPairs(b, "reasoning", c.Reasoning)
	return append(b, '}'), nil
}

// appendPairs appends `,"key":[[row,value],…]`, nothing when pairs is
// empty.
func appendPairs(b []byte, key string, pairs [][2]int64) []byte {
	if len(pairs) == 0 {
		return b
	}
	b = append(b, `,"`...)
	b = append(b, key...)
	b = append(b, `":`...)
	return appendList(b, false, len(pairs), func(b []byte, i int) []byte {
		b = append(b, '[')
		b = strconv.AppendInt(b, pairs[i][0], 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, pairs[i][1], 10)
		return append(b, ']')
	})
}

// appendList appends a JSON array of n elements written by elem, or null
// for a nil slice.
func appendList(b []byte, isNil bool, n int, elem func(b []byte, i int) []byte) []byte {
	if isNil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, i)
	}
	return append(b, ']')
}

func appendInts(b []byte, v []int) []byte {
	b = append(b, '[')
	for i, n := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return append(b, ']')
}

func appendStrings(b []byte, v []string) []byte {
	return appendList(b, v == nil, len(v), func(b []byte, i int) []byte { return appendString(b, v[i]) })
}

// appendRaws appends JSON values, each already compact (from Marshal).
func appendRaws(b []byte, v []json.RawMessage) []byte {
	return appendList(b, v == nil, len(v), func(b []byte, i int) []byte {
		if v[i] == nil {
			return append(b, "null"...)
		}
		return append(b, v[i]...)
	})
}

// appendString appends s quoted as encoding/json quotes it: printable
// ASCII other than ", \, <, > and & as it is, anything else through
// encoding/json itself.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // never fails for a string
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
