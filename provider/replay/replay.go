// Package replay is a provider that plays recorded responses from a JSON
// Lines file instead of calling a model, so logged production answers can be
// evaluated with the same probes and drift reports as live ones.
//
// The model part of "replay/PATH" is the file. Each non-blank line is one
// JSON object:
//
//	{"prompt_id": "capital", "content": "Paris", "sample": 0, "finish_reason": "stop",
//	 "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
//	 "prompt_tokens": 12, "completion_tokens": 1, "latency_ms": 230,
//	 "model": "gpt-4o-2024-08-06", "system_fingerprint": "fp_abc"}
//
// Only prompt_id and content are required. Several lines for one prompt are
// its samples in file order; an explicit "sample" places a line at that
// index, and a line without one takes the index after the previous line of
// the same prompt. The file is read and checked once, when the provider is
// opened; unknown fields are rejected so that typos surface.
//
// A line answers the prompt with its prompt_id, whatever the prompt sends:
// a conversation prompt (messages:) or one asking for structured output
// replays like any other. Give a conversation an explicit id: to keep its
// recordings when its turns change; a derived id changes with the turns.
package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/respobj"
)

// MaxLineBytes is the longest line a replay file may hold.
const MaxLineBytes = 16 << 20

// maxErrors bounds how many line errors Open reports at once.
const maxErrors = 20

func init() {
	provider.Register("replay", Open)
	provider.RegisterChecker("replay", Check)
	provider.Declare("replay", provider.Capabilities{Free: true, Stream: streamer{}})
}

// Check reads and checks the replay file named by model, as Open does:
// it needs no key and calls nothing.
func Check(model string, opts provider.Options) error {
	_, err := Open(model, opts)
	return err
}

// Replay plays the responses of one replay file. It is safe for concurrent
// use: it is never modified after Open.
type Replay struct {
	name      string
	responses map[key]*promptcanary.Response
}

var _ provider.Provider = (*Replay)(nil)

type key struct {
	promptID string
	sample   int
}

// Open reads the replay file named by model. A relative path is resolved
// against opts.BaseDir when it is set, else against the working directory.
func Open(model string, opts provider.Options) (provider.Provider, error) {
	return openFile(model, opts.BaseDir, opts.MaxAnswerBytes)
}

// OpenFile reads the replay file at path, resolved against baseDir when path
// is relative and baseDir is not empty.
func OpenFile(path, baseDir string) (*Replay, error) { return openFile(path, baseDir, 0) }

// openFile is OpenFile keeping maxAnswer bytes of each answer (0: all).
func openFile(path, baseDir string, maxAnswer int) (*Replay, error) {
	if strings.TrimSpace(path) == "" {
		return nil, errors.New("replay: missing file path: want replay/PATH, for example replay/logs.jsonl")
	}
	full := path
	if !filepath.IsAbs(full) && baseDir != "" {
		full = filepath.Join(baseDir, full)
	}
	f, err := os.Open(full)
	if err != nil {
		return nil, fmt.Errorf("replay %q: %w", path, err)
	}
	defer f.Close()
	return parse(f, path, maxAnswer)
}

// Parse reads a replay file from r; name is used in error messages. It
// reports every malformed line (up to a limit) in one joined error.
func Parse(r io.Reader, name string) (*Replay, error) { return parse(r, name, 0) }

// parse is Parse cutting each answer to maxAnswer bytes as its line is
// read (see promptcanary.Response.Cut), so that the file's answers are
// never all held whole; 0 keeps everything.
func parse(r io.Reader, name string, maxAnswer int) (*Replay, error) {
	rp := &Replay{name: name, responses: map[key]*promptcanary.Response{}}
	// firstLine remembers where each (prompt, sample) was recorded, for
	// duplicate errors; next is the implicit sample index of each prompt.
	firstLine := map[key]int{}
	next := map[string]int{}

	var errs []error
	fail := func(line int, err error) {
		errs = append(errs, fmt.Errorf("replay %q: line %d: %w", name, line, err))
	}

	lr := newLineReader(r, name)
	for b, ok := lr.next(); ok; b, ok = lr.next() {
		line := lr.line
		rec, err := parseLine(b)
		if err != nil {
			fail(line, err)
			if len(errs) >= maxErrors {
				errs = append(errs, fmt.Errorf("replay %q: too many errors, stopped at line %d", name, line))
				return nil, errors.Join(errs...)
			}
			continue
		}
		sample := next[rec.promptID]
		if rec.sample >= 0 {
			sample = rec.sample
		}
		k := key{rec.promptID, sample}
		if first, dup := firstLine[k]; dup {
			fail(line, fmt.Errorf("duplicate response for prompt %q sample %d (first recorded on line %d)", rec.promptID, sample, first))
			continue
		}
		firstLine[k] = line
		next[rec.promptID] = sample + 1
		rec.resp.PromptID = rec.promptID
		rec.resp.Sample = sample
		rec.resp.Cut(maxAnswer, 0)
		rp.responses[k] = rec.resp
	}
	if err := lr.err(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(rp.responses) == 0 {
		return nil, fmt.Errorf("replay %q: no recorded responses", name)
	}
	return rp, nil
}

// record is one parsed line; sample is -1 when the line names none.
type record struct {
	promptID string
	sample   int
	resp     *promptcanary.Response
}

// parseLine decodes one trimmed, non-blank line: by fastLine when it
// can, else by slowLine, which also names what is wrong with a line.
func parseLine(b []byte) (record, error) {
	if rec, ok := fastLine(b); ok {
		return rec, nil
	}
	return slowLine(b)
}

// slowLine decodes one line with encoding/json, checking every field.
func slowLine(b []byte) (record, error) {
	rec := record{sample: -1, resp: &promptcanary.Response{}}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return rec, fmt.Errorf("want a JSON object, got %s", ute.Value)
		}
		return rec, fmt.Errorf("invalid JSON: %w", err)
	}
	if obj == nil {
		return rec, errors.New("want a JSON object, got null")
	}
	resp, err := respobj.Decode(obj, respobj.Rules{
		Strict:         true,
		PromptID:       &rec.promptID,
		Sample:         &rec.sample,
		Latency:        true,
		ToolCallsShape: "tool_calls must be an array of objects",
	})
	if err != nil {
		return rec, err
	}
	rec.resp = resp
	return rec, nil
}

// Len returns the number of recorded responses.
func (r *Replay) Len() int { return len(r.responses) }

// Generate returns the response recorded for the request's prompt and
// sample. A missing one is a non-retryable *provider.Error.
func (r *Replay) Generate(ctx context.Context, req *provider.Request) (*promptcanary.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req == nil || req.Prompt == nil {
		return nil, &provider.Error{Message: "replay: request has no prompt"}
	}
	rec, ok := r.responses[key{req.Prompt.ID, req.Sample}]
	if !ok {
		return nil, &provider.Error{
			Retryable: false,
			Message:   fmt.Sprintf("no recorded response for prompt %q sample %d in %q", req.Prompt.ID, req.Sample, r.name),
		}
	}
	resp := *rec
	resp.ToolCalls = slices.Clone(rec.ToolCalls)
	for i := range resp.ToolCalls {
		resp.ToolCalls[i].Arguments = bytes.Clone(resp.ToolCalls[i].Arguments)
	}
	return &resp, nil
}
