package file

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/atomicfile"
	"github.com/promptcanary/promptcanary/store"
)

// slugLen is how many characters of the suite name and of the model id go
// into a baseline's file name, as in the original tool; slugBytes bounds
// each in bytes, so that a name of wide characters (emoji are 4 bytes)
// stays within the 255 bytes file systems accept, with room for the
// temporary name it is written under.
const (
	slugLen   = 40
	slugBytes = 100
)

// BaselineName returns the file name the original tool gives b:
// {suite_slug}__{model_slug}__{YYYYmmddTHHMMSS}_{id8}.json, where the suite
// slug is the suite name with "/" as "-" and " " as "_", the model slug the
// model id with "/" and ":" as "-", each cut to 40 characters, the time is
// b.CreatedAt in UTC and id8 the first 8 characters of the snapshot id.
// Characters no file system accepts in a name (control characters and
// \ : * ? " < > |) also become "-", and spaces "_" (a model id such as
// "exec/sh app.sh" would otherwise put a space in the name that every
// shell command must quote), which leaves every ordinary name as the
// original tool spells it. Each slug is also cut to 100 bytes on a
// character boundary, so that the name is at most 233 bytes.
func BaselineName(b *promptcanary.Baseline) string {
	suite := suiteSlug(b.SuiteName)
	model := modelSlug(b.Provider.ModelID)
	id := []rune(b.SnapshotID)
	if len(id) > 8 {
		id = id[:8]
	}
	return fmt.Sprintf("%s__%s__%s_%s.json", suite, model, b.CreatedAt.UTC().Format("20060102T150405"), slug(string(id)))
}

func suiteSlug(suite string) string {
	return slug(strings.NewReplacer("/", "-", " ", "_").Replace(suite))
}

func modelSlug(model string) string {
	return slug(strings.NewReplacer("/", "-", ":", "-").Replace(model))
}

// slug cuts s to slugLen characters and slugBytes bytes, replaces the
// characters that cannot be part of a file name with "-" and spaces with
// "_".
func slug(s string) string {
	r := []rune(s)
	if len(r) > slugLen {
		r = r[:slugLen]
	}
	n := 0
	for i, c := range r {
		switch {
		case c < 0x20 || c == 0x7f || strings.ContainsRune(`/\:*?"<>|`, c):
			r[i] = '-'
		case unicode.IsSpace(c):
			r[i] = '_'
		}
		if n += utf8.RuneLen(r[i]); n > slugBytes {
			r = r[:i]
			break
		}
	}
	return string(r)
}

// LoadBaseline reads the baseline file at path, written by this module or
// by the original Python tool (schema version "0.1", null seeds and finish
// reasons, raw responses, a "_note" key, pydantic timestamps with or
// without a zone).
func LoadBaseline(path string) (*promptcanary.Baseline, error) {
	return loadBaseline(context.Background(), path)
}

// loadBaseline is LoadBaseline, folding the probe results when ctx
// carries a store.Folding.
func loadBaseline(ctx context.Context, path string) (*promptcanary.Baseline, error) {
	data, release, err := readDocument(path)
	if err != nil {
		return nil, fmt.Errorf("load baseline %q: %w", path, err)
	}
	defer release()
	b, err := store.UnmarshalBaselineContext(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("load baseline %q: %w", path, describeJSONError(data, err))
	}
	if b.SnapshotID == "" {
		hint := ""
		switch {
		case promptcanary.IsRunSummary(data):
			hint = " (it is a streamed run's summary, which keeps no answers: save a baseline with `promptcanary run --save-baseline`, or `--stream=false` for a replay file)"
		case b.RunResult.RunID == "" && hasKey(data, "run_id"):
			hint = " (it looks like a run file)"
		}
		return nil, fmt.Errorf("load baseline %q: not a baseline file: no snapshot_id%s", path, hint)
	}
	if b.RunResult.RunID == "" {
		return nil, fmt.Errorf("load baseline %q: not a baseline file: no run_result.run_id", path)
	}
	if err := store.WholeAnswers(ctx, &b.RunResult); err != nil {
		return nil, fmt.Errorf("load baseline %q: %w", path, err)
	}
	return b, nil
}

// readDocument reads the run or baseline file at path with its long
// answers moved to spill files (store.ReadDocument); a file that does not
// read that way is read whole, for the error its decoding gives.
func readDocument(path string) ([]byte, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if data, release, err := store.ReadDocument(f); err == nil {
		return data, release, nil
	}
	data, err := os.ReadFile(path)
	return data, func() {}, err
}

// WriteBaseline atomically writes b to path as indented JSON: a
// one-sample baseline in the original Python tool's format (timestamps cut
// to the microsecond, absent maps and lists written empty, not null), a
// many-sample one in the compact layout of store.MarshalBaseline, which
// only this module reads.
func WriteBaseline(path string, b *promptcanary.Baseline) error {
	return writeFrom(path, func(w io.Writer) error {
		return store.WriteBaseline(w, portable(b), store.LayoutAuto)
	})
}

// portable returns a copy of b in the form the original tool validates:
// microsecond timestamps, empty instead of null maps and lists. The probe
// results and responses are copied only when one of them changes: those of
// a statistical run are megabytes, and results rarely lack metadata.
func portable(b *promptcanary.Baseline) *promptcanary.Baseline {
	c := *b
	c.CreatedAt = micro(c.CreatedAt)
	c.Provider.ExtraParams = emptyMap(c.Provider.ExtraParams)
	r := &c.RunResult
	r.Provider.ExtraParams = emptyMap(r.Provider.ExtraParams)
	r.StartedAt = micro(r.StartedAt)
	r.FinishedAt = micro(r.FinishedAt)
	if r.ProbeResults == nil {
		r.ProbeResults = []promptcanary.ProbeResult{}
	}
	if r.LLMResponses == nil {
		r.LLMResponses = []promptcanary.Response{}
	}
	if slices.ContainsFunc(r.ProbeResults, func(pr promptcanary.ProbeResult) bool { return pr.Metadata == nil }) {
		r.ProbeResults = slices.Clone(r.ProbeResults)
		for i := range r.ProbeResults {
			r.ProbeResults[i].Metadata = emptyMap(r.ProbeResults[i].Metadata)
		}
	}
	if slices.ContainsFunc(r.LLMResponses, func(resp promptcanary.Response) bool { return !resp.Timestamp.Equal(micro(resp.Timestamp)) }) {
		r.LLMResponses = slices.Clone(r.LLMResponses)
		for i := range r.LLMResponses {
			r.LLMResponses[i].Timestamp = micro(r.LLMResponses[i].Timestamp)
		}
	}
	return &c
}

func micro(t time.Time) time.Time { return t.Truncate(time.Microsecond) }

func emptyMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// LoadRun reads the run file at path.
func LoadRun(path string) (*promptcanary.Run, error) {
	data, release, err := readDocument(path)
	if err != nil {
		return nil, fmt.Errorf("load run %q: %w", path, err)
	}
	defer release()
	r, err := store.UnmarshalRun(data)
	if err != nil {
		return nil, fmt.Errorf("load run %q: %w", path, describeJSONError(data, err))
	}
	if r.RunID == "" {
		hint := ""
		if hasKey(data, "snapshot_id") {
			hint = " (it looks like a baseline file)"
		}
		return nil, fmt.Errorf("load run %q: not a run file: no run_id%s", path, hint)
	}
	if err := store.WholeAnswers(context.Background(), r); err != nil {
		return nil, fmt.Errorf("load run %q: %w", path, err)
	}
	return r, nil
}

// loadDrift reads the drift report file at path.
func loadDrift(path string) (*promptcanary.DriftReport, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load drift report %q: %w", path, err)
	}
	d, err := store.UnmarshalDrift(data)
	if err != nil {
		return nil, fmt.Errorf("load drift report %q: %w", path, describeJSONError(data, err))
	}
	if d.ReportID == "" {
		return nil, fmt.Errorf("load drift report %q: not a drift report: no report_id", path)
	}
	return d, nil
}

// hasKey reports whether the top-level JSON object in data has key.
func hasKey(data []byte, key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	_, ok := m[key]
	return ok
}

// describeJSONError adds the line of a syntax error, and says when the
// file ends early, as a write interrupted by another tool would leave it.
func describeJSONError(data []byte, err error) error {
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		return err
	}
	if syn.Offset >= int64(len(bytes.TrimRight(data, " \t\r\n"))) {
		return fmt.Errorf("truncated file: %w", err)
	}
	line := 1 + bytes.Count(data[:syn.Offset], []byte("\n"))
	return fmt.Errorf("line %d: %w", line, err)
}

// baselineHeader is the part of a baseline file that listings read.
type baselineHeader struct {
	SnapshotID string `json:"snapshot_id"`
	CreatedAt  string `json:"created_at"`
	SuiteName  string `json:"suite_name"`
	Provider   struct {
		ModelID string `json:"model_id"`
	} `json:"provider"`
	Note      string `json:"_note"`
	RunResult struct {
		RunID string `json:"run_id"`
	} `json:"run_result"`
}

// readBaselineInfo reads the listing entry of the baseline file at path,
// without keeping its run in memory: the fields before the run's id and
// after the run are decoded, the run's results and responses (megabytes in
// a statistical baseline) are streamed past. A file that does not read
// that way (one truncated or corrupt, or whose run does not name its id
// among its first fields) is read whole, for the error it gives.
func readBaselineInfo(path string) (store.BaselineInfo, error) {
	h, ok := streamBaselineHeader(path)
	if !ok {
		data, err := os.ReadFile(path)
		if err != nil {
			return store.BaselineInfo{}, fmt.Errorf("read baseline %q: %w", path, err)
		}
		if err := json.Unmarshal(data, &h); err != nil {
			return store.BaselineInfo{}, fmt.Errorf("read baseline %q: %w", path, describeJSONError(data, err))
		}
	}
	if h.SnapshotID == "" || h.RunResult.RunID == "" {
		return store.BaselineInfo{}, fmt.Errorf("read baseline %q: not a baseline file", path)
	}
	created, err := store.ParseTime(h.CreatedAt)
	if err != nil {
		return store.BaselineInfo{}, fmt.Errorf("read baseline %q: created_at: %w", path, err)
	}
	return store.BaselineInfo{
		SnapshotID: h.SnapshotID,
		RunID:      h.RunResult.RunID,
		Suite:      h.SuiteName,
		Model:      h.Provider.ModelID,
		CreatedAt:  created,
		Note:       h.Note,
		Path:       path,
	}, nil
}

// streamBaselineHeader decodes the listing fields of the baseline file at
// path as it streams it, skipping the rest of the run once its id is read;
// false when the file is not an object whose run names its id before its
// results, or does not end where its top-level object does.
func streamBaselineHeader(path string) (baselineHeader, bool) {
	var h baselineHeader
	f, err := os.Open(path)
	if err != nil {
		return h, false
	}
	defer f.Close()
	dec := json.NewDecoder(f) // buffers f itself: what it has not read is in dec.Buffered()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return h, false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return h, false
		}
		if key == "run_result" {
			if !decodeRunID(dec, &h.RunResult.RunID) {
				return h, false
			}
			// The decoder stands inside the run, after its id: skip to its
			// end, then decode the fields after it as an object of their own.
			rest := bufio.NewReader(io.MultiReader(dec.Buffered(), f))
			if !skipToClose(rest) {
				return h, false
			}
			tail := json.NewDecoder(io.MultiReader(strings.NewReader(`{"run_result":null`), rest))
			if tail.Decode(&h) != nil {
				return h, false
			}
			_, err := tail.Token()
			return h, err == io.EOF
		}
		if dec.Decode(headerField(&h, key.(string))) != nil {
			return h, false
		}
	}
	return h, false // no run: the whole file says why
}

// headerField returns where the top-level field key of a baseline file is
// decoded to: its field of h, or a value that is dropped.
func headerField(h *baselineHeader, key string) any {
	switch key {
	case "snapshot_id":
		return &h.SnapshotID
	case "created_at":
		return &h.CreatedAt
	case "suite_name":
		return &h.SuiteName
	case "provider":
		return &h.Provider
	case "_note":
		return &h.Note
	}
	return new(json.RawMessage)
}

// decodeRunID reads the opening of a run object from dec and its fields up
// to run_id, into id; false when the run does not name its id before its
// probe results or responses, which are too large to decode here.
func decodeRunID(dec *json.Decoder, id *string) bool {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		switch key := t.(string); key {
		case "run_id":
			return dec.Decode(id) == nil
		case "probe_results", "llm_responses":
			return false
		}
		if dec.Decode(new(json.RawMessage)) != nil {
			return false
		}
	}
	return false
}

// skipToClose reads r past the end of the object or array it stands in,
// minding strings and their escapes; false when r ends first.
func skipToClose(r *bufio.Reader) bool {
	depth, inString, escaped := 1, false, false
	for {
		c, err := r.ReadByte()
		if err != nil {
			return false
		}
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth--; depth == 0 {
				return true
			}
		}
	}
}

// writeFrom atomically writes to path what write writes, and a newline,
// without holding it (the answers of a baseline are read from their spill
// files as it is written).
func writeFrom(path string, write func(w io.Writer) error) error {
	pr, pw := io.Pipe()
	go func() {
		bw := bufio.NewWriterSize(pw, 64<<10)
		err := write(bw)
		if err == nil {
			err = bw.WriteByte('\n')
		}
		if err == nil {
			err = bw.Flush()
		}
		pw.CloseWithError(err)
	}()
	err := atomicfile.WriteFrom(path, pr, 0o644)
	pr.CloseWithError(errors.New("write stopped"))
	return err
}
